"""``gpu.blocking_waits``: a thread's waits asleep within a block, the others' and the rest as before."""

import threading

from gpukernels import gpu


def asleep():
    return getattr(gpu._events, "blocking", False)


def test_blocking_waits_hold_for_the_calling_thread_within_the_block_only():
    seen = []
    with gpu.blocking_waits():
        worker = threading.Thread(target=lambda: seen.append(asleep()))
        worker.start()
        worker.join()
        assert asleep()
        with gpu.blocking_waits(False):
            assert asleep()         # an inner block never wakes an outer one's waits
        assert asleep()
    assert not asleep() and seen == [False]
    with gpu.blocking_waits(False):
        assert not asleep()


def test_the_relays_threads_wait_asleep_by_default():
    from gpukernels.gpu import gapped
    assert gapped.RELAY_BLOCKING_WAITS is True and gpu.BLOCKING_WAITS is False
