"""Shared by the Python package's tests: the repository, the `pinnbo` binary and a problem."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

QUADRATIC = """problem "quad"
var x in [0, 1], y in [0, 2]
minimize (x - 0.3)^2 + (y - 1.2)^2 + 0.1*sin(7*x)
budget 9, init 4 sobol
method gp-ei
"""


@pytest.fixture(scope="session")
def pinnbo_bin() -> Path:
    """The command-line tool, to compare with (PINNBO_BIN, else the workspace's build)."""
    given = os.environ.get("PINNBO_BIN")
    candidates = [Path(given)] if given else [REPO / "target/debug/pinnbo", REPO / "target/release/pinnbo"]
    for c in candidates:
        if c.is_file():
            return c
    pytest.fail(f"no pinnbo binary at {', '.join(map(str, candidates))}: build it with cargo first")


def run_cli(pinnbo_bin: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(pinnbo_bin), *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}
    )
