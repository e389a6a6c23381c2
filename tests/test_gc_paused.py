"""``engine.gc_paused``: the cyclic collector off while pairs run on the GPU, on again after the last one."""

import gc
import threading

from gpukernels import engine


def test_collector_off_inside_and_back_on_after():
    assert gc.isenabled()
    with engine.gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_blocks_turn_it_on_after_the_last():
    """Two pairs on two threads: the first to end leaves the collector off for the other."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with engine.gc_paused():
            first_in.set()
            second_in.wait()
        first_out.set()

    def second():
        first_in.wait()
        with engine.gc_paused():
            second_in.set()
            first_out.wait()
            seen["during"] = gc.isenabled()
        seen["after"] = gc.isenabled()

    threads = [threading.Thread(target=f) for f in (first, second)]
    for x in threads:
        x.start()
    for x in threads:
        x.join()
    assert seen == {"during": False, "after": True}


def test_a_collector_off_before_stays_off():
    gc.disable()
    try:
        with engine.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_error_inside_turns_it_back_on():
    try:
        with engine.gc_paused():
            raise KeyError("x")
    except KeyError:
        pass
    assert gc.isenabled()
