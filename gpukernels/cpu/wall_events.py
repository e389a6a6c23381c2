"""The walls of kept alignments as events along a y-drop sweep's anti-diagonals.

A sweep's anti-diagonal d crosses target row j (cell ``(d - j, j)``) in one
cell, so a wall interval of row j, query offsets ``[ia, ib)`` in the sweep's
frame, kills one cell of each anti-diagonal ``d`` in ``[j + ia, j + ib)``
and no other. The sweep reads each row once, as its range of j reaches it,
files the row's intervals in a heap keyed by the first anti-diagonal they
touch, and at each anti-diagonal kills the cells of the intervals live there.
The work then follows the wall cells the sweep meets rather than its cells:
near a megabase alignment every row holds a wall, and testing every cell
against its row cost the host's DP about half its time.
"""

import numpy as np
from numba import njit

from .buffers import grow_rows


@njit(cache=True, nogil=True)
def _put(heap, x, first, last, j):
    """Write event ``(first, last, j)`` at heap slot ``x``."""
    heap[x, 0] = first
    heap[x, 1] = last
    heap[x, 2] = j


@njit(cache=True, nogil=True)
def _push(heap, n, first, last, j):
    """Add event ``(first, last, j)`` to the min-heap on ``first``; returns the (grown) heap and its size."""
    heap = grow_rows(heap, n + 1)
    x = n
    while x > 0:
        up = (x - 1) >> 1
        if heap[up, 0] <= first:
            break
        heap[x] = heap[up]
        x = up
    _put(heap, x, first, last, j)
    return heap, n + 1


@njit(cache=True, nogil=True)
def _pop(heap, n):
    """Remove the heap's root (read it first); returns the new size."""
    n -= 1
    first, last, j = heap[n, 0], heap[n, 1], heap[n, 2]
    x = 0
    while True:
        c = 2 * x + 1
        if c >= n:
            break
        if c + 1 < n and heap[c + 1, 0] < heap[c, 0]:
            c += 1
        if heap[c, 0] >= first:
            break
        heap[x] = heap[c]
        x = c
    _put(heap, x, first, last, j)
    return n


@njit(cache=True, nogil=True)
def file_row(heap, n, walls, lt, j, wq0, wdir, d, qn):
    """File the wall intervals of target row ``lt`` (the sweep's row j) that live past anti-diagonal ``d - 1``.

    ``wq0, wdir`` place query offset i at query coordinate ``wq0 + wdir * i``;
    intervals wholly outside offsets ``[0, qn]`` are left out. Returns the
    (grown) heap and its size.
    """
    for k in range(walls.shape[1]):
        w1 = np.int64(walls[lt, k, 1])
        if w1 == 0:
            break
        w0 = np.int64(walls[lt, k, 0])
        if wdir == 1:
            ia, ib = w0 - wq0, w1 - wq0
        else:
            ia, ib = wq0 - w1 + 1, wq0 - w0 + 1
        if ia < 0:
            ia = 0
        if ib > qn + 1:
            ib = qn + 1
        if ia < ib and j + ib > d:
            heap, n = _push(heap, n, max(j + ia, d), j + ib, j)
    return heap, n


@njit(cache=True, nogil=True)
def live_at(heap, n, live, m, d):
    """Move the events that start by anti-diagonal ``d`` from the heap to ``live`` (rows: last, j).

    Returns the new heap size, the (grown) live list and its size.
    """
    while n > 0 and heap[0, 0] <= d:
        live = grow_rows(live, m + 1)
        live[m, 0] = heap[0, 1]
        live[m, 1] = heap[0, 2]
        m += 1
        n = _pop(heap, n)
    return n, live, m
