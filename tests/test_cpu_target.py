"""numba's tuning of the host code: chosen only on the listed processors, never over the user's choice."""

import os
import subprocess
import sys

import pytest

from gpukernels import cpu_target


@pytest.fixture
def before_numba(monkeypatch):
    """As before numba is imported, with neither variable set; whatever ``choose`` sets is undone after."""
    for name in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"):
        monkeypatch.setenv(name, "")        # (recorded, so that the test's end restores the variable as it was)
        monkeypatch.delenv(name)
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    monkeypatch.setattr(cpu_target, "chosen", None)
    return monkeypatch


def test_choose_sets_the_tuning_only_on_listed_hosts(before_numba):
    assert cpu_target.choose("znver4") is None
    assert "NUMBA_CPU_NAME" not in os.environ and cpu_target.chosen is None
    assert cpu_target.choose("emeraldrapids") == cpu_target.TUNING
    assert os.environ["NUMBA_CPU_NAME"] == cpu_target.TUNING
    assert cpu_target.chosen == (cpu_target.TUNING, "emeraldrapids")


def test_choose_leaves_the_users_setting_alone(before_numba):
    before_numba.setenv("NUMBA_CPU_NAME", "generic")
    assert cpu_target.choose("emeraldrapids") is None
    assert os.environ["NUMBA_CPU_NAME"] == "generic"
    before_numba.delenv("NUMBA_CPU_NAME")
    before_numba.setenv("NUMBA_CPU_FEATURES", "")
    assert cpu_target.choose("emeraldrapids") is None
    assert "NUMBA_CPU_NAME" not in os.environ


def test_choose_after_numba_is_imported_does_nothing(before_numba):
    import numba
    before_numba.setitem(sys.modules, "numba", numba)
    assert cpu_target.choose("emeraldrapids") is None
    assert "NUMBA_CPU_NAME" not in os.environ


def test_package_import_runs_the_choice_before_numba():
    """In a fresh process on a listed host, importing gpukernels leaves numba configured with the tuning."""
    code = ("import llvmlite.binding as llvm; llvm.get_host_cpu_name = lambda: 'emeraldrapids'; "
            "import gpukernels, numba.core.config as c; print(c.CPU_NAME)")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == cpu_target.TUNING
