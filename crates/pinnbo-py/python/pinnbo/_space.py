"""``Problem.from_space``: a problem declared from Python values instead of DSL text.

The variables, objectives and constraints are written out as a ``.pde`` text (which the
run keeps, so the command line can continue it) and checked as any file is.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence, Union

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Log:
    """A continuous variable on a log scale, ``Log(1e-4, 1e-1)``: searched in its logarithm."""

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = float(low), float(high)

    def __repr__(self) -> str:
        return f"Log({self.low!r}, {self.high!r})"


def _name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{what} name {name!r} is not a name (letters, digits, _; not first a digit)")
    return name


def _number(v: Any, where: str) -> str:
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{where}: {v} is not a finite number")
    return repr(v)


def _variable(name: str, domain: Any) -> str:
    if isinstance(domain, Log):
        return f"var {name} in [{_number(domain.low, name)}, {_number(domain.high, name)}] log"
    if isinstance(domain, range):
        if domain.step != 1 or len(domain) == 0:
            raise ValueError(f"{name}: a range of integers must have step 1 and hold a value")
        return f"var {name} in {domain.start}..{domain.stop - 1}"
    if isinstance(domain, (list, set, frozenset)) and all(isinstance(v, str) for v in domain):
        levels = list(domain) if isinstance(domain, list) else sorted(domain)
        return f"var {name} in {{{', '.join(_name(v, 'a level') for v in levels)}}}"
    if isinstance(domain, tuple) and len(domain) == 2:
        return f"var {name} in [{_number(domain[0], name)}, {_number(domain[1], name)}]"
    raise ValueError(
        f"{name}: give (low, high) for a continuous variable, range(a, b) for integers, a list "
        f"of level names, or pinnbo.Log(low, high); got {domain!r}"
    )


def problem_text(
    space: Mapping[str, Any],
    objectives: Union[Sequence[str], Mapping[str, str]] = ("objective",),
    constraints: Union[Sequence[str], Mapping[str, str]] = (),
    name: str = "problem",
    budget: Any = None,
    init: Any = None,
    method: Any = None,
) -> str:
    """The ``.pde`` text of ``Problem.from_space`` (see docs/python.md)."""
    if not space:
        raise ValueError("the space needs at least one variable")
    names = [_name(n, "a variable") for n in space]
    lines = [f'problem "{_name(name, "the problem")}"']
    lines += [_variable(n, d) for n, d in space.items()]
    args = ", ".join(names)
    senses = dict(objectives) if isinstance(objectives, Mapping) else {o: "minimize" for o in objectives}
    if not senses:
        raise ValueError("give at least one objective")
    measured = list(constraints) if not isinstance(constraints, Mapping) else []
    known = dict(constraints) if isinstance(constraints, Mapping) else {}
    for field in list(senses) + measured:
        lines.append(f"field {_name(field, 'an objective or constraint')}({args})")
    several = len(senses) > 1
    for objective, sense in senses.items():
        if sense not in ("minimize", "maximize"):
            raise ValueError(f"objective {objective}: {sense!r} is neither 'minimize' nor 'maximize'")
        lines.append(f"{sense} {objective}: {objective}" if several else f"{sense} {objective}")
    lines += [f"subject to {c}: {c} <= 0" for c in measured]
    lines += [f"subject to {_name(c, 'a constraint')}: {formula}" for c, formula in known.items()]
    lines.append("oracle external")
    if budget is not None:
        design = f", init {int(init)} sobol" if init is not None else ""
        lines.append(f"budget {int(budget)}{design}")
    if method is not None:
        lines.append(f"method {method}")
    return "\n".join(lines) + "\n"
