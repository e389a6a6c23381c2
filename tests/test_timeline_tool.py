"""The clocks of ``bench/timeline.py`` and ``bench/relay_profile.py`` (their runs need a GPU)."""

import os
import sys
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from timeline import Sampler, Timeline, instrument, wave_rows  # noqa: E402


def test_wrapped_calls_are_clocked_only_while_on_and_keep_their_results():
    box = types.SimpleNamespace(relay_side=lambda *a: (7, 2, 3, 40), same_state=lambda: (True, 0))
    timeline = Timeline()
    timeline.wrap(box, "relay_side")
    timeline.wrap(box, "same_state")
    assert box.relay_side() == (7, 2, 3, 40) and timeline.rows == []
    timeline.begin()
    assert box.relay_side() == (7, 2, 3, 40)
    box.same_state()
    box.same_state()
    (row,) = timeline.rows
    assert row[3] == "relay_side" and row[4] == "best_d=5 cells=40" and 0 <= row[0] <= row[1]
    assert list(timeline.summed) == [(row[2], "same_state")]


def test_the_engine_calls_it_names_exist(monkeypatch):
    """Every call the timeline wraps is where it looks for it (a rename would leave it silent)."""
    instrument(Timeline(monkeypatch.setattr))
    from gpukernels.gpu import runner
    assert runner.DeviceRunner.relay_trace.__wrapped__.__name__ == "relay_trace"


def test_the_relay_profile_names_calls_that_exist(monkeypatch):
    """``bench/relay_profile.py`` wraps only calls the engine has (a renamed one stopped it on the device)."""
    import relay_profile
    from gpukernels.gpu import runner
    monkeypatch.setattr(runner.DeviceRunner, "_launch", runner.DeviceRunner._launch)   # restored after
    found = []
    monkeypatch.setattr(relay_profile.Clocks, "wrap",
                        lambda self, owner, name, label=None, after=None: found.append(getattr(owner, name)))
    relay_profile.instrument(relay_profile.Clocks())
    assert len(found) >= 4


def test_wave_rows_give_each_speculation_and_its_rate():
    (line,) = wave_rows("-", [(0, 4096, 9481, 6670, 4.6e9, 0.032, 0.024)])
    assert line.startswith("wave - kind=0 anchors=4096 explored=9481 best=6670 cells=4600.0M inspect=32.0ms")
    assert line.endswith("1.44e+11 cells/s")


def test_the_sampler_sees_a_waiting_thread_as_one_run(capsys):
    """A thread that waits 50 ms in one place is one run of samples, printed under its name."""
    import threading
    import time
    sampler = Sampler(0.001, least=0.01)
    gate = threading.Event()

    def sleeper():
        gate.wait()
        time.sleep(0.05)
    worker = threading.Thread(target=sleeper, name="strand")
    worker.start()
    sampler.begin(time.perf_counter())
    gate.set()
    worker.join()
    sampler.end()
    sampler.print_runs(["strand"])
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("sample")]
    assert float(line.split()[3]) >= 10.0 and line.split()[5] == "strand"


def test_the_device_rows_wrap_kernels_the_runner_has(monkeypatch):
    """``--device`` wraps the runner's own kernel attributes and its launches (a rename would fail there)."""
    import inspect
    from timeline import DeviceRows, instrument_device
    from gpukernels.gpu import runner
    source = inspect.getsource(runner.DeviceRunner.__init__)
    assert all(f"self.{name} = get_kernel(" in source for name in DeviceRows.KERNELS)
    instrument_device(DeviceRows(), monkeypatch.setattr)
    assert runner.DeviceRunner._launch.__name__ == "launched"


def test_print_device_lists_the_long_launches_and_sums_each_threads_kinds(capsys):
    from timeline import print_device
    print_device([(0.010, 0.030, "ava-wave-_0", "inspect n=4096"), (0.031, 0.0312, "ava-wave-_0", "trace"),
                  (0.032, 0.040, "ava-wave-_0", "inspect n=12")])
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[1:4] == ["0.010", "0.030", "20.0"] and out[0].endswith("inspect n=4096")
    assert len([x for x in out if x.startswith("device ")]) == 2
    assert "device-summed ava-wave-_0" in out[2] and out[2].split()[-2] == "28.0"


def test_a_relay_launch_line_counts_the_chunks_that_held_their_blocks():
    """Chunks that died within the warm-up, those that ran to the launch's end, and the median."""
    import numpy as np
    from timeline import chunk_line
    res = np.zeros((4, 13), dtype=np.int64)
    res[:, 3] = [10, 2_000_000, 3_000_000, 50]      # R_CELLS
    res[:, 10] = [300, 36864, 36864, 4096]          # R_DIAGS
    line = chunk_line(0.0625, "ava-relay_3", res, 4096)
    assert "4 chunks, 5.0 M cells, 2 over 1 M" in line
    assert "2 within the warm-up (4096), 2 to the end (36864), median 20480" in line
