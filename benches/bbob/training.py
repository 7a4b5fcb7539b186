"""Each step's training report from the journals ``run.py`` keeps: does a neural method's
fit converge on 4 to 200 points? One row per step with the training loss (the fit's final
mean squared error on the standardized values, λ's pull included), its epochs and seconds;
then, per label, the median final loss by the number of points trained on.

    python benches/bbob/training.py bbob/pinnbo/journals > training.csv
"""

import csv
import json
import os
import statistics
import sys
from collections import defaultdict


def main(root):
    writer = csv.writer(sys.stdout)
    writer.writerow(["label", "run", "points", "train_loss", "epochs", "train_seconds"])
    by_size = defaultdict(list)
    for label_dim in sorted(os.listdir(root)):
        for run in sorted(os.listdir(os.path.join(root, label_dim))):
            path = os.path.join(root, label_dim, run, "journal.jsonl")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                records = [json.loads(line) for line in f][1:]
            for r in records:
                d = r.get("diagnostics") or {}
                if "train_loss" not in d:
                    continue
                points = r.get("index", 0)
                writer.writerow([label_dim, run, points, d["train_loss"], d.get("epochs"), d.get("train_seconds")])
                by_size[(label_dim, points // 10 * 10)].append(d["train_loss"])
    print("# median training loss by points trained on (tens)", file=sys.stderr)
    for (label, tens), losses in sorted(by_size.items()):
        print(f"# {label} {tens:4d}-{tens + 9:<4d} {statistics.median(losses):.3e} ({len(losses)} fits)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
