"""Growable arrays for numba code that does not know its output size up front."""

import threading

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def grow(a, need):
    """``a`` itself if it holds ``need`` items, else a copy at least twice as large."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def grow_rows(a, need):
    """:func:`grow` for a 2-D array: more rows, the same columns."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b


class ArrayPool:
    """Grown 1-D arrays kept between calls, so the next call starts with their size and their pages in place.

    A buffer that :func:`grow` doubles from a small start copies itself
    each time and first touches every new page: the GPU engine's store of
    executed columns reached tens of megabytes a strand, and its last
    doublings took 10-26 ms on the thread of a wave. Taken by one call at
    a time (each strand takes its own); at most ``keep`` arrays are kept.
    """

    def __init__(self, keep=2):
        self._free = []
        self._keep = keep
        self._lock = threading.Lock()

    def take(self, size, dtype):
        """A free array of ``dtype`` holding at least ``size`` items (the largest kept), else a new one."""
        dtype = np.dtype(dtype)
        with self._lock:
            fits = [k for k, a in enumerate(self._free) if a.dtype == dtype and len(a) >= size]
            if fits:
                return self._free.pop(max(fits, key=lambda k: len(self._free[k])))
        return np.empty(size, dtype)

    def give(self, arr):
        """``arr`` back for a later call (its contents are not kept); only the largest ``keep`` stay."""
        with self._lock:
            self._free.append(arr)
            self._free.sort(key=len, reverse=True)
            del self._free[self._keep:]
