#!/usr/bin/env bash
# Builds the Python package as one abi3 wheel (CPython 3.9 and later, this platform) into
# dist/ (or the folder given as the first argument), with maturin from a throwaway environment outside the repository. The wheel builds
# in the workspace's one cargo profile (crates/pinnbo-py/pyproject.toml), so after the
# README's main command it reuses that build. Install it anywhere with
# `pip install dist/pinnbo-*.whl` (seconds: nothing is compiled).
set -euo pipefail
out=$(realpath -m "${1:-dist}")
cd "$(dirname "$0")/../.."
tools=$(mktemp -d)
python3 -m venv "$tools/venv"
"$tools/venv/bin/pip" install --quiet maturin
"$tools/venv/bin/maturin" build --manifest-path crates/pinnbo-py/Cargo.toml --out "$out"
rm -rf "$tools"
ls -l "$out"/pinnbo-*.whl
