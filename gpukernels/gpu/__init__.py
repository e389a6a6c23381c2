"""CuPy launchers of the CUDA kernels in ``cuda/``, one module per stage.

Each module has the same functions, signatures and output values as its
numba twin in ``cpu/``. Shared here: the GPU memory budget that bounds every
batch (the output never depends on it), a small cache of host arrays
already copied to the device, and the stream of a thread that shares the
device with others (the engine aligns both strands at once).
"""

from __future__ import annotations

import contextlib
import functools
import threading
import weakref

#: share of free device memory taken when no budget is given
DEFAULT_SHARE = 0.6

_budget = None
_uploads = {}
_uploads_lock = threading.Lock()


def set_budget(gpu_mem=None):
    """Set the GPU memory budget in bytes for the following stage calls (None: default)."""
    global _budget
    _budget = None if gpu_mem is None else max(int(gpu_mem), 1)


def budget(gpu_mem=None):
    """The memory budget in bytes: ``gpu_mem``, else the one set, else a share of free memory."""
    if gpu_mem is not None:
        return max(int(gpu_mem), 1)
    if _budget is not None:
        return _budget
    import cupy
    free, _ = cupy.cuda.runtime.memGetInfo()
    pool = cupy.get_default_memory_pool()
    return int(DEFAULT_SHARE * (free + pool.free_bytes()))


def to_device(arr, dtype=None):
    """``arr`` on the device; host arrays seen recently are copied only once.

    The cache holds weak references: an entry is used only while the very
    same host array object is alive (the engine never changes arrays it
    passes to a stage).
    """
    import cupy
    import numpy as np
    if isinstance(arr, cupy.ndarray):
        return arr if dtype is None else arr.astype(dtype, copy=False)
    key = id(arr)
    with _uploads_lock:
        hit = _uploads.get(key)
    if hit is not None and hit[0]() is arr and (dtype is None or hit[1].dtype == dtype):
        return hit[1]
    dev = cupy.asarray(np.ascontiguousarray(arr, dtype=dtype))
    try:
        ref = weakref.ref(arr)
    except TypeError:
        return dev
    # another thread's stream may use the copy next: it must be complete
    wait()
    with _uploads_lock:
        if len(_uploads) >= 8:
            _uploads.pop(next(iter(_uploads)))
        _uploads[key] = (ref, dev)
    return dev


#: the host's threads wait for the device asleep, on an event made with ``cudaEventBlockingSync``, instead of
#: spinning on a core (CUDA's default where a process has fewer contexts than cores). At a pair's start the
#: early batch's 16 relay threads wait on a 16-core host, and a thread timing a tiny kernel every
#: millisecond ran only 5-7 times in 20 ms there; but asleep, the E. coli pair took 0.480 s (9 pairs, one
#: more of 0.664 s) against 0.474 s spinning, alternated in one process (thirty-fourth session). Off: the
#: streams' own synchronize
BLOCKING_WAITS = False
_events = threading.local()


@contextlib.contextmanager
def blocking_waits(on=True):
    """The calling thread's :func:`wait` calls asleep (as with :data:`BLOCKING_WAITS`) within the block, where
    ``on`` (an inner block never wakes an outer one's)."""
    before = getattr(_events, "blocking", False)
    _events.blocking = bool(on) or before
    try:
        yield
    finally:
        _events.blocking = before


def wait(stream=None):
    """Wait for the work queued so far on ``stream`` (default: the calling thread's current stream).

    With :data:`BLOCKING_WAITS`, through an event of the calling thread's,
    one per device, made to block (the thread sleeps until the device
    signals); else ``stream.synchronize()``.
    """
    import cupy
    if stream is None:
        stream = cupy.cuda.get_current_stream()
    if not (BLOCKING_WAITS or getattr(_events, "blocking", False)):
        stream.synchronize()
        return
    events = getattr(_events, "by_device", None)
    if events is None:
        events = _events.by_device = {}
    device = cupy.cuda.runtime.getDevice()
    event = events.get(device)
    if event is None:
        event = events[device] = cupy.cuda.Event(block=True, disable_timing=True)
    event.record(stream)
    event.synchronize()


def settle():
    """Wait for the calling thread's stream: call it before reading device values into pageable memory.

    A copy to pageable host memory (``int(x)``, ``cupy.asnumpy``) waits
    for the stream's kernels inside the driver, and while it waits the
    other threads' copies wait too (the two strands run at once, and a
    strand's wave copies stalled for tens of milliseconds behind the
    other's ungapped kernel). Waiting here first, where the driver holds
    nothing, leaves the copy itself short.
    """
    wait()


def clear_cache():
    """Forget cached device copies."""
    with _uploads_lock:
        _uploads.clear()


#: a stream priority below any device's range (clamped to its greatest, see own_stream)
_URGENT = -(1 << 20)

#: the relay's walks back (``top`` streams) at the device's greatest stream priority and every other urgent
#: stream one below it: a walk back's few blocks go first where a block ends, rather than behind the
#: hundreds of relay chunks pending at the same priority (E. coli's first long batch: a side's walk back
#: waited up to 20 ms for the multiprocessors the other sides' chunks held, ``bench/timeline.py --device``).
#: Measured and not kept (fifty-sixth session, H200): E. coli 0.991 [0.956, 1.023] and S. aureus JKD6008 x
#: N315 0.986 [0.958, 1.033] of the default's time, alternated in one process
RELAY_WALK_FIRST = False


@functools.lru_cache(maxsize=None)
def greatest_priority(device_id):
    """The greatest stream priority ``device_id`` offers (CUDA's number: the lowest, -5 on Hopper).

    CuPy has no ``cudaDeviceGetStreamPriorityRange``, so a stream is made at a priority below any
    range, which CUDA clamps to the greatest, and asked its priority (once a device).
    """
    import cupy
    runtime = cupy.cuda.runtime
    with cupy.cuda.Device(device_id):
        stream = runtime.streamCreateWithPriority(runtime.streamNonBlocking, _URGENT)
        try:
            return int(runtime.streamGetPriority(stream))
        finally:
            runtime.streamDestroy(stream)


def urgent_priority(device_id, top=False):
    """The stream priority of urgent work on ``device_id``: the greatest, or one below it for all but ``top``
    work (:data:`RELAY_WALK_FIRST`; where the device has too few levels to keep the executors'
    ``gapped.EXEC_PRIORITY``, -1, below both, every urgent stream gets the greatest)."""
    if not RELAY_WALK_FIRST:
        return _URGENT
    greatest = greatest_priority(device_id)
    if greatest > -3:
        return _URGENT
    return greatest if top else greatest + 1


#: own_stream takes its streams from a pool (CuPy's memory pool keeps freed blocks per stream: on a
#: new stream every allocation is a new cudaMalloc, which the relay's many short calls paid)
STREAM_POOL = True
_streams = {}                   # (device, priority) -> streams not in use
_streams_lock = threading.Lock()


@contextlib.contextmanager
def own_stream(device_id, urgent=True, priority=None, top=False):
    """Run the block's CuPy work on ``device_id`` in a non-blocking stream of its own, finished at the end.

    For a thread that shares the GPU with others: CuPy's default (legacy)
    stream would serialise their kernels, while streams of their own let a
    thread's kernels run beside the other's. The caller must have finished
    the work its threads read (:func:`wait`
    before starting them). ``urgent`` streams get the device's greatest
    priority, the others its least, the default: work that others wait on
    goes first (a wave speculated beside the walk is the one that is not
    urgent). CUDA clamps a priority to the device's range, so the greatest
    is asked for as a very low number (lower numbers go first). The stream
    is one no other block uses meanwhile, taken from a pool
    (:data:`STREAM_POOL`) and given back finished, so that the memory its
    arrays leave in CuPy's pool serves the next block. ``priority``, where
    given, is the stream's priority instead (CUDA's numbers: lower goes first, 0 the least). ``top``:
    urgent work that goes before the other urgent work (:func:`urgent_priority`).
    """
    import cupy
    if priority is None:
        priority = urgent_priority(device_id, top) if urgent else 0
    key = (int(device_id), int(priority))
    with cupy.cuda.Device(device_id):
        stream = None
        if STREAM_POOL:
            with _streams_lock:
                free = _streams.setdefault(key, [])
                stream = free.pop() if free else None
        if stream is None:
            stream = cupy.cuda.Stream(non_blocking=True, priority=priority)
        try:
            with stream:
                yield stream
        finally:
            wait(stream)
            if STREAM_POOL:
                with _streams_lock:
                    _streams[key].append(stream)
