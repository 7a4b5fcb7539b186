#!/usr/bin/env bash
# Runs a fixed set of short solves that between them take every method and the settings that
# change its path, and writes their journals without wall-clock fields: two binaries behave
# the same when their fingerprints are byte-identical (`diff -r`). Used to check that a
# refactor changes no result (docs/decisions.md, "How a refactor is checked").
#   behaviour_fingerprint.sh PINNBO OUT_DIR
set -euo pipefail
pinnbo=$(realpath "$1") out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name | problem file | method block replacing the file's (empty: the file's own) | budget
cases=(
  "beam|beam.pde||14"
  "beam-ucb|beam.pde|method physics-gp { criterion ucb, beta 2 }|13"
  "beam-ts|beam.pde|method physics-gp { criterion ts }|13"
  "beam-nocheck|beam.pde|method physics-gp { check none, scaling global }|13"
  "beam-prequential|beam.pde|method physics-gp { check prequential }|14"
  "heat2-physics|heat2.pde|method physics-gp|13"
  "dropwave-pinn|dropwave.pde|method pinn-bo { epochs 100, residual_points 64, sampling uniform, init fixed }|12"
  "dropwave-pinn-ntk|dropwave.pde|method pinn-bo { surrogate ntk-gp, epochs 100, residual_points 64 }|12"
  "branin-cbo|branin-constrained.pde||13"
  "branin-ei|branin-constrained.pde|method gp-ei|14"
  "branin-ucb|branin-constrained.pde|method gp-ucb|13"
  "branin-ts|branin-constrained.pde|method gp-ts|13"
  "levy10-nbo|levy-10.pde|method neural-bo { width 50, draw independent, acquisition random }|13"
  "levy10-warm|levy-10.pde|method neural-bo { width 50, start previous, features dynamic, dtype f32 }|13"
  "ackley10-greedy|ackley-10.pde|method neural-greedy { width 100 }|13"
  "ackley10-ei-trust|ackley-10.pde|method gp-ei { region trust, kernel se, prior none, mean average }|14"
  "ackley10-random|ackley-10.pde|method random|13"
  "st10-ei|styblinski-tang-10.pde|method gp-ei|14"
)

run_case() {
  IFS='|' read -r name file block budget <<<"$1"
  local pde="$work/$name.pde"
  if [[ -n $block ]]; then
    grep -v '^method' "$root/problems/$file" >"$pde"
    echo "$block" >>"$pde"
  else
    cp "$root/problems/$file" "$pde"
  fi
  "$pinnbo" solve "$pde" --seed 3 --budget "$budget" --out "$work/$name" --quiet >/dev/null 2>&1 \
    || echo "exit $?" >"$out/$name.exit"
  python3 - "$work/$name/journal.jsonl" "$out/$name.jsonl" <<'EOF'
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items()
                if not (k == "seconds" or k.endswith("_seconds")) and k != "file"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for line in f:
        o.write(json.dumps(strip(json.loads(line)), sort_keys=True) + "\n")
EOF
}
export -f run_case
export pinnbo out work root
printf '%s\n' "${cases[@]}" | xargs -P 2 -I{} bash -c 'run_case "$@"' _ {}
ls "$out" | wc -l
