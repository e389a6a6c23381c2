"""Growable arrays for numba code that does not know its output size up front."""

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
