"""Shared fixtures and the skip rules for GPU and ../shared tests."""

import os
import pathlib

import pytest

from gpukernels.backend import gpu_available

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = pathlib.Path(os.environ.get("AVA_SHARED_DATA", ROOT.parent / "shared" / "data"))
DATA = ROOT / "tests" / "data"


def pytest_collection_modifyitems(config, items):
    have_gpu = gpu_available()
    have_shared = SHARED.is_dir()
    skip_gpu = pytest.mark.skip(reason="no CUDA GPU visible to CuPy")
    skip_shared = pytest.mark.skip(reason=f"{SHARED} is absent")
    for item in items:
        if "gpu" in item.keywords and not have_gpu:
            item.add_marker(skip_gpu)
        if "shared" in item.keywords and not have_shared:
            item.add_marker(skip_shared)


@pytest.fixture(scope="session")
def shared_data():
    """Path of ../shared/data."""
    return SHARED
