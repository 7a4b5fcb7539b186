#!/usr/bin/env bash
# Drives a run by ask/tell from a shell loop, evaluating each point with `pinnbo eval` (a
# stand-in for a measurement made elsewhere): the recipe of docs/ask-tell.md.
#   ask_tell_loop.sh PINNBO PROBLEM.pde RUN_DIR
set -euo pipefail
pinnbo=$1 problem=$2 dir=$3
"$pinnbo" ask "$problem" --out "$dir" -n 0
# `ask` fails once the budget is spent, which ends the loop.
while line=$("$pinnbo" ask "$dir" 2>/dev/null); do
  id=${line%%$'\t'*}
  at=${line#*$'\t'}
  value=$("$pinnbo" eval "$problem" --at "$at" | awk '$1 == "objective" { print $2 }')
  "$pinnbo" tell "$dir" --id "$id" --objective "$value"
done
