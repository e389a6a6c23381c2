"""A CPU emulator of ``cuda/gapped.cu`` for testing the wave logic of ``gpu/gapped.py``.

It follows the kernel line by line (same band limit, ``WARP_SLACK`` under it in the warp kernels, region and
cells-to-best bookkeeping), with plain arrays instead of the cyclic shared
buffer, so the host side of the GPU twin can be checked without a GPU.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from gpukernels.cpu.gapped import _flat_matrix
from gpukernels.cpu.relay import speculative_chunk
from gpukernels.gpu.gapped import _traceback_batch
from gpukernels.gpu.kernel_twin import routes_batch, side_dp as _task
from gpukernels.gpu.runner import (DCAP, R_CAB, R_N, WARP_SLACK, WIDE_BAND, _keep_stride, _pack_dumps, _packed_bases,
                                   keep_slots)


class EmuRunner:
    """Stands in for :class:`gpukernels.gpu.gapped.DeviceRunner`."""

    def __init__(self, t, q, matrix, gap_open, gap_ext, ydrop, wall_slots, mem, bands=(512, 2048), dcap=DCAP,
                 wide_band=WIDE_BAND):
        self.t, self.q, self.matrix = t, q, np.ascontiguousarray(matrix, dtype=np.int64)
        self.gap_open, self.gap_ext, self.ydrop = gap_open, gap_ext, ydrop
        self.walls = np.zeros((len(t) + 1, wall_slots, 2), dtype=np.int32)
        # the device's slots of rows at the best (DeviceRunner's arena, out of the budget)
        self.keep_slots = keep_slots(mem)
        self.arena = np.zeros((self.keep_slots, _keep_stride()), dtype=np.int32)
        self.mem = mem - self.arena.nbytes
        self.bands = bands
        self.dcap = dcap
        self.wide_band = wide_band
        self.launches = 0
        self.band_retries = 0
        self.snapshots = 3
        self._tl = threading.local()
        self._z8 = np.zeros(1, dtype=np.uint8)
        self._z32 = np.zeros(1, dtype=np.int32)
        self._z64 = np.zeros(1, dtype=np.int64)

    def _walls_now(self):
        walls = getattr(self._tl, "walls", None)
        return self.walls if walls is None else walls

    def snapshot_walls(self):
        """DeviceRunner's: the walls as they stand, for a wave speculated beside the walk (its token)."""
        return None, self.walls.copy()

    @contextlib.contextmanager
    def background(self, token):
        self._tl.walls = token[1]
        try:
            yield
        finally:
            self._tl.walls = None

    def _slot(self, s):
        return self.arena[s] if s >= 0 and self.keep_slots else None

    def kept_rows(self, slots, into=None):
        """DeviceRunner's: the packed rows, copied to the front of ``into`` where it is long enough."""
        flat, at = _pack_dumps(self.arena[np.asarray(slots, dtype=np.int64)])
        if into is not None and len(into) >= len(flat):
            into[:len(flat)] = flat
            return into[:len(flat)], at
        return flat, at

    def no_walls(self):
        """DeviceRunner's: walls with none set."""
        return np.zeros_like(self.walls)

    def relay_launcher(self, task, width, mem, walls=None):
        """The relay's chunks computed here as ``cpu/relay`` computes them, with the emulator's walls (or ``walls``)."""
        t, q = self.t, self.q
        t0, tstep, tn, q0, qstep, qn, bar, wq0, wt0 = (int(x) for x in task)
        if tstep == 1:      # a right side: cpu/gapped.side_frame's placement
            frame = (t[::-1].copy(), len(t) - t0, tn, q, q0 - 1, qn)
        else:
            frame = (t, t0 + 1, tn, q[::-1].copy(), len(q) - 2 - q0, qn)
        dp = frame + (_flat_matrix(self.matrix.astype(np.int32)), np.int32(self.gap_open + self.gap_ext),
                      np.int32(self.gap_ext), self.ydrop, bar, self.walls if walls is None else walls, wq0, wt0, tstep)

        def chunks(starts, width):
            self.launches += 1
            work = np.empty((8, qn + 3), dtype=np.int32)
            return [speculative_chunk(dp, work, *a) for a in starts]
        return chunks

    def set_walls(self, walls, spans):
        for a, b in spans:
            self.walls[a:b] = walls[a:b]

    def inspect(self, tasks, wide=False, dcap=None):
        bands, cap = ((self.wide_band,), 1 << 30) if wide else (self.bands, self.dcap)
        dcap = cap if dcap is None else dcap
        out = np.empty((len(tasks), R_N), dtype=np.int64)
        band = np.zeros(len(tasks), dtype=np.int64)
        self.launches += 1
        for x, tk in enumerate(tasks):
            for b in bands:
                r = _task(self.t, self.q, tk, self.matrix, self.gap_open, self.gap_ext, self.ydrop, self._walls_now(),
                          b if wide else b - WARP_SLACK, 0, 0, self._z8, 0, self._z32, self._z64, 0, dcap)
                out[x] = r
                if r[9] == 0:
                    band[x] = b
                if r[9] != 1:
                    break
                self.band_retries += 1
        return out, band

    def inspect_traced(self, tasks, tb_room, ad_room, slots=None, dcap=None, routes=True):
        """Kernel mode 2 task by task in its room, then packed as ``ydrop_pack`` packs."""
        self.launches += 2
        out = np.empty((len(tasks), R_N), dtype=np.int64)
        scratch = []
        for x, tk in enumerate(tasks):
            tb = np.full(max(int(tb_room[x]), 1), 255, dtype=np.uint8)
            lo = np.zeros(max(int(ad_room[x]), 1), dtype=np.int32)
            off = np.zeros(max(int(ad_room[x]), 1), dtype=np.int64)
            rec = np.full(max(int(ad_room[x]), 1), -1, dtype=np.int32)
            keep, stale = (self._slot(slots[x][0]), self._slot(slots[x][1])) if slots is not None else (None, None)
            out[x] = _task(self.t, self.q, tk, self.matrix, self.gap_open, self.gap_ext, self.ydrop, self._walls_now(),
                           self.wide_band, 2, 0, tb, 0, lo, off, 0, 1 << 30 if dcap is None else dcap,
                           int(tb_room[x]), int(ad_room[x]),
                           keep, stale, rec)
            scratch.append((tb, lo, off, rec))
        pos, apos = _packed_bases(out)
        p_tb = np.zeros(int(pos[-1]), dtype=np.uint8)
        p_lo = np.zeros(int(apos[-1]), dtype=np.int32)
        p_off = np.zeros(int(apos[-1]), dtype=np.int64)
        p_rec = np.full(int(apos[-1]), -1, dtype=np.int32)
        for x, (tb, lo, off, rec) in enumerate(scratch):
            n_ad = int(apos[x + 1] - apos[x])
            if n_ad:
                cab = int(out[x, R_CAB])
                p_tb[pos[x]:pos[x] + cab] = tb[:cab]
                p_lo[apos[x] + 1:apos[x + 1]] = lo[1:n_ad]
                p_off[apos[x] + 1:apos[x + 1]] = off[1:n_ad]
                p_rec[apos[x] + 1:apos[x + 1]] = rec[1:n_ad]
        band = np.where(out[:, 9] == 0, self.wide_band, 0).astype(np.int64)
        return out, band, (p_tb, p_lo, p_off, pos[:-1], apos[:-1], p_rec if routes else None)

    def execute(self, tasks, band, dstop, tbb, adb, tb_total, ad_total, bi, bj, wide=False, keep=None, routes=True):
        tb = np.full(max(tb_total, 1), 255, dtype=np.uint8)
        tb_lo = np.zeros(max(ad_total, 1), dtype=np.int32)
        tb_off = np.zeros(max(ad_total, 1), dtype=np.int64)
        rec = np.full(max(ad_total, 1), -1, dtype=np.int32)
        self.launches += 1
        for x, tk in enumerate(tasks):
            _task(self.t, self.q, tk, self.matrix, self.gap_open, self.gap_ext, self.ydrop, self._walls_now(),
                  band[x] if wide else band[x] - WARP_SLACK, 1, dstop[x], tb, tbb[x], tb_lo, tb_off, adb[x],
                  keep=self._slot(keep[x]) if keep is not None else None, rec=rec)
        # the device walks the tracebacks back itself (ydrop_trace): the host's walk gives the same columns
        flat, lens = _traceback_batch(tb, tb_lo, tb_off, tbb, adb, np.asarray(bi), np.asarray(bj), tasks, self.t,
                                      self.q)
        if not routes:
            return flat, lens, np.zeros(0, dtype=np.uint8), np.full(len(lens), -1, dtype=np.int64)
        return (flat, lens) + routes_batch(tb, tb_lo, tb_off, rec, tbb, adb, np.asarray(bi), np.asarray(bj))
