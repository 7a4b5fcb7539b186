"""Ask/tell from a plain loop: the measurement happens in your code (here a function standing
in for a lab), pinnbo only proposes and records. Batches of four points at a time.

    python crates/pinnbo-py/examples/ask_tell_loop.py [--out DIR]
"""

import argparse

import numpy as np

import pinnbo

PROBLEM = """problem "lab"
var temperature in [20, 80], concentration in [0.1, 1]
field yield(temperature, concentration)
maximize yield
oracle external
noise std 0.01
budget 24, init 8 sobol
method gp-ei
"""


def measure(point):
    """The experiment: a smooth optimum near 57 degrees and 0.42, with a little noise."""
    t, c = point
    rng = np.random.default_rng(abs(hash((t, c))) % 2**32)
    return float(np.exp(-(((t - 57) / 15) ** 2) - ((c - 0.42) / 0.3) ** 2) + rng.normal(0, 0.01))


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--out", default=None, help="the run's folder (default: a temporary one)")
args = parser.parse_args()

lab = pinnbo.Optimizer(pinnbo.Problem.from_str(PROBLEM, name="lab.pde"), out=args.out)
while len(lab) < lab.budget:
    batch = lab.ask(min(4, lab.budget - len(lab)))
    lab.tell(batch, [measure(p) for p in batch])
best = lab.best
print(f"{len(lab)} measurements journaled in {lab.out}")
print(f"best yield {best['objective']:.4f} at temperature {best['x'][0]:.2f}, concentration {best['x'][1]:.3f}")
