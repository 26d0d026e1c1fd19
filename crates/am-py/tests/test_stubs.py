"""The type stub of the native module matches the module (mypy's stubtest),
and the package type-checks against it."""

from __future__ import annotations

import subprocess
import sys


def test_the_native_module_s_stub_matches_the_module() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "abstractmemory_rs._native"],
        capture_output=True, text=True, check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_package_type_checks_against_its_stub() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "-p", "abstractmemory_rs"],
        capture_output=True, text=True, check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
