#!/bin/sh
# A command oracle's wrapper that submits one evaluation as a Slurm batch job and waits for
# it (docs/ask-tell.md "Clusters"): `oracle command "./submit.sh ./simulate {x} {y}"`.
# The job's standard output is the evaluation's output; a failed job fails the evaluation
# with its output as the reason; a timeout or Ctrl-C (SIGTERM to this script) cancels the job.
name="pinnbo-$$"
out=$(mktemp "${TMPDIR:-/tmp}/pinnbo-job.XXXXXX")
trap 'scancel --name="$name" 2>/dev/null; rm -f "$out"; exit 143' TERM INT
sbatch --wait --quiet --job-name="$name" --output="$out" --wrap "$*" &
wait $!
status=$?
if [ "$status" -ne 0 ]; then
  cat "$out" >&2
  rm -f "$out"
  exit "$status"
fi
cat "$out"
rm -f "$out"
