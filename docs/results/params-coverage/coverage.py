"""Issue 51's coverage check of the params' reported standard deviations, read back from a
`pinnbo bench` folder (README.md has the command): for every (problem, seed) the final
estimate of each param against its truth, z = (value - truth) / std (`value`: the profile
posterior's mean where a std is reported), the same for the fit's optimum (`fitted`), the
share within 2 std where the param is reported determined, and how many are reported
undetermined.

    python coverage.py RUNS > coverage.md"""
import json, math, os, sys

TRUTH = {
    # Written for issue 51 (this folder).
    "damped-rod": {"c": 1.0, "k": 2.0},
    "decay-plate": {"r": 1.0},
    "helmholtz-rod": {"k": 3.3},
    "advection-rod": {"D": 0.5, "v": 1.0},
    "reaction-plate": {"a": 3.0},
    # Only b/a (= 3) is determined: both must be reported undetermined.
    "ratio-rod": {"a": None, "b": None},
    # Issue 38's (docs/results/params).
    "reaction-rod": {"k": 2.5},
    "diffusion-plate": {"D": 2.0},
    "wave-plate": {"k": math.sqrt(13)},
    "two-constants": {"c": 1.6, "r": 15.4},
}


def main(runs):
    rows, within, within_fitted, determined, lost = [], 0, 0, 0, 0
    ratio_flagged, ratio_total = 0, 0
    for problem, truths in TRUTH.items():
        folder = os.path.join(runs, problem, "physics-gp")
        if not os.path.isdir(folder):
            continue
        for seed in sorted(os.listdir(folder), key=lambda s: int(s[4:])):
            summary = json.load(open(os.path.join(folder, seed, "summary.json")))
            estimates = summary.get("parameters", {})
            for name, truth in truths.items():
                e = estimates.get(name, {})
                value, std = e.get("value", float("nan")), e.get("std")
                fitted = e.get("fitted", value)
                flags = " ".join(x for x in (e.get("at_bound"), e.get("undetermined")) if x)
                if truth is None:
                    ratio_total += 1
                    ratio_flagged += std is None
                    z = z_fitted = ""
                elif std is None:
                    lost += 1
                    z = z_fitted = "undetermined"
                else:
                    determined += 1
                    within += abs((value - truth) / std) <= 2
                    within_fitted += abs((fitted - truth) / std) <= 2
                    z = f"{(value - truth) / std:+.2f}"
                    z_fitted = f"{(fitted - truth) / std:+.2f}"
                truth_text = "-" if truth is None else f"{truth:.4g}"
                std_text = "null" if std is None else f"{std:.3g}"
                rows.append(f"| {problem} | {seed[4:]} | {name} | {truth_text} | {value:.4g} | "
                            f"{fitted:.4g} | {std_text} | {z} | {z_fitted} | {flags} |")
    print("| problem | seed | param | truth | value | fitted | std | z | z of fitted | flags |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    share = within / determined if determined else float("nan")
    print(f"- Identified params reported with a std: {determined}; within 2 std of the truth: "
          f"{within} ({share:.0%}; the target is at least 80%); the fit's optimum within 2 std: "
          f"{within_fitted} ({within_fitted / max(determined, 1):.0%}).")
    print(f"- Identified params reported undetermined: {lost}.")
    print(f"- ratio-rod's a and b (only b/a identified) reported undetermined: "
          f"{ratio_flagged} of {ratio_total}.")


if __name__ == "__main__":
    main(sys.argv[1])
