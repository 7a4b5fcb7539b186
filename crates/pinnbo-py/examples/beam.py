"""The README's main job from Python: the beam with the file's own method (physics-gp),
its FDM simulation as the oracle, 100 evaluations.

    python crates/pinnbo-py/examples/beam.py [--budget N] [--out DIR]
"""

import argparse
from pathlib import Path

import pinnbo

REPO = Path(__file__).resolve().parents[3]

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--budget", type=int, default=None, help="default: the file's (100)")
parser.add_argument("--out", default="beam-physics-gp-python", help="the run's folder")
args = parser.parse_args()

beam = pinnbo.Problem.from_file(REPO / "problems/beam.pde")
print(beam, "method", beam.method)
run = beam.solve(budget=args.budget, out=args.out)
best = run.best
print(f"{len(run)} evaluations in {run.out}")
print(f"best {best['objective']:.6g} at x = {best['x'][0]:.6f} (evaluation {best['evaluation']})")
