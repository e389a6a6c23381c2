"""Every CUDA source compiles for Hopper (``nvcc -arch=sm_90``) where nvcc is installed (CI)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

CUDA = pathlib.Path(__file__).resolve().parents[1] / "gpukernels" / "cuda"
SOURCES = sorted(CUDA.glob("*.cu"))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("source", SOURCES, ids=[s.name for s in SOURCES])
def test_compiles_for_sm90(source, tmp_path):
    res = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-c", str(source), "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
