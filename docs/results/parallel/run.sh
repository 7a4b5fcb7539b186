#!/usr/bin/env bash
# Regret of q = 1, 4, 8 evaluations in flight (`pinnbo solve --parallel q`) on closed-form
# problems measured through a slow command (each evaluation sleeps SLEEP seconds), so that
# both equal numbers of evaluations and equal wall-clock can be compared.
#   run.sh PINNBO OUT [SEEDS] [SLEEP] [BUDGET]
# Writes OUT/<problem>/q<q>/seed<s>/ (the run) and OUT/<problem>/q<q>/seed<s>.log (one
# "end-time value" line per evaluation); reduce with reduce.py.
set -euo pipefail
pinnbo=$(realpath "$1") out=$2 seeds=${3:-10} sleep=${4:-0.5} budget=${5:-40}
here=$(dirname "$(realpath "$0")")
mkdir -p "$out"
out=$(realpath "$out")
for problem in dropwave levy-10; do
  source="$here/../../../problems/$problem.pde"
  case $problem in dropwave) d=2 ;; levy-10) d=10 ;; esac
  args=$(seq -s ' ' 1 $d | sed -E 's/([0-9]+)/{x[\1]}/g')
  dir="$out/$problem"
  mkdir -p "$dir"
  # The closed form, measured by a program: no synthetic noise, the file's bounds.
  grep -v '^noise\|^method\|^budget' "$source" > "$dir/closed.pde"
  cat > "$dir/measure.sh" <<SH
#!/bin/sh
# Measures $problem at the point given, slowly; logs the end time and the value.
point=\$(echo "\$@" | tr ' ' ',')
value=\$("$pinnbo" eval "$dir/closed.pde" --at "x=[\$point]" | awk '\$1 == "objective" { print \$2 }')
sleep $sleep
echo "\$(date +%s.%N) \$value" >> "\$PINNBO_LOG"
echo "\$value"
SH
  chmod +x "$dir/measure.sh"
  { grep -v '^noise\|^method\|^budget\|^field\|^minimize\|^ *[+]\|^fn\|^pde' "$source"
    echo "field f(x)"
    echo "minimize f"
    echo "oracle command \"$dir/measure.sh $args\""
    echo "budget $budget, init 10 sobol"
    echo "method gp-ei"
  } > "$dir/slow.pde"
  for q in 1 4 8; do
    mkdir -p "$dir/q$q"
    for seed in $(seq 0 $((seeds - 1))); do
      run="$dir/q$q/seed$seed"
      [ -f "$run/summary.json" ] && continue
      rm -rf "$run" "$run.log"
      date +%s.%N > "$run.start"
      PINNBO_LOG="$run.log" "$pinnbo" solve "$dir/slow.pde" --allow-exec --parallel $q \
        --seed $seed --out "$run" --quiet
    done
  done
done
