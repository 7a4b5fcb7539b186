#!/usr/bin/env bash
# Runs every `sh` block of docs/guide.md, as written, in a scratch copy of the examples (so
# the runs it writes stay out of the repository). Needs `pinnbo` and a python3 with the
# package installed on PATH (tests/all.sh puts them there).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
scratch=$(mktemp -d)
cp -r "$repo/examples" "$scratch/examples"
awk '/^```sh$/ { inside = 1; next } /^```$/ { inside = 0; next } inside' "$repo/docs/guide.md" \
  > "$scratch/guide-commands.sh"
cd "$scratch"
echo "running $(grep -c . guide-commands.sh) commands of docs/guide.md in $scratch"
bash -euo pipefail -x guide-commands.sh
test -s runs/heat-sink/summary.json
test -s runs/heat-sink-python/summary.json
test -s runs/heat-sink-parallel/summary.json
head -1 runs/heated-rod/history.csv | grep -q 'T@0.1,T@0.3,T@0.5,T@0.7,T@0.9'
rm -rf "$scratch"
