"""Backend choice: the CPU (numba) or the GPU (CuPy), and the GPU device.

``backend="auto"`` takes the GPU when CuPy imports and sees a device, and says
which one it took in the log; otherwise it takes the CPU. Both give the same
bytes, so the choice only changes speed.
"""

from __future__ import annotations

import logging
import os

from . import cpu_target
from .errors import InputError

log = logging.getLogger("gpukernels")

BACKENDS = ("auto", "cpu", "gpu")


def gpu_available():
    """True when CuPy imports and at least one CUDA device is visible."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # ImportError, CUDARuntimeError without a driver, ...
        return False


def resolve_backend(backend="auto", device=None):
    """Turn a requested backend into ``"cpu"`` or ``"gpu"`` and select the device.

    Parameters
    ----------
    backend : {"auto", "cpu", "gpu"}
        What the user asked for.
    device : int, optional
        CUDA device ordinal among those ``CUDA_VISIBLE_DEVICES`` leaves
        visible; default 0.

    Returns
    -------
    str
        ``"cpu"`` or ``"gpu"``.

    Raises
    ------
    InputError
        For an unknown backend, or ``"gpu"`` where no GPU can be used.
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if cpu_target.chosen:
        log.info("host code: numba tuned for %s on this %s processor (NUMBA_CPU_NAME overrides)", *cpu_target.chosen)
    if backend == "cpu":
        log.info("backend: cpu (numba)")
        return "cpu"
    if not gpu_available():
        if backend == "gpu":
            raise InputError("--backend gpu was asked for, but CuPy sees no CUDA GPU "
                             "(install the [gpu] extra and check CUDA_VISIBLE_DEVICES)")
        log.info("backend: cpu (numba); no CUDA GPU visible to CuPy")
        return "cpu"
    import cupy
    ordinal = 0 if device is None else int(device)
    count = cupy.cuda.runtime.getDeviceCount()
    if not 0 <= ordinal < count:
        raise InputError(f"--device {ordinal} does not exist: {count} GPU(s) visible "
                         f"(CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')})")
    cupy.cuda.Device(ordinal).use()
    props = cupy.cuda.runtime.getDeviceProperties(ordinal)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    log.info("backend: gpu (CuPy), device %d: %s (CUDA_VISIBLE_DEVICES=%s)", ordinal, name,
             os.environ.get("CUDA_VISIBLE_DEVICES", "unset"))
    return "gpu"
