"""The rows that sides keep at their best cell: which arena slot holds each side's, and their host copies.

A round passes a side's slot to the kernel as its stale run's, which then
stops at the stale best where the rows show the rest of the run cannot
change the result; the walk redoes a dirty side on the host with the same
stop, from the rows' host copy (:mod:`gpukernels.gpu.gapped`).
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from ..cpu.buffers import grow
from .runner import DUMP_HEAD


@njit(cache=True, nogil=True)
def kept_on_host(rows_host, rows_at, row):
    """The stale rows of side ``row`` held on the host (:class:`KeptRows`), or an empty array."""
    at = rows_at[row]
    if at < 0:
        return rows_host[:0]
    return rows_host[at:at + DUMP_HEAD + 4 * rows_host[at + 11]]


@njit(cache=True, nogil=True)
def append_rows(rows_host, used, rows_at, rows, flat, at):
    """Append packed rows at the best (:func:`_pack_dumps`) of sides ``rows`` to the host store.

    Returns the store (grown if needed) and its new use; sides whose dump
    held no rows keep their ``rows_at``.
    """
    rows_host = grow(rows_host, used + flat.shape[0])
    rows_host[used:used + flat.shape[0]] = flat
    return rows_host, note_rows(used, rows_at, rows, at, flat.shape[0])


@njit(cache=True, nogil=True)
def note_rows(used, rows_at, rows, at, size):
    """Sides ``rows`` hold the rows just placed at ``store[used:used + size]`` (``at`` within them; -1: none).

    Returns the store's new use.
    """
    for k in range(rows.shape[0]):
        if at[k] >= 0:
            rows_at[rows[k]] = used + at[k]
    return used + size


@njit(cache=True, nogil=True)
def compact_rows(rows_host, rows_at, status):
    """Drop the rows of decided anchors (status 4) from the host store, in place; returns it and its use.

    The rows kept move towards the front in the order they lie, each to a
    place at or before its own, so a forward copy never overwrites rows not
    yet moved.
    """
    live = np.empty(rows_at.shape[0], dtype=np.int64)
    m = 0
    for row in range(rows_at.shape[0]):
        if rows_at[row] < 0:
            continue
        if status[row // 2] == 4:
            rows_at[row] = -1
            continue
        live[m] = row
        m += 1
    live = live[:m]
    live = live[np.argsort(rows_at[live])]      # positions are distinct: any sort gives one order
    used = 0
    for row in live:
        at = rows_at[row]
        size = DUMP_HEAD + 4 * rows_host[at + 11]
        for x in range(size):
            rows_host[used + x] = rows_host[at + x]
        rows_at[row] = used
        used += size
    return rows_host, used


class KeptRows:
    """Which slot of the runner's arena holds each side's rows at its best cell, and their host copies.

    A side's slot holds the rows of the run whose result is the side's row in
    ``res_all``; a round passes it to the kernel as the stale run's and gives
    the new run a fresh slot (mode 2 stops a side at its stale best where
    the rows show the rest of the run cannot change the result). Slots of
    decided anchors go back when none is free; without one, a side runs to
    its end as before. The rows also come back to the host (:meth:`fetch`;
    ``host[host_at[side]:]``, :func:`append_rows`), where the walk redoes a
    dirty side with the same stop (:func:`~gpukernels.gpu.gapped._redo_side`). The host copies go
    to ``store`` (the runner's pinned one), or else to a new one of ``size`` ints.
    """

    #: ints of host copies beyond which those of decided anchors are dropped (at a wave's start)
    HOST_CAP = 1 << 24

    def __init__(self, nslots, nsides, store=None, size=0):
        self.slot_of = np.full(nsides, -1, dtype=np.int64)
        self.owner = np.full(nslots, -1, dtype=np.int64)
        self.free = list(range(nslots - 1, -1, -1))
        # ``store``: the runner's pinned one, kept between calls (the rows come back straight into it);
        # else ordinary memory, whose pages are only taken as they are written
        if store is None:
            store = np.empty(size if nslots else 0, dtype=np.int32)
        self.host = store
        self.host_at = np.full(nsides, -1, dtype=np.int64)
        self.used = 0
        #: the walk's rounds and a wave speculated beside it change slots and copies from two threads
        self.lock = threading.RLock()

    def fetch(self, runner, rows, slots):
        """Copy the rows that sides ``rows`` just kept in ``slots`` to the host.

        The store only grows here, so a walk that holds the store of before
        still reads every row it had.
        """
        rows, slots = np.asarray(rows, dtype=np.int64), np.asarray(slots, dtype=np.int64)
        if len(rows):
            # straight into the store's free end where it has room (under the lock: the walk's rounds
            # fetch too, and a store that grew is a copy of the rows in place then)
            with self.lock:
                flat, at = runner.kept_rows(slots, into=self.host[self.used:])
                if np.may_share_memory(flat, self.host):
                    self.used = note_rows(self.used, self.host_at, rows, at, len(flat))
                else:
                    self.host, self.used = append_rows(self.host, self.used, self.host_at, rows, flat, at)

    def compact(self, status):
        """Drop the host copies of decided anchors' rows once they take more than :data:`HOST_CAP` ints.

        Only between walks, with no wave speculated beside them.
        """
        if self.used > self.HOST_CAP:
            with self.lock:
                self.host, self.used = compact_rows(self.host, self.host_at, status)

    def fresh(self, count, status):
        """``count`` free slots (-1 where none is left), reclaiming those of decided anchors if needed."""
        with self.lock:
            return self._fresh(count, status)

    def _fresh(self, count, status):
        if len(self.free) < count:
            held = np.flatnonzero(self.owner >= 0)
            done = held[status[self.owner[held] // 2] == 4]
            self.slot_of[self.owner[done]] = -1
            self.owner[done] = -1
            self.free.extend(done.tolist())
        # the last free slots, the last first (as many pops), without a Python step per slot: a wave
        # takes thousands
        out = np.full(count, -1, dtype=np.int64)
        m = min(count, len(self.free))
        if m:
            out[:m] = self.free[len(self.free) - m:][::-1]
            del self.free[len(self.free) - m:]
        return out

    def assign(self, rows, slots):
        """Sides ``rows`` now hold ``slots`` (-1: none); their former slots are free."""
        with self.lock:
            self._assign(rows, slots)

    def _assign(self, rows, slots):
        rows = np.asarray(rows, dtype=np.int64)
        slots = np.broadcast_to(np.asarray(slots, dtype=np.int64), rows.shape)
        self.host_at[rows] = -1
        old = self.slot_of[rows]
        old = old[old >= 0]
        self.owner[old] = -1
        self.free.extend(old.tolist())
        self.slot_of[rows] = slots
        self.owner[slots[slots >= 0]] = rows[slots >= 0]

    def release(self, slots):
        """Fresh slots that no side took."""
        with self.lock:
            slots = np.asarray(slots, dtype=np.int64)
            self.free.extend(slots[slots >= 0].tolist())
