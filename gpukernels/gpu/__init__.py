"""CuPy launchers of the CUDA kernels in ``cuda/``, one module per stage.

Each module has the same functions, signatures and output values as its
numba twin in ``cpu/``. Shared here: the GPU memory budget that bounds every
batch (the output never depends on it) and a small cache of host arrays
already copied to the device.
"""

from __future__ import annotations

import weakref

#: share of free device memory taken when no budget is given
DEFAULT_SHARE = 0.6

_budget = None
_uploads = {}


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
    hit = _uploads.get(key)
    if hit is not None and hit[0]() is arr and (dtype is None or hit[1].dtype == dtype):
        return hit[1]
    dev = cupy.asarray(np.ascontiguousarray(arr, dtype=dtype))
    try:
        ref = weakref.ref(arr)
    except TypeError:
        return dev
    if len(_uploads) >= 8:
        _uploads.pop(next(iter(_uploads)))
    _uploads[key] = (ref, dev)
    return dev


def clear_cache():
    """Forget cached device copies."""
    _uploads.clear()
