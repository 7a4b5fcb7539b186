#!/usr/bin/env bash
# The whole test suite: the Rust workspace, then the Python package (crates/pinnbo-py) built
# in a fresh virtual environment outside the repository, its pytest suite (tests/python) and
# its two examples, every command of docs/guide.md, and the abi3 wheel. README.md's test command; CI runs it
# after formatting and lints.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace

venv=$(mktemp -d)/venv
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet "./crates/pinnbo-py[test]"
PINNBO_BIN="$PWD/target/debug/pinnbo" "$venv/bin/python" -m pytest -q tests/python
"$venv/bin/python" crates/pinnbo-py/examples/ask_tell_loop.py
"$venv/bin/python" crates/pinnbo-py/examples/beam.py --budget 15 --out "$(mktemp -d)/beam"
PATH="$PWD/target/debug:$venv/bin:$PATH" bash tests/scripts/guide.sh

# The wheel script's abi3 wheel installs in a fresh environment and runs.
wheel_dir=$(mktemp -d)
bash crates/pinnbo-py/wheel.sh "$wheel_dir/dist"
python3 -m venv "$wheel_dir/venv"
"$wheel_dir/venv/bin/pip" install --quiet "$wheel_dir"/dist/pinnbo-*.whl
"$wheel_dir/venv/bin/python" -c "import pinnbo; print('wheel:', pinnbo.minimize(lambda x: float(x[0] ** 2), [(-1, 1)], budget=6).best['objective'])"
rm -rf "$wheel_dir"
