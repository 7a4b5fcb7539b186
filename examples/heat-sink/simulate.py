#!/usr/bin/env python3
"""A stand-in for an expensive simulator: the temperature rise of a finned heat sink.

    python3 simulate.py FINS THICKNESS_MM

prints one JSON line, {"objective": temperature rise in K, "constraints": [mass - 0.25 kg]},
as `oracle command "..." { output json }` reads it. A real simulator would take minutes; this
one answers at once. Fins of a given thickness lose efficiency as they get thin (the classic
fin formula), and more fins crowd the air between them.
"""
import json
import math
import sys

HEIGHT, DEPTH, WIDTH = 0.04, 0.1, 0.1           # m: fin height, sink depth and width
POWER, K, DENSITY = 30.0, 200.0, 2700.0         # W, aluminium's conductivity and density


def simulate(fins, thickness_mm):
    """The temperature rise (K) and the mass above 0.25 kg of a sink with `fins` fins of
    `thickness_mm`; ValueError when the fins do not fit."""
    thickness = thickness_mm / 1000.0
    gap = (WIDTH - fins * thickness) / max(fins - 1, 1)
    if gap <= 0:
        raise ValueError("the fins do not fit: their gap is negative")
    h = 4.0 + 0.012 / gap                       # W/m²K: narrower channels, faster air
    m = math.sqrt(2 * h / (K * thickness))
    efficiency = math.tanh(m * HEIGHT) / (m * HEIGHT)
    area = fins * 2 * HEIGHT * DEPTH * efficiency + WIDTH * DEPTH
    mass = DENSITY * DEPTH * (fins * thickness * HEIGHT + WIDTH * 0.003)
    return POWER / (h * area), mass - 0.25


if __name__ == "__main__":
    try:
        rise, excess = simulate(int(float(sys.argv[1])), float(sys.argv[2]))
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    print(json.dumps({"objective": rise, "constraints": [excess]}))
