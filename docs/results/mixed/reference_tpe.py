"""Optuna's TPE from pinnbo's own initial designs, on the mixed-variable problems of this folder.

For each seed, the initial design's points are read from pinnbo's gp-ei journal of the same
seed (BENCH/<problem>/gp-ei/seed<N>/journal.jsonl) and enqueued, so both methods start from the
very same evaluations; TPE (Optuna's defaults, TPESampler(seed=N)) then proposes the rest of
the budget. Every point is evaluated by `pinnbo eval FILE --at .. --json` (the binary named by
$PINNBO, default target/release/pinnbo), so both see the same function. Writes rows in the
format of `pinnbo bench`'s results.csv (method `optuna-tpe`) to OUT.

    python reference_tpe.py BENCH OUT.csv FILE.pde [FILE.pde ...]
"""
import csv, json, os, subprocess, sys, time
import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
PINNBO = os.environ.get("PINNBO", "target/release/pinnbo")

# Each problem's variables: (name, kind, bounds or levels, log scale).
SPACES = {
    "pipe-wall": [("material", "cat", ["steel", "copper", "aluminium", "titanium"], False),
                  ("t", "float", (1.0, 20.0), False), ("s", "float", (2.0, 30.0), False)],
    "layered-wall": [("n", "int", (1, 12), False), ("d", "float", (0.01, 0.3), False)],
    "coolant-loop": [("fluid", "cat", ["water", "oil", "glycol"], False), ("p", "int", (1, 8), False),
                     ("q", "float", (0.05, 5.0), True)],
}


def header(path):
    """The problem's name, budget, initial design size and optimum, read from the file."""
    name, budget, init, optimum = None, None, None, None
    for line in open(path):
        words = line.replace(",", " ").split()
        if words[:1] == ["problem"]:
            name = line.split('"')[1]
        if words[:1] == ["budget"]:
            budget, init = int(words[1]), int(words[3])
        if words[:1] == ["optimum"]:
            optimum = float(words[1])
    return name, budget, init, optimum


def evaluate(path, at):
    text = ",".join(f"{k}={v}" for k, v in at.items())
    out = subprocess.run([PINNBO, "eval", path, "--at", text, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["objective"]


def initial_design(bench, name, seed, space, init):
    journal = os.path.join(bench, name, "gp-ei", f"seed{seed}", "journal.jsonl")
    points = []
    for line in open(journal):
        record = json.loads(line)
        if record.get("phase") != "init":
            continue
        at = {}
        for (var, kind, bounds, _), v in zip(space, record["x"]):
            at[var] = bounds[int(v)] if kind == "cat" else (int(v) if kind == "int" else v)
        points.append(at)
    assert len(points) == init, (journal, len(points))
    return points


def run(path, bench, seed):
    name, budget, init, optimum = header(path)
    space = SPACES[name]
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
    for at in initial_design(bench, name, seed, space, init):
        study.enqueue_trial(at)
    rows, best, started = [], float("inf"), time.time()

    def objective(trial):
        at = {}
        for var, kind, bounds, log in space:
            if kind == "cat":
                at[var] = trial.suggest_categorical(var, bounds)
            elif kind == "int":
                at[var] = trial.suggest_int(var, *bounds)
            else:
                at[var] = trial.suggest_float(var, *bounds, log=log)
        return evaluate(path, at)

    for evaluation in range(1, budget + 1):
        study.optimize(objective, n_trials=1)
        done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        assert len(done) == evaluation, (evaluation, len(done))
        best = min(best, done[-1].values[0])
        regret = best - optimum
        rows.append([name, "optuna-tpe", seed, evaluation, best, regret, regret, time.time() - started])
    return rows


def main():
    bench, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["problem", "method", "seed", "evaluation", "best_so_far", "regret", "regret_plus_violation", "seconds"])
        for path in files:
            for seed in range(10):
                rows = run(path, bench, seed)
                w.writerows(rows)
                f.flush()
                print(path, seed, rows[-1][5], flush=True)


if __name__ == "__main__":
    main()
