"""numba's tuning of the host code: chosen only on the listed processors, never over the user's choice."""

import os
import subprocess
import sys

from gpukernels import cpu_target


def test_choose_sets_the_tuning_only_on_listed_hosts(monkeypatch):
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    monkeypatch.delitem(sys.modules, "numba", raising=False)    # as before numba is imported
    assert cpu_target.choose("znver4") is None
    assert "NUMBA_CPU_NAME" not in os.environ
    assert cpu_target.choose("emeraldrapids") == cpu_target.TUNING
    assert os.environ["NUMBA_CPU_NAME"] == cpu_target.TUNING
    monkeypatch.setattr(cpu_target, "chosen", None)


def test_choose_leaves_the_users_setting_alone(monkeypatch):
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    assert cpu_target.choose("emeraldrapids") is None
    monkeypatch.delenv("NUMBA_CPU_NAME")
    monkeypatch.setenv("NUMBA_CPU_FEATURES", "")
    assert cpu_target.choose("emeraldrapids") is None


def test_choose_after_numba_is_imported_does_nothing(monkeypatch):
    import numba  # noqa: F401
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    assert cpu_target.choose("emeraldrapids") is None


def test_package_import_runs_the_choice_before_numba():
    """In a fresh process on a listed host, importing gpukernels leaves numba configured with the tuning."""
    code = ("import llvmlite.binding as llvm; llvm.get_host_cpu_name = lambda: 'emeraldrapids'; "
            "import gpukernels, numba.core.config as c; print(c.CPU_NAME)")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == cpu_target.TUNING
