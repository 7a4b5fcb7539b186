"""pinnbo from Python: physics-informed black-box optimization.

Problems are ``.pde`` files (or text) checked as ``pinnbo check`` checks them; a run is the
same journaled run the command line makes, so a folder written here continues with
``pinnbo ask`` or ``pinnbo solve --resume`` and the other way round. See docs/python.md.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence, Tuple

from ._pinnbo import Optimizer, Problem, ProblemError, RunError, __version__
from ._space import Log

__all__ = ["Log", "Optimizer", "Problem", "ProblemError", "RunError", "minimize", "__version__"]


def minimize(
    f: Callable[..., Any],
    bounds: Sequence[Tuple[float, float]],
    *,
    budget: int = 30,
    method: str = "gp-ei",
    seed: int = 0,
    init: Optional[int] = None,
    out: Optional[str] = None,
    keep: bool = False,
    callback: Optional[Callable[[dict], Any]] = None,
    **settings: Any,
) -> Optimizer:
    """Minimizes ``f`` over the box ``bounds`` (one ``(low, high)`` pair per variable).

    ``f`` gets the point as a numpy array and returns a number (or raises, or returns NaN:
    that evaluation is journaled as failed and the run goes on). Returns the finished
    ``Optimizer``: ``.best``, ``.history``, ``.out``. Without ``out`` the run is journaled
    in a temporary folder, removed when the Optimizer is closed or collected unless ``keep``.
    Each evaluation is logged on the ``pinnbo`` logger (INFO) and handed to ``callback`` as a
    dict, if given.
    """
    bounds = [tuple(map(float, b)) for b in bounds]
    if not bounds:
        raise ValueError("bounds must give at least one (low, high) pair")
    for k, (lo, hi) in enumerate(bounds):
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"bounds[{k}] = ({lo}, {hi}) is not a finite interval low < high")
    names = [f"x{k + 1}" for k in range(len(bounds))]
    variables = ", ".join(f"{n} in [{lo!r}, {hi!r}]" for n, (lo, hi) in zip(names, bounds))
    design = f", init {int(init)} sobol" if init is not None else ""
    text = (
        'problem "minimize"\n'
        f"var {variables}\n"
        f"field f({', '.join(names)})\n"
        "minimize f\n"
        "oracle external\n"
        f"budget {int(budget)}{design}\n"
    )
    problem = Problem.from_str(text, name="<minimize>")
    return problem.solve(f, method=method, seed=seed, out=out, keep=keep, callback=callback, **settings)
