import pathlib
from os import PathLike
from typing import Any, Callable, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

Path = Union[str, PathLike[str]]
Oracle = Callable[[npt.NDArray[np.float64]], Any]

class ProblemError(ValueError):
    """A problem that does not check; the message is the rendered report (file:line:col)."""

class RunError(RuntimeError):
    """A run that cannot start, continue or take what it was told; what was journaled is kept."""

class Best(TypedDict):
    x: npt.NDArray[np.float64]
    at: dict[str, Union[float, int, str]]  # the point by name, as a user writes it
    objective: float
    clean_objective: Optional[float]
    constraints: list[float]
    evaluation: int

class Convergence(TypedDict):
    expected_improvement_relative: float
    threshold: float
    converged_since: Optional[int]
    stopped_at: Optional[int]

class PdeChecks(TypedDict):
    steps: int
    kept: int
    dropped_by: dict[str, int]
    last_kept: bool

class _ParameterEstimate(TypedDict):
    value: float
    std: Optional[float]

class Parameter(_ParameterEstimate, total=False):
    at_bound: str  # "lower" or "upper": the fit ended on that bound of the box
    undetermined: str  # what the data determine instead, e.g. "only k/c is determined by the data"

class _HistoryColumns(TypedDict):
    x: npt.NDArray[np.float64]
    objective: npt.NDArray[np.float64]
    sem: npt.NDArray[np.float64]  # (n,), the (first) objective's told standard error; NaN where none
    constraints: npt.NDArray[np.float64]
    failure: list[Optional[str]]
    phase: list[str]
    id: list[int]

class History(_HistoryColumns, total=False):
    objectives: npt.NDArray[np.float64]  # (n, k), with several objectives: each, in the file's order
    sems: npt.NDArray[np.float64]  # (n, k), with several objectives: each one's told standard error

class Log:
    """A continuous variable on a log scale: `Log(1e-4, 1e-1)`."""

    low: float
    high: float
    def __init__(self, low: float, high: float) -> None: ...

class Problem:
    """A checked optimization problem (`.pde`)."""

    @staticmethod
    def from_file(path: Path) -> Problem:
        """Reads and checks a `.pde` file; raises ProblemError with the report."""
    @staticmethod
    def from_str(text: str, name: str = "<string>") -> Problem:
        """Checks a problem written as text; `name` stands for the file in messages."""
    @staticmethod
    def from_space(
        space: dict[str, Union[Tuple[float, float], range, Sequence[str], Log]],
        objectives: Union[Sequence[str], dict[str, str], None] = None,
        constraints: Union[Sequence[str], dict[str, str], None] = None,
        name: str = "problem",
        budget: Optional[int] = None,
        init: Optional[int] = None,
        method: Optional[str] = None,
    ) -> Problem:
        """A problem from Python values: variables by domain, objectives by name (or name ->
        "minimize"/"maximize"), measured constraints by name or known ones name -> formula;
        every value measured by the caller."""
    @property
    def name(self) -> str: ...
    @property
    def dim(self) -> int:
        """The number of design variables."""
    @property
    def variables(self) -> list[str]:
        """The variables' names (`x` or `x[3]`), in order."""
    @property
    def bounds(self) -> npt.NDArray[np.float64]:
        """A `(dim, 2)` array of each variable's lower and upper bound."""
    @property
    def constraints(self) -> list[str]:
        """The constraints' names, in order (each feasible when `<= 0`)."""
    @property
    def sense(self) -> str:
        """`"minimize"` or `"maximize"`; `"mixed"` where several objectives disagree."""
    @property
    def senses(self) -> list[str]:
        """Each objective's sense, in the file's order."""
    @property
    def method(self) -> str:
        """The method a run uses unless told otherwise."""
    @property
    def text(self) -> str:
        """The problem's text as checked."""
    def solve(
        self,
        oracle: Optional[Oracle] = None,
        *,
        method: Optional[str] = None,
        seed: Optional[int] = None,
        budget: Optional[int] = None,
        out: Optional[Path] = None,
        allow_exec: bool = False,
        keep: bool = False,
        callback: Optional[Callable[[dict], Any]] = None,
        **settings: Any,
    ) -> Optimizer:
        """Optimizes with `oracle` (or the file's own oracle when None) to the budget.
        Without `out` the run is journaled in a temporary folder, removed when the
        Optimizer is closed or collected unless `keep`."""

class Optimizer:
    """A journaled run: `ask` points and `tell` what they gave, or `run` it with an oracle."""

    def __init__(
        self,
        problem: Problem,
        method: str = "auto",
        seed: Optional[int] = None,
        out: Optional[Path] = None,
        budget: Optional[int] = None,
        oracle: Optional[Oracle] = None,
        allow_exec: bool = False,
        keep: bool = False,
        load_if_exists: bool = False,
        **settings: Any,
    ) -> None: ...
    @staticmethod
    def resume(
        out: Path,
        budget: Optional[int] = None,
        oracle: Optional[Oracle] = None,
        allow_exec: bool = False,
    ) -> Optimizer:
        """Continues the run journaled in `out`."""
    def ask(self, n: int = 1) -> npt.NDArray[np.float64]:
        """The next `n` points, an `(n, dim)` array, journaled as pending."""
    def plot(self) -> list[Path]:
        """Writes summary.json, history.csv and the pictures `pinnbo solve` draws; their paths."""
    def ask_trials(self, n: int = 1) -> list[dict]:
        """The next `n` points as trials: {"id", "params" (by name), "x"}."""
    def tell(
        self,
        x: Optional[Union[npt.ArrayLike, dict]] = None,
        y: Optional[Any] = None,
        constraints: Optional[npt.ArrayLike] = None,
        failed: Optional[str] = None,
        *,
        id: Optional[int] = None,
        sensors: Optional[Union[dict[str, list[float]], list[dict[str, list[float]]]]] = None,
        sem: Optional[Any] = None,
    ) -> None:
        """Records what the points `x` gave (an unasked point is an extra observation);
        `sensors` each field's sensor values by name (`{"T": [..]}`), with `sensors T at ..`;
        `sem` each value's standard error, shaped as `y` (the GP methods' noise there)."""
    def run(self, callback: Optional[Callable[[dict], Any]] = None) -> None:
        """Evaluates with the run's oracle until the budget is spent."""
    def close(self) -> None:
        """Releases the run (its journal's lock): `resume` may continue it; this one stops."""
    def __enter__(self) -> Optimizer: ...
    def __exit__(self, *exception: Any) -> bool: ...
    @property
    def pending(self) -> npt.NDArray[np.float64]: ...
    @property
    def best(self) -> Optional[Best]: ...
    @property
    def convergence(self) -> Optional[Convergence]: ...
    @property
    def pde_checks(self) -> Optional[PdeChecks]:
        """How often the check kept the pde, and what dropped it at the other steps."""
    @property
    def parameters(self) -> dict[str, Parameter]:
        """The last estimate of the pde's unknown constants, by name."""
    def predict(self, x: Union[Sequence[float], dict[str, Any], npt.ArrayLike]) -> dict[str, Any]:
        """The model at points: {"mean", "std"} arrays of the objective, "constraints" by
        name (each {"mean", "std"}; None for a method without constraint models) and
        "parameters"; raises RunError for a method without a predictive std."""
    def to_dataframe(self) -> Any:
        """Every evaluation as a pandas DataFrame (id, phase, variables by name, objectives,
        constraints, failure); needs pandas."""
    @property
    def pareto(self) -> Optional[dict]:
        """With several objectives: the non-dominated feasible evaluations, their
        hypervolume and the reference point, as summary.json's `pareto`."""
    @property
    def history(self) -> History: ...
    @property
    def out(self) -> "pathlib.Path": ...
    @property
    def method(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def budget(self) -> int: ...
    def __len__(self) -> int: ...

def minimize(
    f: Oracle,
    bounds: Sequence[Tuple[float, float]],
    *,
    budget: int = 30,
    method: str = "gp-ei",
    seed: int = 0,
    init: Optional[int] = None,
    out: Optional[Path] = None,
    **settings: Any,
) -> Optimizer:
    """Minimizes `f` over the box `bounds`; returns the finished Optimizer."""
