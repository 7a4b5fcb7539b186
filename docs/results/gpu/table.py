"""The tables of docs/results/measurements.md ("On a GPU") from scripts/gpu-measure.sh's steps.tsv.

    python3 docs/results/gpu/table.py docs/results/gpu/steps.tsv

Per measurement: the step's wall time, its training and acquisition seconds, the seconds per
Adam step (training / epochs), and, against the CPU's step of the same size and dtype, the
CUDA step's relative difference in final training loss and the largest coordinate difference
of the proposal (both devices start from the same seed).
"""
import json
import re
import sys

rows = {}
for line in open(sys.argv[1]):
    label, _, rest = line.rstrip("\n").partition("\t")
    m = re.search(r": ([0-9.]+) s, peak (\d+) MiB .*?(\{.*\}) proposal (\[.*\])", rest)
    if not m:
        rows[label] = None
        continue
    diag = json.loads(m.group(3))
    rows[label] = dict(
        seconds=float(m.group(1)),
        peak=int(m.group(2)),
        train=diag.get("train_seconds"),
        acq=diag.get("acquisition_seconds", diag.get("information_seconds")),
        epochs=diag.get("epochs"),
        loss=diag.get("train_loss"),
        point=json.loads(m.group(4)),
    )

print("| measurement | step | training | per Adam step | acquisition | CUDA vs CPU: loss, proposal |")
print("|---|---|---|---|---|---|")
for label, r in rows.items():
    if r is None:
        print(f"| {label} | — | — | — | — | no result |")
        continue
    per = r["train"] / r["epochs"] if r["train"] and r["epochs"] else float("nan")
    acq = f"{r['acq']:.3f} s" if r["acq"] is not None else "—"
    versus = ""
    if " cuda" in label:
        twin = rows.get(label.replace(" cuda", " cpu"))
        if twin:
            dloss = abs(r["loss"] - twin["loss"]) / abs(twin["loss"])
            dx = max(abs(a - b) for a, b in zip(r["point"], twin["point"]))
            versus = f"{dloss:.1e}, {dx:.1e}"
    print(f"| {label} | {r['seconds']:.3f} s | {r['train']:.3f} s | {per * 1e3:.1f} ms | {acq} | {versus} |")
