"""``gpu.urgent_priority``: the relay's walks back above the other urgent streams, where the device has the levels."""

import pytest

from gpukernels import gpu


def test_off_every_urgent_stream_gets_the_greatest(monkeypatch):
    monkeypatch.setattr(gpu, "RELAY_WALK_FIRST", False)
    assert gpu.urgent_priority(0) == gpu.urgent_priority(0, top=True) == gpu._URGENT


def test_on_the_walks_back_get_the_greatest_and_the_rest_one_below(monkeypatch):
    monkeypatch.setattr(gpu, "RELAY_WALK_FIRST", True)
    monkeypatch.setattr(gpu, "greatest_priority", {0: -5, 1: -2}.get)
    assert gpu.urgent_priority(0, top=True) == -5
    assert gpu.urgent_priority(0) == -4
    # above the executors' -1 (gapped.EXEC_PRIORITY) either way
    from gpukernels.gpu import gapped
    assert gpu.urgent_priority(0) < gapped.EXEC_PRIORITY
    # too few levels to keep the executors below both: the greatest for all
    assert gpu.urgent_priority(1) == gpu.urgent_priority(1, top=True) == gpu._URGENT


@pytest.mark.gpu
def test_the_device_is_asked_its_greatest_priority(monkeypatch):
    """CuPy lacks cudaDeviceGetStreamPriorityRange: a clamped stream answers instead (Hopper: -5)."""
    greatest = gpu.greatest_priority(0)
    assert greatest < 0
    monkeypatch.setattr(gpu, "RELAY_WALK_FIRST", True)
    with gpu.own_stream(0, top=True) as stream:
        import cupy
        assert cupy.cuda.runtime.streamGetPriority(stream.ptr) == max(gpu.urgent_priority(0, top=True), greatest)
