"""Stands in for a rod's simulation: heated evenly at rate q, its left end at T0 and its right
end at 0. Prints the objective, the constraint and what five thermocouples read, as
pinnbo's `output json` asks: {"objective": .., "constraints": [..], "sensors": {"T": [..]}}."""
import json
import sys

q, t0 = float(sys.argv[1]), float(sys.argv[2])


def temperature(x):
    return t0 * (1 - x) + q * x * (1 - x) / 2


hottest = max(temperature(i / 1000) for i in range(1001))
print(json.dumps({
    "objective": (temperature(0.7) - 0.9) ** 2 + 0.01 * q,
    "constraints": [hottest - 1.2],
    "sensors": {"T": [temperature(x) for x in (0.1, 0.3, 0.5, 0.7, 0.9)]},
}))
