"""The settings parser of ``bench/ab_settings.py`` (the A/B itself needs a GPU)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from ab_settings import parse_settings  # noqa: E402


def test_settings_name_module_level_values():
    from gpukernels.cpu import relay
    from gpukernels.gpu import gapped, runner
    got = parse_settings("gapped.WAVE=2048,runner.BANDS=512:2048,relay.CHUNK=1024,engine.SWITCH_S=1e-4")
    assert [(m.__name__, n, v) for m, n, v in got] == [
        (gapped.__name__, "WAVE", 2048), (runner.__name__, "BANDS", (512, 2048)), (relay.__name__, "CHUNK", 1024),
        ("gpukernels.engine", "SWITCH_S", 1e-4)]
    assert parse_settings("") == []


def test_an_unknown_setting_is_an_error():
    with pytest.raises(SystemExit, match="no setting NOPE"):
        parse_settings("gapped.NOPE=1")
    with pytest.raises(SystemExit, match="unknown setting nope.X: its prefix is one of gapped"):
        parse_settings("nope.X=1")


def test_align_threads_is_a_setting_of_the_timed_pairs():
    from ab_settings import _ALIGN
    [(owner, name, value)] = parse_settings("align.threads=12")
    assert (owner, name, value) == (_ALIGN, "threads", 12)
    assert _ALIGN.threads is None      # parsing sets nothing: the A/B applies each setting in turn
    with pytest.raises(SystemExit, match="align has no setting cores"):
        parse_settings("align.cores=2")


def test_ab_modules_loads_an_earlier_module_beside_the_current(tmp_path):
    """bench/ab_modules.py loads another gpu/gapped.py as a module of its own (relative imports in the
    package, compiled apart): here a copy of the current one, run through the kernel emulator on
    tandem repeats, gives the CPU twin's result."""
    import shutil

    import numpy as np
    from ab_modules import load_prev
    from gapped_emulator import EmuRunner
    from gpukernels.cpu import gapped as cpu_gapped
    from gpukernels.gpu import gapped
    from test_gpu_gapped_waves import tandem_inputs

    src = tmp_path / "prev_gapped.py"
    shutil.copy(gapped.__file__, src)
    prev = load_prev(str(src))
    assert prev is not gapped and prev.__name__ == "gpukernels.gpu._ab_prev"
    args = tandem_inputs()
    runner = EmuRunner(args[0], args[1], args[8], args[9], args[10], args[11], args[14], 1 << 30)
    got = prev.extend_anchors(*args, gpu_mem=1 << 30, wave=16, runner=runner)
    ref = cpu_gapped.extend_anchors(*args)
    assert all(np.array_equal(x, y) for x, y in zip(got[:-1], ref[:-1]))


def test_relay_profile_sums_seconds_per_thread_and_lists_sides_longest_first():
    """bench/relay_profile.py's clocks (the profile itself needs a GPU): a wrapped call adds its seconds to
    its thread's row, and the table has one row per thread that relayed a side, the longest first."""
    import threading
    import types

    from relay_profile import Clocks
    clocks = Clocks()
    owner = types.SimpleNamespace(relay_side=lambda n: (0, n, n), step=lambda: None)
    clocks.wrap(owner, "relay_side",
                after=lambda out: clocks.longest.__setitem__(threading.current_thread().name, 2 * out[1]))
    clocks.wrap(owner, "step")

    def side(n):
        owner.step()
        owner.relay_side(n)
    threads = [threading.Thread(target=side, args=(n,), name=f"side{n}") for n in (5, 50)]
    for x in threads:
        x.start()
    for x in threads:
        x.join()
    owner.step()                    # a thread that relayed no side: no row
    rows = clocks.table().splitlines()
    assert rows[0] == "| anti-diagonals | relay_side | step |"
    assert [r.split(" | ")[0] for r in rows[2:]] == ["| 100", "| 10"]


def test_apply_settings_sets_each_one_now(monkeypatch):
    from ab_settings import apply_settings
    from gpukernels import engine
    from gpukernels.gpu import runner
    monkeypatch.setattr(engine, "SWITCH_S", engine.SWITCH_S)      # restored after
    monkeypatch.setattr(runner, "INSPECT_QUOTA", runner.INSPECT_QUOTA)
    apply_settings("engine.SWITCH_S=2e-4,runner.INSPECT_QUOTA=0")
    assert engine.SWITCH_S == 2e-4 and runner.INSPECT_QUOTA == 0
