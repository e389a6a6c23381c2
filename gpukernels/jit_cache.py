"""Whether numba's cache holds the engine's host code yet, so that a first run says why it waits.

The host code (the CPU backend's stages, and the GPU backend's walk over the
kernels' results) is compiled by numba on its first call in an environment
and cached (``__pycache__`` beside the package, a user-wide folder where that
is read-only, or ``NUMBA_CACHE_DIR``). That compile takes about 20 s for the
CPU backend and about 70 s for the GPU backend's (``bench/cold_start.py``),
during which a run would otherwise print nothing. Later runs load the code
from the cache in a second or two.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("gpukernels")

#: about how long the first run's compile takes, per backend (the fortieth and thirty-ninth sessions)
FIRST_COMPILE_S = {"cpu": 20, "gpu": 70}


def _heavy_functions(backend):
    """The numba functions whose compile takes longest on ``backend`` (each compiles those it calls)."""
    from .cpu import gapped as cpu_gapped
    functions = [cpu_gapped.extend_side]
    if backend == "gpu":
        from .gpu import gapped as gpu_gapped
        functions.append(gpu_gapped._walk)
    return functions


def index_paths(functions):
    """The paths of the index files numba's cache keeps for ``functions`` (None where numba's layout differs)."""
    paths = []
    for fn in functions:
        try:
            paths.append(fn._cache._cache_file._index_path)
        except AttributeError:          # not a cached dispatcher, or another numba's internals
            paths.append(None)
    return paths


def missing_index(backend):
    """The path of an index file numba's cache lacks for one of the ``backend``'s heavy functions, or None."""
    for path in index_paths(_heavy_functions(backend)):
        if path is not None and not os.path.exists(path):
            return path
    return None


def cold(backend):
    """True when numba's cache holds no index for one of the ``backend``'s heavy functions (a first run)."""
    return missing_index(backend) is not None


def note_first_compile(backend):
    """Log, before the stages run, that this run compiles the host code where numba's cache lacks it."""
    missing = missing_index(backend)
    if missing is not None:
        log.info("first run of this installation: numba compiles the host code once (about %d s on the %s "
                 "backend); later runs load it from its cache in %s", FIRST_COMPILE_S[backend], backend,
                 os.path.dirname(missing))
