"""The heat sink of heat-sink.pde optimized from Python, the simulator called as a function
instead of a command (docs/guide.md).

    python3 examples/heat-sink/callable.py [OUT]
"""
import pathlib
import sys

import pinnbo

here = pathlib.Path(__file__).parent
sys.path.insert(0, str(here))
from simulate import simulate  # noqa: E402


def measure(x):
    rise, excess_mass = simulate(int(x[0]), float(x[1]))
    return {"objective": rise, "constraints": [excess_mass]}


problem = pinnbo.Problem.from_file(here / "heat-sink.pde")
with problem.solve(measure, out=sys.argv[1] if len(sys.argv) > 1 else None) as opt:
    best = opt.best
    print(f"best {best['objective']:.4f} K at {best['at']} (evaluation {best['evaluation']})")
