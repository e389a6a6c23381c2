"""Growable arrays for numba code that does not know its output size up front."""

import threading

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic


@intrinsic
def move_items(typingctx, dst, dst_at, src, src_at, n):
    """``dst.flat[dst_at:dst_at + n] = src.flat[src_at:src_at + n]`` as one memmove (numba code only).

    Both arrays C-contiguous, of one dtype. numba's slice copies run item
    by item: on the device's host, gathering a pair's 10 MB of alignment
    columns took 18 ms that way, and a megabase path's copies on the walk
    cost milliseconds each.
    """
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.layout == "C"
            and src.layout == "C" and dst.dtype == src.dtype):
        raise TypingError("move_items: C-contiguous arrays of one dtype")
    sig = types.void(dst, dst_at, src, src_at, n)

    def codegen(context, builder, signature, args):
        d, da, s, sa, m = args
        dptr = cgutils.create_struct_proxy(signature.args[0])(context, builder, value=d).data
        sptr = cgutils.create_struct_proxy(signature.args[2])(context, builder, value=s).data
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        cgutils.raw_memmove(builder, builder.gep(dptr, [da]), builder.gep(sptr, [sa]), m, itemsize)
        return context.get_dummy_value()
    return sig, codegen


@njit(cache=True, nogil=True)
def grow(a, need):
    """``a`` itself if it holds ``need`` items, else a copy at least twice as large."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    move_items(b, 0, a, 0, a.shape[0])
    return b


@njit(cache=True, nogil=True)
def grow_rows(a, need):
    """:func:`grow` for a 2-D array: more rows, the same columns."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    move_items(b, 0, a, 0, a.shape[0] * a.shape[1])
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
