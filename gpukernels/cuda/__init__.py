"""CUDA C kernels and their loader.

Each ``*.cu`` file beside this one holds the kernels of one stage. They are
compiled for the current device by ``cupy.RawModule`` on first use, memoised
per (file, device), and cached on disk by CuPy across processes, so a second
run does not recompile.
"""

from __future__ import annotations

import functools
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def source_path(name):
    """Path of the CUDA source ``name`` (``"seeds"`` → ``.../cuda/seeds.cu``)."""
    return os.path.join(_HERE, f"{name}.cu")


@functools.lru_cache(maxsize=None)
def _module(name, device_id, options):
    import cupy
    with open(source_path(name)) as fh:
        code = fh.read()
    return cupy.RawModule(code=code, options=options, name_expressions=None)


def get_kernel(name, kernel, options=("-std=c++17",)):
    """The ``cupy.RawKernel`` called ``kernel`` from ``cuda/<name>.cu`` on the current device."""
    import cupy
    dev = cupy.cuda.Device().id
    return _module(name, dev, tuple(options)).get_function(kernel)
