"""pinnbo's methods on COCO's BBOB suite: 24 noiseless functions on [-5, 5]^d.

Each (method, dimension, function, instance) is one run of ``pinnbo.minimize`` with a budget
of ``--budget-per-dim`` times the dimension (20 in the NeuralBO paper) and an initial Sobol
design of ``--init-per-dim`` times the dimension, seeded by the instance, so every method of
an instance starts from the same design. Every evaluation goes through COCO's observer
(``DIR/coco/<label>-d<d>/``, for ``python -m cocopp``) and into ``DIR/runs.csv`` (one row per
evaluation: its value and its precision f - f_opt, f_opt from ``cocoex.BareProblem``), which
``summary.py`` reads; each run's journal is kept under ``DIR/journals/``. Rerunning skips
finished runs.

    python benches/bbob/run.py --methods gp-ei,neural-bo --dims 2 --instances 1-3 --out bbob

A method may carry settings, ``label=method:key=value;key=value`` (``paper=neural-bo:width=500;
depth=1;lr=0.001``). Needs ``pinnbo`` (``pip install ./crates/pinnbo-py``) and
``coco-experiment`` (``pip install coco-experiment``; ``cocopp`` to post-process).
"""

import argparse
import csv
import os
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed

FIELDS = ["label", "method", "dim", "function", "instance", "evaluation", "x", "f", "precision"]


def parse_range(text):
    """``1-3,7`` → [1, 2, 3, 7]."""
    out = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out


def parse_method(text):
    """``label=method:key=value;key=value``, or a bare method name."""
    label, _, rest = text.partition("=")
    if not rest:
        return label, label, {}
    method, _, settings = rest.partition(":")
    parsed = {}
    for item in filter(None, settings.split(";")):
        key, _, value = item.partition("=")
        parsed[key] = number(value)
    return label, method, parsed


def number(value):
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def finished(path):
    """The (label, dim, function, instance) runs already in ``runs.csv``."""
    if not os.path.exists(path):
        return set()
    with open(path, newline="") as f:
        return {(r["label"], int(r["dim"]), int(r["function"]), int(r["instance"])) for r in csv.DictReader(f)}


def run_group(job):
    """Every instance of one (method, dimension, function) under one COCO observer (writing
    ``DIR/exdata/<label>-d<d>-f<fn>/``, moved into ``DIR/coco/<label>-d<d>/`` by ``merge``);
    returns the rows of the runs not yet in ``runs.csv``."""
    import cocoex
    import pinnbo

    label, method, settings, dim, fn, instances, args, done = job
    todo = [inst for inst in instances if (label, dim, fn, inst) not in done]
    if not todo:
        return []
    os.chdir(args.out)  # COCO writes under ./exdata/
    observer = cocoex.Observer("bbob", f"result_folder: {part(label, dim, fn)} algorithm_name: {label}")
    suite = cocoex.Suite("bbob", "", f"dimensions:{dim}")
    rows = []
    for inst in todo:
        problem = suite.get_problem_by_function_dimension_instance(fn, dim, inst)
        problem.observe_with(observer)
        f_opt = cocoex.BareProblem("bbob", fn, dim, inst).best_value()
        values = []

        def oracle(x):
            value = float(problem(x))
            values.append((list(map(float, x)), value))
            return value

        bounds = list(zip(problem.lower_bounds, problem.upper_bounds))
        # Each run's journal (the methods' diagnostics: training loss, fitted length scales)
        # is kept; a folder left by an interrupted run is started again.
        journal = os.path.join("journals", f"{label}-d{dim}", f"f{fn}-i{inst}")
        shutil.rmtree(journal, ignore_errors=True)
        os.makedirs(os.path.dirname(journal), exist_ok=True)
        with pinnbo.minimize(
            oracle,
            bounds,
            budget=args.budget_per_dim * dim,
            init=args.init_per_dim * dim,
            method=method,
            seed=inst,
            out=journal,
            **settings,
        ):
            pass
        problem.free()
        rows.extend(run_rows(label, method, dim, fn, inst, values, f_opt))
    return rows


def run_rows(label, method, dim, fn, inst, values, f_opt):
    """One run's ``runs.csv`` rows from its evaluations ``[(x, f(x))]``; prints its best."""
    print(f"{label} d{dim} f{fn} i{inst}: best precision {min(v for _, v in values) - f_opt:.3g}", flush=True)
    return [
        {
            "label": label,
            "method": method,
            "dim": dim,
            "function": fn,
            "instance": inst,
            "evaluation": k,
            "x": " ".join(f"{v:.17g}" for v in x),
            "f": f"{value:.17g}",
            "precision": f"{value - f_opt:.17g}",
        }
        for k, (x, value) in enumerate(values, start=1)
    ]


def execute(out, worker, jobs, processes):
    """Runs ``worker`` on every job, ``processes`` at once, appending each job's rows to
    ``out/runs.csv`` as it ends (a run cut short keeps every finished job), then merges the
    jobs' COCO files."""
    path = os.path.join(out, "runs.csv")
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        with ProcessPoolExecutor(max_workers=max(1, processes)) as pool:
            for job in as_completed([pool.submit(worker, job) for job in jobs]):
                writer.writerows(job.result())
                f.flush()
    merge(out)


def part(label, dim, fn):
    return f"{label}-d{dim}-f{fn}"


def merge(out):
    """Moves each job's COCO files (``exdata/<label>-d<d>-f<fn>*/``: one function's files)
    into ``coco/<label>-d<d>/``, the folder cocopp reads as one algorithm. A function whose
    files are there already (a run resumed with more instances) keeps its new files in a
    subfolder: cocopp reads folders recursively and joins one function's instances."""
    exdata = os.path.join(out, "exdata")
    if not os.path.isdir(exdata):
        return
    for name in sorted(os.listdir(exdata)):
        source = os.path.join(exdata, name)
        target = os.path.join(out, "coco", name.rsplit("-f", 1)[0])
        files = [os.path.relpath(os.path.join(root, f), source) for root, _, fs in os.walk(source) for f in fs]
        if any(os.path.exists(os.path.join(target, f)) for f in files):
            target = unused(os.path.join(target, name))
        for file in files:
            os.makedirs(os.path.dirname(os.path.join(target, file)), exist_ok=True)
            shutil.move(os.path.join(source, file), os.path.join(target, file))
        shutil.rmtree(source)
    if not os.listdir(exdata):
        os.rmdir(exdata)


def unused(path):
    """``path``, or ``path-2``, ``path-3``, ... : the first that does not exist."""
    k, candidate = 1, path
    while os.path.exists(candidate):
        k += 1
        candidate = f"{path}-{k}"
    return candidate


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--methods", required=True, help="comma-separated: method or label=method:key=value;..")
    parser.add_argument("--dims", default="2", help="e.g. 2,5,10")
    parser.add_argument("--functions", default="1-24")
    parser.add_argument("--instances", default="1-3")
    parser.add_argument("--budget-per-dim", type=int, default=20)
    parser.add_argument("--init-per-dim", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=1, help="(method, dimension, function) jobs at once")
    parser.add_argument("--out", default="bbob")
    args = parser.parse_args()
    # Each job's threads: the machine's share (rayon's and candle's pools read these).
    share = str(max(1, (os.cpu_count() or 1) // max(1, args.jobs)))
    for variable in ("RAYON_NUM_THREADS", "CANDLE_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(variable, share)
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "runs.csv")
    done = finished(path)
    functions, instances = parse_range(args.functions), parse_range(args.instances)
    methods = [parse_method(m) for m in args.methods.split(",")]
    # One job per (method, dimension, function): each writes its own COCO files, merged at
    # the end into one folder per (method, dimension).
    # Functions in the outer loop: a run cut short has every method on the same functions.
    jobs = [
        (label, method, settings, dim, fn, instances, args, done)
        for dim in parse_range(args.dims)
        for fn in functions
        for label, method, settings in methods
    ]
    execute(args.out, run_group, jobs, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
