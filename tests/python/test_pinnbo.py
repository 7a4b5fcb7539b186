"""The Python package against the properties that matter: diagnostics as exceptions, ask/tell
equal to `pinnbo solve`, callables as oracles (failures journaled), resume, Ctrl-C."""

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import pinnbo
from conftest import QUADRATIC, REPO, run_cli


def journal_records(out: Path) -> list:
    lines = (out / "journal.jsonl").read_text().splitlines()[1:]
    return [r for r in map(json.loads, lines) if "ask" not in r]


# Diagnostics -------------------------------------------------------------------------


def test_a_malformed_problem_raises_its_located_report():
    with pytest.raises(pinnbo.ProblemError) as raised:
        pinnbo.Problem.from_str("var x in [0, 1]\nminimze x\n", name="bad.pde")
    report = str(raised.value)
    assert "unknown statement `minimze`" in report
    assert "bad.pde:2:1" in report
    assert "did you mean `minimize`?" in report


def test_a_shipped_problem_loads_with_its_shape():
    beam = pinnbo.Problem.from_file(REPO / "problems/beam.pde")
    assert (beam.name, beam.dim, beam.variables, beam.sense) == ("beam", 1, ["x"], "minimize")
    assert beam.method == "physics-gp"
    np.testing.assert_array_equal(beam.bounds, [[0.0, 1.0]])
    with pytest.raises(OSError):
        pinnbo.Problem.from_file(REPO / "problems/no-such-file.pde")


def test_method_settings_are_checked_as_the_file_would_be(tmp_path):
    problem = pinnbo.Problem.from_str(QUADRATIC, name="quad.pde")
    with pytest.raises(pinnbo.ProblemError) as raised:
        pinnbo.Optimizer(problem, method="gp-ei", out=tmp_path / "a", restartz=3)
    assert "restartz" in str(raised.value) and "quad.pde" in str(raised.value)
    opt = pinnbo.Optimizer(problem, method="gp-ei", out=tmp_path / "b", restarts=7)
    assert "method gp-ei { restarts 7 }" in (opt.out / "journal.pde").read_text()


# Ask/tell ------------------------------------------------------------------------------


def test_ask_tell_from_python_equals_pinnbo_solve(tmp_path, pinnbo_bin):
    (tmp_path / "quad.pde").write_text(QUADRATIC)
    solved = run_cli(pinnbo_bin, "solve", "quad.pde", "--out", "solved", "--quiet", cwd=tmp_path)
    assert solved.returncode == 0, solved.stderr

    problem = pinnbo.Problem.from_file(tmp_path / "quad.pde")
    opt = pinnbo.Optimizer(problem, out=tmp_path / "told")
    assert opt.method == "gp-ei" and opt.seed == 0 and opt.budget == 9
    while len(opt) < opt.budget:
        (x,) = opt.ask()
        at = f"x={float(x[0])!r},y={float(x[1])!r}"
        evaluated = run_cli(pinnbo_bin, "eval", "quad.pde", "--at", at, "--json", cwd=tmp_path)
        opt.tell(x, json.loads(evaluated.stdout)["objective"])

    strip = lambda r: (r["phase"], r["x"], r["observed"], r["rng"])  # noqa: E731
    assert list(map(strip, journal_records(tmp_path / "told"))) == list(
        map(strip, journal_records(tmp_path / "solved"))
    )
    best = opt.best
    assert best["objective"] == np.nanmin(opt.history["objective"])


def test_a_batch_is_distinct_points_and_unasked_points_are_extra(tmp_path):
    problem = pinnbo.Problem.from_str(QUADRATIC)
    opt = pinnbo.Optimizer(problem, out=tmp_path / "run", budget=12)
    design = opt.ask(4)
    opt.tell(design, [float(((p - [0.3, 1.2]) ** 2).sum()) for p in design])
    batch = opt.ask(3)
    assert batch.shape == (3, 2)
    assert len({tuple(p) for p in batch}) == 3
    np.testing.assert_array_equal(opt.pending, batch)
    opt.tell([0.5, 0.5], 0.75)  # never asked
    history = opt.history
    assert history["phase"][-1] == "extra"
    assert len(opt) == 5 and opt.pending.shape == (3, 2)
    with pytest.raises(pinnbo.RunError, match="budget of 12 evaluations cannot take 5 more"):
        opt.ask(5)
    with pytest.raises(ValueError, match="n must be a whole number of at least 1, not -1"):
        opt.ask(-1)
    # Refused with the reason, not a raw OverflowError or a bool taken for 1 (issue 53, 15).
    with pytest.raises(ValueError, match="n must be a whole number of at least 1, not 10000"):
        opt.ask(10**30)
    with pytest.raises(TypeError, match="n must be an integer, not True"):
        opt.ask(True)
    assert opt.ask(np.int64(1)).shape == (1, 2)


def test_a_told_point_told_again_is_a_retry_or_refused(tmp_path):
    opt = pinnbo.Optimizer(pinnbo.Problem.from_str(QUADRATIC), out=tmp_path / "run")
    (x,) = opt.ask()
    opt.tell(x, 1.0)
    opt.tell(x, 1.0)  # a retry of the same outcome changes nothing
    with pytest.raises(pinnbo.RunError, match="told already .* with another outcome"):
        opt.tell(x, 2.0)
    assert len(opt) == 1 and list(opt.history["id"]) == [0]


def test_a_closed_optimizer_lets_its_run_be_resumed_in_the_same_process(tmp_path):
    problem = pinnbo.Problem.from_str(QUADRATIC)
    opt = pinnbo.Optimizer(problem, out=tmp_path / "run")
    opt.tell(opt.ask()[0], 1.0)
    with pytest.raises(pinnbo.RunError, match="open in this process by another Optimizer"):
        pinnbo.Optimizer.resume(tmp_path / "run")
    opt.close()
    with pytest.raises(pinnbo.RunError, match="this run was closed"):
        opt.ask()
    with pinnbo.Optimizer.resume(tmp_path / "run") as again:
        again.tell(again.ask()[0], 2.0)
        assert len(again) == 2
    assert len(pinnbo.Optimizer.resume(tmp_path / "run")) == 2


def test_load_if_exists_starts_the_run_or_continues_it_exactly(tmp_path):
    problem = pinnbo.Problem.from_str(QUADRATIC)

    def script():  # the same script, run again
        return pinnbo.Optimizer(problem, method="gp-ei", seed=3, out=tmp_path / "run", load_if_exists=True)

    with script() as opt:
        (x,) = opt.ask()
        opt.tell(x, 1.0)
        pending = opt.ask()
    with script() as again:  # the same run: its history and its pending point
        assert list(again.history["objective"]) == [1.0]
        assert (again.pending == pending).all()
    with pytest.raises(pinnbo.RunError, match="already holds a run.*load_if_exists=True"):
        pinnbo.Optimizer(problem, method="gp-ei", seed=3, out=tmp_path / "run")
    with pytest.raises(pinnbo.RunError, match="different run: its seed is 3, this one.s 4"):
        pinnbo.Optimizer(problem, method="gp-ei", seed=4, out=tmp_path / "run", load_if_exists=True)
    edited = pinnbo.Problem.from_str(QUADRATIC.replace("budget", "# edited\nbudget"))
    with pytest.raises(pinnbo.RunError, match="changed"):
        pinnbo.Optimizer(edited, method="gp-ei", seed=3, out=tmp_path / "run", load_if_exists=True)


def test_a_known_constraint_is_held_and_never_told(tmp_path):
    problem = pinnbo.Problem.from_str(
        "var a in [0, 1], b in [0, 1]\nfield f(a, b)\nfield heat(a, b)\nminimize f\n"
        "subject to cooling: heat <= 1\nsubject to spend: a + b <= 1\nbudget 20, init 4\n"
    )
    opt = pinnbo.Optimizer(problem, method="gp-ei", out=tmp_path / "run")
    for _ in range(2):
        x = opt.ask(4)
        assert all(a + b <= 1 for a, b in x)
        opt.tell(x, [float((a - 0.9) ** 2 + b) for a, b in x], constraints=[[-1.0]] * 4)
    told = opt.history  # the known constraint's values, computed: the history's second column
    spend = [a + b - 1 for a, b in told["x"]]
    assert list(told["constraints"][:, 0]) == [-1.0] * 8
    assert all(abs(c - s) < 1e-12 for c, s in zip(told["constraints"][:, 1], spend))


def test_predict_is_the_models_posterior_at_the_observed_points(tmp_path):
    problem = pinnbo.Problem.from_str(
        "var x in [0, 1], y in [0, 2]\nfield f(x, y)\nfield g(x, y)\nminimize f\n"
        "subject to cap: g <= 1\nsubject to spend: x + y <= 2.5\nbudget 20, init 8\n"
    )
    opt = pinnbo.Optimizer(problem, method="gp-ei", out=tmp_path / "run")
    x = opt.ask(8)
    f = [float((a - 0.3) ** 2 + (b - 1.2) ** 2) for a, b in x]
    g = [float(a * b) for a, b in x]
    opt.tell(x, f, constraints=[[v] for v in g])
    p = opt.predict(x)
    # Exact values: the posterior passes through them, to well within its own spread.
    assert all(abs(m - v) <= 3 * s + 1e-6 for m, v, s in zip(p["mean"], f, p["std"]))
    cap = p["constraints"]["cap"]
    assert all(abs(m - v) <= 3 * s + 1e-6 for m, v, s in zip(cap["mean"], g, cap["std"]))
    assert list(p["constraints"]["spend"]["std"]) == [0.0] * 8  # known: its formula
    away = opt.predict({"x": 0.95, "y": 0.05})
    assert away["std"][0] > max(p["std"])  # far from every observation, less certain
    assert p["parameters"] == {}
    with pytest.raises(pinnbo.RunError, match="outside"):
        opt.predict([2.0, 0.5])


def test_a_first_script_from_python_values(tmp_path):
    """From a space of Python values, a known constraint, the model and a second run of the
    same script, as a newcomer from Ax or Optuna would write it."""
    problem = pinnbo.Problem.from_space(
        {"x": (0.0, 1.0), "n": range(1, 9), "m": ["a", "b"], "lr": pinnbo.Log(1e-4, 1e-1)},
        objectives=["cost"],
        constraints={"spend": "x + lr <= 1"},
        name="script",
        budget=16,
        init=6,
    )
    assert (problem.variables, problem.constraints) == (["x", "n", "m", "lr"], ["spend"])
    assert "var lr in [0.0001, 0.1] log" in problem.text and "var n in 1..8" in problem.text

    def script():
        return pinnbo.Optimizer(problem, method="gp-ei", seed=1, out=tmp_path / "run", load_if_exists=True)

    with script() as opt:
        for trial in opt.ask_trials(6):
            p = trial["params"]
            assert p["x"] + p["lr"] <= 1 and p["m"] in ("a", "b") and 1 <= p["n"] <= 8
            cost = (p["x"] - 0.4) ** 2 + 0.01 * p["n"] + (0.1 if p["m"] == "b" else 0.0)
            opt.tell(id=trial["id"], y=cost, sem=0.01)
    with script() as opt:
        assert len(opt) == 6
        pred = opt.predict(opt.history["x"])
        spread = [3 * (s**2 + 0.01**2) ** 0.5 + 1e-6 for s in pred["std"]]
        assert all(abs(m - y) <= w for m, y, w in zip(pred["mean"], opt.history["objective"], spread))
    with pytest.raises(ValueError, match="range of integers must have step 1"):
        pinnbo.Problem.from_space({"n": range(0, 10, 2)})
    with pytest.raises(pinnbo.ProblemError, match="unknown name"):
        pinnbo.Problem.from_space({"x": (0, 1)}, constraints={"c": "x + y <= 1"})


def test_a_told_standard_error_weighs_the_value(tmp_path):
    """Ax's `(mean, sem)`: a value told with a large standard error hardly moves the model;
    with several objectives `sem` is shaped as `y`; a misshapen one is refused."""
    wave = "var x in [0, 1]\nfield f(x)\nminimize f\nbudget 12, init 8\n"
    with pinnbo.Optimizer(pinnbo.Problem.from_str(wave), method="gp-ei", out=tmp_path / "one") as opt:
        for trial in opt.ask_trials(8):
            opt.tell(id=trial["id"], y=math.sin(2 * trial["params"]["x"] + 0.3))
        opt.tell([0.55], 5.0, sem=100.0)
        assert abs(opt.predict([[0.55]])["mean"][0] - math.sin(1.4)) < 0.02
        sem = opt.history["sem"]
        assert sem[-1] == 100.0 and np.isnan(sem[:-1]).all()
        assert (tmp_path / "one" / "history.csv").read_text().splitlines()[0].count(",sem,") == 1
    two = "var x in [0, 1]\nfield f(x)\nfield g(x)\nminimize cost: f\nminimize mass: g\nbudget 6\n"
    with pinnbo.Optimizer(pinnbo.Problem.from_str(two), method="gp-ei", out=tmp_path / "two") as opt:
        (x,) = opt.ask()
        opt.tell(x, {"cost": 1.0, "mass": 2.0}, sem={"cost": 0.1, "mass": 0.2})
        assert opt.history["sems"].tolist() == [[0.1, 0.2]]
        with pytest.raises(ValueError, match="sem has no value for the objective `mass`"):
            opt.tell([0.5], {"cost": 1.0, "mass": 2.0}, sem={"cost": 0.1})
        with pytest.raises(pinnbo.RunError, match="must be finite and at least 0, not -1"):
            opt.tell([0.5], {"cost": 1.0, "mass": 2.0}, sem=[0.1, -1.0])


def test_a_problem_without_an_oracle_is_measured_by_the_caller(tmp_path, pinnbo_bin):
    problem = pinnbo.Problem.from_str("var x in [0, 1]\nfield f(x)\nminimize f\nbudget 6\n")
    opt = pinnbo.Optimizer(problem, out=tmp_path / "lab", method="gp-ei")
    (x,) = opt.ask()
    opt.tell(x, 0.5)
    opt.close()
    assert "oracle external" in (tmp_path / "lab" / "journal.pde").read_text()
    asked = run_cli(pinnbo_bin, "ask", "lab", cwd=tmp_path)  # the command line continues it
    assert asked.returncode == 0, asked.stderr
    with pytest.raises(pinnbo.ProblemError, match="unknown name `y`"):
        pinnbo.Problem.from_str("var x in [0, 1]\nfield f(x)\nminimize f + y\n")


def test_a_run_where_every_evaluation_failed_raises(tmp_path):
    with pytest.raises(pinnbo.RunError, match="every one of the 5 evaluations failed"):
        pinnbo.minimize(lambda x: float("nan"), [(0, 1)], budget=5, out=tmp_path / "run")


# Callables as oracles ------------------------------------------------------------------


def test_a_run_started_from_text_resumes_from_the_command_line(tmp_path, pinnbo_bin):
    """Issue 53, item 16: `solve --resume` reads the text the run keeps when the run did not
    start from a file."""
    with pinnbo.Optimizer(pinnbo.Problem.from_str(QUADRATIC), out=tmp_path / "run", budget=5) as opt:
        opt.run()
    resumed = run_cli(pinnbo_bin, "solve", "--resume", "run", "--budget", "7", "--quiet", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert len(journal_records(tmp_path / "run")) == 7


def test_a_command_oracle_without_allow_exec_says_how_to_run_it(tmp_path):
    """Issue 53, item 16: not "measured outside pinnbo", but what to pass."""
    text = 'var x in [0, 1]\nminimize x\noracle command "echo {x}"\nbudget 4, init 2\n'
    problem = pinnbo.Problem.from_str(text, name="cmd.pde")
    with pytest.raises(pinnbo.RunError, match="pass allow_exec=True"):
        problem.solve(out=tmp_path / "run")
    assert problem.solve(out=tmp_path / "ran", allow_exec=True).best["objective"] >= 0


def test_a_callable_giving_the_wrong_number_of_constraints_fails_those_evaluations(tmp_path):
    """Checked as commands and `tell` are (issue 53, item 1): the evaluation fails with the
    reason, nothing misshapen is journaled, and the run can be resumed."""
    text = "var x in [0, 1]\nfield c(x)\nminimize x\nsubject to g: c <= 0\nbudget 4, init 2\nmethod gp-ei\n"
    problem = pinnbo.Problem.from_str(text, name="shape.pde")
    with pytest.raises(pinnbo.RunError, match=r"gave 2 constraint value\(s\); the problem has 1"):
        problem.solve(lambda p: (float(p[0]), [0.0, -1.0]), out=tmp_path / "run")
    records = [json.loads(l) for l in open(tmp_path / "run" / "journal.jsonl")][1:]
    assert records and all(r.get("observed") is None and "constraint value" in r["failure"] for r in records)


def test_minimize_with_a_callable_journals_its_failures(tmp_path):
    calls = []

    def f(x):
        calls.append(np.array(x))
        if len(calls) == 3:
            raise ValueError("the rig overheated")
        if len(calls) == 5:
            return float("nan")
        return float(((x - np.array([0.2, -0.4])) ** 2).sum())

    opt = pinnbo.minimize(f, [(-1, 1), (-1, 1)], budget=14, out=tmp_path / "run")
    history = opt.history
    assert len(opt) == 14 and len(calls) == 14
    assert history["failure"][2] == "the oracle raised ValueError: the rig overheated"
    assert history["failure"][4] == "not a finite value: the objective is NaN"
    assert math.isnan(history["objective"][2]) and math.isnan(history["objective"][4])
    ok = [i for i in range(14) if i not in (2, 4)]
    expected = ((history["x"][ok] - [0.2, -0.4]) ** 2).sum(axis=1)
    np.testing.assert_array_equal(history["objective"][ok], expected)
    assert opt.best["objective"] == expected.min()


def test_a_run_reports_its_convergence_and_stop_ends_it(tmp_path):
    f = lambda x: float(((x - 0.3) ** 2).sum())
    opt = pinnbo.minimize(f, [(0, 1)], budget=12, out=tmp_path / "run", method="gp-ei")
    c = opt.convergence
    assert c is not None and c["threshold"] == 1e-3 and c["stopped_at"] is None
    assert c["expected_improvement_relative"] >= 0
    text = "var x in [0, 1]\nfield f(x)\nminimize f\noracle external\nbudget 30\n" \
        "method gp-ei { stop 0.5 }\n"
    stopped = pinnbo.Problem.from_str(text, name="stop.pde").solve(f, out=tmp_path / "stop")
    c = stopped.convergence
    assert c["stopped_at"] == len(stopped) + 1 and len(stopped) < 30
    assert c["expected_improvement_relative"] < 0.5


def test_a_runs_fitted_params_are_exposed_as_summary_json_has_them(tmp_path):
    text = "var x in [0, 3]\nparam k in [0.5, 8] log\nfield u(x)\n" \
        "pde d(u, x, 2) + k^2*u = 0.3*k^2*x\nminimize u\noracle external\n" \
        "budget 8, init 6 sobol\nmethod physics-gp { residual_points 64 }\n"
    rod = lambda x: float(math.cos(2.5 * x[0]) + 0.3 * x[0])
    opt = pinnbo.Problem.from_str(text, name="rod.pde").solve(rod, out=tmp_path / "rod")
    k = opt.parameters["k"]
    assert abs(k["value"] - 2.5) < 0.5 and k["std"] > 0
    summary = json.loads((tmp_path / "rod" / "summary.json").read_text())
    assert summary["parameters"] == opt.parameters
    checks = opt.pde_checks
    assert checks == summary["pde_checks"] and checks["steps"] == 2
    assert checks["kept"] + sum(checks["dropped_by"].values()) == 2
    gp_ei = pinnbo.minimize(rod, [(0, 3)], budget=8, out=tmp_path / "ei", method="gp-ei")
    assert gp_ei.pde_checks is None


def test_a_callable_may_return_constraints(tmp_path):
    text = "var x in [-1, 1], y in [-1, 1]\nfield f(x, y)\nfield c(x, y)\nminimize f\n" \
        "subject to disc: c <= 0\noracle external\nbudget 10, init 5 sobol\nmethod gp-ei\n"
    problem = pinnbo.Problem.from_str(text, name="disc.pde")
    assert problem.constraints == ["disc"]
    opt = problem.solve(
        lambda p: {"objective": float(p[0] + p[1]), "constraints": [float(p @ p - 0.5)]},
        out=tmp_path / "run",
    )
    history = opt.history
    np.testing.assert_allclose(history["constraints"][:, 0], (history["x"] ** 2).sum(axis=1) - 0.5)
    best = opt.best
    assert best is not None and best["constraints"][0] <= 0


# Variables and objectives ---------------------------------------------------------------


def test_a_categorical_point_is_told_and_reported_by_name(tmp_path):
    text = "var t in [0, 3], wood in {oak, pine}\nminimize (t - 1)^2 + 2*(wood == oak)\n" \
        "oracle external\nbudget 6, init 2\n"
    opt = pinnbo.Optimizer(pinnbo.Problem.from_str(text, name="wood.pde"), out=tmp_path / "w")
    x = opt.ask()[0]
    level = ["oak", "pine"][int(x[1])]
    opt.tell({"t": float(x[0]), "wood": level}, 1.5)
    assert len(opt.pending) == 0, "the point told by name is the one asked"
    opt.tell({"t": 1.0, "wood": "pine"}, 0.0)
    assert opt.best["at"] == {"t": 1.0, "wood": "pine"}
    with pytest.raises(ValueError, match="x: `brass` is not a level of `wood`; its levels are oak, pine"):
        opt.tell({"t": 1.0, "wood": "brass"}, 0.0)
    with pytest.raises(ValueError, match="x: no value for `wood`"):
        opt.tell({"t": 1.0}, 0.0)


def test_several_objectives_give_a_pareto_set(tmp_path):
    text = "var x in [0, 1]\nminimize cost: 0\nmaximize gain: 0\noracle external\n" \
        "budget 8, init 4\n"
    problem = pinnbo.Problem.from_str(text, name="two.pde")
    assert (problem.sense, problem.senses) == ("mixed", ["minimize", "maximize"])
    opt = problem.solve(lambda p: {"cost": float(p[0]), "gain": float(p[0] ** 0.5)}, out=tmp_path / "two")
    front = opt.pareto
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert front == summary["pareto"] and opt.best is None
    # Every evaluation trades one for the other: each is on the front.
    assert len(front["points"]) == 8
    np.testing.assert_allclose(opt.history["objectives"][:, 1], opt.history["x"][:, 0] ** 0.5)
    told = pinnbo.Optimizer(problem, out=tmp_path / "told")
    told.tell([0.5], {"cost": 0.5, "gain": 2.0})
    told.tell([0.7], [0.1, 3.0])
    assert [p["objectives"] for p in told.pareto["points"]] == [{"cost": 0.1, "gain": 3.0}]
    with pytest.raises(ValueError, match="y has no value for the objective `gain`"):
        told.tell([0.2], {"cost": 1.0})
    with pytest.raises(ValueError, match="y names `gian`, which is not an objective"):
        told.tell([0.2], {"cost": 1.0, "gain": 2.0, "gian": 2.0})


def test_a_run_as_a_dataframe_names_its_columns():
    pandas = pytest.importorskip("pandas")
    text = "var t in [0, 3], wood in {oak, pine}, n in 1..4\nminimize (t - 1)^2 + n + 2*(wood == oak)\n" \
        "subject to cap: t - 2.5 <= 0\nbudget 6, init 3\n"
    opt = pinnbo.Problem.from_str(text, name="wood.pde").solve(out=None)
    frame = opt.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["id", "phase", "t", "wood", "n", "objective", "cap", "failure"]
    assert len(frame) == 6 and set(frame["wood"]) <= {"oak", "pine"}
    assert frame["n"].dtype.kind == "i"
    np.testing.assert_allclose(frame["objective"], opt.history["objective"])


def test_a_temporary_run_folder_is_removed_on_close_unless_kept():
    text = "var x in [0, 1]\nminimize (x - 0.3)^2\nbudget 4, init 2\n"
    problem = pinnbo.Problem.from_str(text, name="tmp.pde")
    opt = problem.solve()
    folder = Path(opt.out)
    assert (folder / "journal.jsonl").exists()
    best = opt.best
    opt.close()
    assert not folder.exists()
    assert opt.best["objective"] == best["objective"], "what the run found stays readable"
    kept = problem.solve(keep=True)
    kept.close()
    assert (Path(kept.out) / "journal.jsonl").exists()
    shutil.rmtree(kept.out)
    with pinnbo.Optimizer(problem, out=None) as opt:
        folder = Path(opt.out)
    assert not folder.exists()


def test_each_evaluation_is_logged_and_handed_to_the_callback(tmp_path, caplog):
    text = "var x in [0, 1]\nminimize (x - 0.3)^2\nbudget 5, init 2\n"
    problem = pinnbo.Problem.from_str(text, name="log.pde")
    seen = []
    with caplog.at_level("INFO", logger="pinnbo"):
        opt = problem.solve(out=tmp_path / "run", callback=seen.append)
    assert [s["evaluation"] for s in seen] == [1, 2, 3, 4, 5]
    assert seen[-1]["budget"] == 5 and seen[0]["phase"] == "init"
    assert seen[-1]["best"] == opt.best["objective"]
    assert set(seen[2]["at"]) == {"x"}
    lines = [r.getMessage() for r in caplog.records if r.name == "pinnbo"]
    assert len(lines) == 5 and lines[0].startswith("evaluation 1 of 5 (init): objective ")

    def stop(info):
        if info["evaluation"] == 3:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        problem.solve(out=tmp_path / "stopped", callback=stop)
    assert len(journal_records(tmp_path / "stopped")) == 3


def test_trials_are_asked_with_ids_and_names_and_told_by_id(tmp_path):
    text = "var t in [0, 3], wood in {oak, pine}, n in 1..4\nminimize (t - 1)^2 + n\n" \
        "oracle external\nbudget 6, init 2\n"
    opt = pinnbo.Optimizer(pinnbo.Problem.from_str(text, name="trials.pde"), out=tmp_path / "t")
    trials = opt.ask_trials(2)
    assert [t["id"] for t in trials] == [0, 1]
    first = trials[0]["params"]
    assert set(first) == {"t", "wood", "n"} and first["wood"] in ("oak", "pine")
    assert isinstance(first["n"], int)
    opt.tell(id=trials[0]["id"], y=1.5)
    opt.tell(id=trials[1]["id"], failed="the sample cracked")
    assert len(opt.pending) == 0
    assert opt.history["failure"][1] == "the sample cracked"
    with pytest.raises(ValueError, match="tell takes x \\(a point\\) or id"):
        opt.tell(y=1.0)
    with pytest.raises(pinnbo.RunError):
        opt.tell(id=99, y=1.0)
    with pytest.raises(ValueError, match="id must be a whole number of at least 0, not -1"):
        opt.tell(id=-1, y=1.0)
    with pytest.raises(TypeError, match="id must be an integer, not True"):
        opt.tell(id=True, y=1.0)


def test_plot_writes_the_pictures_solve_draws(tmp_path):
    text = "var x in [0, 1]\nminimize (x - 0.3)^2\nbudget 6, init 3\n"
    opt = pinnbo.Problem.from_str(text, name="plot.pde").solve(out=tmp_path / "p")
    drawn = opt.plot()
    assert sorted(p.name for p in drawn) == ["convergence.png", "evaluations.png", "surrogate.png"]
    assert all(p.stat().st_size > 1000 for p in drawn)


# Resume ---------------------------------------------------------------------------------


def test_a_run_resumes_from_its_folder_with_its_pending_points(tmp_path, pinnbo_bin):
    problem = pinnbo.Problem.from_str(QUADRATIC)
    opt = pinnbo.Optimizer(problem, out=tmp_path / "run")
    asked = opt.ask(3)
    opt.tell(asked[:2], [1.0, 2.0])
    del opt  # the journal's lock goes with it
    again = pinnbo.Optimizer.resume(tmp_path / "run", budget=11)
    np.testing.assert_array_equal(again.pending, asked[2:])
    assert (len(again), again.budget) == (2, 11)
    again.tell(asked[2], 3.0)
    del again
    # The command line continues the same folder.
    listed = run_cli(pinnbo_bin, "ask", "run", "-n", "2", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["3", "4"]
    with pytest.raises(pinnbo.RunError, match="already holds a run"):
        pinnbo.Optimizer(problem, out=tmp_path / "run")


# Ctrl-C ---------------------------------------------------------------------------------


def test_ctrl_c_in_the_oracle_stops_the_run_cleanly_and_it_resumes(tmp_path):
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return float(((x - 0.5) ** 2).sum())

    problem = pinnbo.Problem.from_str(QUADRATIC)
    with pytest.raises(KeyboardInterrupt):
        problem.solve(f, out=tmp_path / "run")
    records = journal_records(tmp_path / "run")
    assert len(records) == 6 and "KeyboardInterrupt" in records[5]["failure"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["evaluations"] == 6
    resumed = pinnbo.Optimizer.resume(tmp_path / "run", oracle=lambda x: float(((x - 0.5) ** 2).sum()))
    resumed.run()
    assert len(resumed) == 9


def test_the_gil_is_released_while_a_method_searches(tmp_path):
    """Another Python thread runs while `ask` trains a network."""
    import threading

    problem = pinnbo.Problem.from_str(QUADRATIC)
    opt = pinnbo.Optimizer(problem, method="neural-bo", out=tmp_path / "run", width=400, epochs=1000)
    design = opt.ask(4)
    opt.tell(design, [1.0, 2.0, 3.0, 4.0])
    ticks, done = [0], threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    before = ticks[0]
    opt.ask()
    during = ticks[0] - before
    done.set()
    counter.join()
    assert during > 1000, f"the other thread advanced {during} times during ask"
