"""Design problems with sensors from Python: a callable oracle returns its sensors by field,
and a lab tells them with `tell(..., sensors=...)`; both are journaled in the file's order."""

import json
import math

import pytest

import pinnbo

ROD = """var a in [0.1, 0.9], Q in [0.5, 2]
coord x in [0, 1]
field T(x, a, Q)
sensors T at x = 0.2, 0.5
sensors T at x = 0.8
minimize (T(0.8, a, Q) - 1)^2
budget 6, init 4
method gp-ei
"""


def field(x, a, q):
    return q * math.exp(-((x - a) ** 2) / 0.02)


def records(out):
    lines = (out / "journal.jsonl").read_text().splitlines()[1:]
    return [r for r in map(json.loads, lines) if "ask" not in r]


def test_a_callable_returns_its_sensors_by_field(tmp_path):
    def rod(point):
        a, q = point
        return {"objective": (field(0.8, a, q) - 1) ** 2,
                "sensors": {"T": [field(0.2, a, q), field(0.5, a, q), field(0.8, a, q)]}}

    problem = pinnbo.Problem.from_str(ROD, name="rod.pde")
    opt = problem.solve(rod, out=tmp_path / "run")
    opt.close()
    for r in records(tmp_path / "run"):
        a, q = r["x"]
        assert r["observed"]["sensors"] == pytest.approx(
            [field(0.2, a, q), field(0.5, a, q), field(0.8, a, q)], rel=1e-12)


def test_a_callable_without_its_sensors_fails_with_the_reason(tmp_path):
    problem = pinnbo.Problem.from_str(ROD, name="rod.pde")
    with pytest.raises(pinnbo.RunError, match='every one of the 4 evaluations failed'):
        problem.solve(lambda p: 0.5, out=tmp_path / "bare", budget=4)
    failures = [r["failure"] for r in records(tmp_path / "bare")]
    assert len(failures) == 4
    assert all("the oracle returns a dict with \"sensors\"" in f for f in failures), failures


def test_a_lab_tells_its_sensors(tmp_path):
    problem = pinnbo.Problem.from_str(ROD.replace("method gp-ei", "method gp-ei\noracle external"),
                                      name="rod.pde")
    with pinnbo.Optimizer(problem, out=tmp_path / "lab") as opt:
        trial = opt.ask_trials(1)[0]
        with pytest.raises(ValueError, match="`T` has 3 sensor"):
            opt.tell(id=trial["id"], y=0.3, sensors={"T": [1.0, 2.0]})
        with pytest.raises(pinnbo.RunError, match="0 sensor value"):
            opt.tell(id=trial["id"], y=0.3)
        opt.tell(id=trial["id"], y=0.3, sensors={"T": [1.0, 2.0, 3.0]})
    assert records(tmp_path / "lab")[0]["observed"]["sensors"] == [1.0, 2.0, 3.0]
