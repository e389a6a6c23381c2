"""The processor numba tunes the engine's host code for, where the host's own tuning is slower.

numba builds its code for the host's processor by default (LLVM's name of
it, with its features). On the GPU machines we are lent (Intel Emerald
Rapids cores), the host's y-drop DP, which redoes the walk's dirty sides,
ran 15 % faster tuned for ``haswell`` with the same features, the walk's
stripes took 10 % fewer cycles, and the E. coli pair took 0.484 s against
0.500 s (8 processes of 3 pairs each, alternated over two machines;
``bench/RESULTS.md``, thirty-fourth session).
:func:`choose` sets ``NUMBA_CPU_NAME`` to that tuning on such hosts,
before numba reads its configuration. The code computes the same integers
either way: the output bytes do not change. A ``NUMBA_CPU_NAME`` or
``NUMBA_CPU_FEATURES`` set by the user is left alone.
"""

from __future__ import annotations

import os
import sys

#: LLVM's names of the processors where numba's code tuned for the host ran slower than :data:`TUNING`
SLOWER_AS_HOST = frozenset({"emeraldrapids"})
#: the tuning used on them
TUNING = "haswell"
#: ``(tuning, host name)`` once :func:`choose` has set one (for the log)
chosen = None


def choose(host_name=None):
    """Set ``NUMBA_CPU_NAME`` to :data:`TUNING` on a host in :data:`SLOWER_AS_HOST`; return the name set.

    Returns None where nothing is set: the user chose, numba has read its
    configuration already (it was imported first), or the host is another.
    """
    global chosen
    if "NUMBA_CPU_NAME" in os.environ or "NUMBA_CPU_FEATURES" in os.environ or "numba" in sys.modules:
        return None
    if host_name is None:
        import llvmlite.binding as llvm
        host_name = llvm.get_host_cpu_name()
    if host_name not in SLOWER_AS_HOST:
        return None
    os.environ["NUMBA_CPU_NAME"] = TUNING
    chosen = (TUNING, host_name)
    return TUNING
