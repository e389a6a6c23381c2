"""GPU twin of ``cpu/gapped.extend_anchors``: y-drop extension in waves (FastZ design).

The CPU twin is sequential: anchors in order; one lying on a kept path is
skipped; the others are extended with the lattice points of the alignments
kept so far as walls. Here anchors go to the GPU in *waves*:

1. **Form a wave** (host): from the first anchor not yet decided, take up to
   ``W`` anchors not on a kept path. An anchor near (same diagonal band, same
   query stretch) an anchor already taken is left out of the launch: it very
   likely lies on that one's path, and extending it too would repeat a long
   alignment.
2. **Inspector** (``cuda/gapped.cu``, mode 0): one warp per side of each
   anchor, score only, with the walls as they were before the wave. It
   reports the best cell, the cells, the cells up to the best anti-diagonal
   and the explored region (query/target reach and diagonal range).
3. **Executor** (mode 1): for anchors whose region overlaps no earlier
   anchor's region in the wave, recompute up to the best anti-diagonal with a
   one-byte traceback per cell, in batches within the memory budget; the host
   traces back.
4. **Walk** (host, the sequential rule): anchors in order. On a path kept
   earlier (in this wave too): skipped. Left out, or without a traceback, or
   *dirty* (its explored region holds a lattice point of an alignment kept
   earlier in this wave, so its walls changed): the wave ends there and the
   next one starts at it. Otherwise its result is exactly the CPU's: it is
   accepted, rescored and kept at ``gappedthresh``.

So the output is the CPU twin's, value for value and in the same order,
whatever the wave size or the memory budget.

**CPU fallback.** A side whose anti-diagonal grows wider than the widest
band buffer (2048 cells), whose record is longer than 2^30, or whose
traceback alone exceeds the memory budget is extended by the same DP on the
CPU (:func:`side_dp`, numba) when the walk reaches it, with the walls of that
moment: the same result, at CPU speed. The counts are in :data:`LAST_STATS`.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..cpu import gapped as cg
from ..cpu.gapped import OP_D, OP_I, OP_X

#: anchors per wave (computed ones)
WAVE = 4096
#: band buffers tried by the inspector (cells per anti-diagonal held in shared memory)
BANDS = (512, 2048)
#: bucket width (target positions, as a shift) of the kept-alignment index
_BSHIFT = 16
#: diagonal and query cell (as shifts) of the wave's nearness rule
_DIAG_CELL, _Q_CELL = 6, 14
_FAR = 1 << 62
_NEG = -(1 << 29)
_MAXLEN = 1 << 30

# inspector result columns (cuda/gapped.cu)
R_BEST, R_BI, R_BJ, R_CELLS, R_CAB, R_IMAX, R_JMAX, R_KMIN, R_KMAX, R_STATUS = range(10)

#: counts from the last call (waves, launches, CPU fallbacks, ...)
LAST_STATS = {}


# ---------------------------------------------------------------------------------------------
# kept alignments: arrays shared by the numba helpers
#   K[k] = t0, t1, q0, q1, score; op_off/run_off: offsets into ops/runs (runs[r] = t, q, len)
#   head[b] / ents[e] = (next, k): kept alignments by target bucket, for the on-path test

@njit(cache=True, nogil=True)
def _grow2(a, need):
    if need <= a.shape[0]:
        return a
    size = a.shape[0] * 2
    while size < need:
        size *= 2
    b = np.empty((size, a.shape[1]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def _on_path(aq, at, k, K, run_off, runs):
    if at < K[k, 0] or at >= K[k, 1] or aq < K[k, 2] or aq >= K[k, 3]:
        return False
    a = run_off[k]
    z = run_off[k + 1]
    if a == z:
        return False
    while z - a > 1:
        m = (a + z) >> 1
        if runs[m, 0] <= at:
            a = m
        else:
            z = m
    return runs[a, 0] <= at < runs[a, 0] + runs[a, 2] and aq - at == runs[a, 1] - runs[a, 0]


@njit(cache=True, nogil=True)
def _on_kept(aq, at, k_lo, K, run_off, runs, head, ents):
    """Is (aq, at) on the path of a kept alignment k >= k_lo?"""
    e = head[at >> _BSHIFT]
    while e >= 0:
        k = ents[e, 1]
        if k >= k_lo and _on_path(aq, at, k, K, run_off, runs):
            return True
        e = ents[e, 0]
    return False


@njit(cache=True, nogil=True)
def _keep(path, s_t0, s_q0, t1, q1, score, K, cnt, op_off, ops_all, run_off, runs, head, ents, walls):
    """Add a kept alignment: columns, runs, bucket entries, walls. Returns grown arrays."""
    nk = cnt[0]
    K[nk, 0] = s_t0
    K[nk, 1] = t1
    K[nk, 2] = s_q0
    K[nk, 3] = q1
    K[nk, 4] = score
    nops = path.shape[0]
    ops_all = cg._grow(ops_all, op_off[nk] + nops)
    ops_all[op_off[nk]:op_off[nk] + nops] = path
    op_off[nk + 1] = op_off[nk] + nops
    rt, rq, rl = cg.runs_of(path, s_t0, s_q0)
    r0 = run_off[nk]
    nr = rt.shape[0]
    runs = _grow2(runs, r0 + nr)
    for r in range(nr):
        runs[r0 + r, 0] = rt[r]
        runs[r0 + r, 1] = rq[r]
        runs[r0 + r, 2] = rl[r]
    run_off[nk + 1] = r0 + nr
    if nr > 0:
        b_lo = s_t0 >> _BSHIFT
        b_hi = (t1 - 1) >> _BSHIFT
        ents = _grow2(ents, cnt[1] + b_hi - b_lo + 1)
        for b in range(b_lo, b_hi + 1):
            e = cnt[1]
            ents[e, 0] = head[b]
            ents[e, 1] = nk
            head[b] = e
            cnt[1] += 1
    cg.mark_walls(walls, path, s_t0, s_q0)
    cnt[0] = nk + 1
    return ops_all, runs, ents


@njit(cache=True, nogil=True)
def _join(lops, rops, t, q, aq, at, li, lj, ri, rj, matrix, gap_open, gap_ext):
    """Forward path from the left ops (origin outwards) and right ops; start and rescored score."""
    nl = lops.shape[0]
    path = np.empty(nl + rops.shape[0], dtype=np.uint8)
    for k in range(nl):
        path[k] = lops[nl - 1 - k]
    path[nl:] = rops
    s_t0 = at + 1 - lj
    s_q0 = aq + 1 - li
    score = cg.rescore(path, t, s_t0, q, s_q0, matrix, gap_open, gap_ext)
    return path, s_t0, s_q0, score


@njit(cache=True, nogil=True)
def _in_region(lq, lt, aq, at, side, imax, jmax, kmin, kmax):
    if side == 0:
        i = aq + 1 - lq
        j = at + 1 - lt
    else:
        i = lq - (aq + 1)
        j = lt - (at + 1)
    return 0 <= i <= imax and 0 <= j <= jmax and kmin <= j - i <= kmax


@njit(cache=True, nogil=True)
def _dirty(aq, at, reg, k_lo, nk, K, op_off, ops_all):
    """Does the explored region of anchor (aq, at) hold a lattice point of kept alignment k_lo..nk-1?

    ``reg`` = imax, jmax, kmin, kmax of the left side, then of the right side.
    """
    for k in range(k_lo, nk):
        for side in range(2):
            imax = reg[4 * side]
            jmax = reg[4 * side + 1]
            if side == 0:
                qa, qb, ta, tb = aq + 1 - imax, aq + 1, at + 1 - jmax, at + 1
            else:
                qa, qb, ta, tb = aq + 1, aq + 1 + imax, at + 1, at + 1 + jmax
            if K[k, 1] < ta or K[k, 0] > tb or K[k, 3] < qa or K[k, 2] > qb:
                continue
            lt = K[k, 0]
            lq = K[k, 2]
            if _in_region(lq, lt, aq, at, side, imax, jmax, reg[4 * side + 2], reg[4 * side + 3]):
                return True
            for x in range(op_off[k], op_off[k + 1]):
                op = ops_all[x]
                if op != OP_I:
                    lt += 1
                if op != OP_D:
                    lq += 1
                if lt > tb:
                    break
                if _in_region(lq, lt, aq, at, side, imax, jmax, reg[4 * side + 2], reg[4 * side + 3]):
                    return True
    return False


@njit(cache=True, nogil=True)
def _form_wave(pos, anchor_q, anchor_t, K, run_off, runs, head, ents, width, max_scan, flags, table):
    """Choose the anchors of a wave starting at ``pos``.

    flags[a - pos]: 0 on a kept path (decided: skipped), 1 computed, 2 left out.
    Returns the end of the wave (exclusive).
    """
    n = anchor_q.shape[0]
    table[:] = 0
    tmask = table.shape[0] - 1
    taken = 0
    a = pos
    while a < n and taken < width and a - pos < max_scan:
        aq = anchor_q[a]
        at = anchor_t[a]
        if _on_kept(aq, at, 0, K, run_off, runs, head, ents):
            flags[a - pos] = 0
            a += 1
            continue
        dc = ((at - aq) >> _DIAG_CELL) + (1 << 30)
        qc = aq >> _Q_CELL
        near = False
        for dd in range(-1, 2):
            for dq in range(-1, 2):
                key = (dc + dd) * (1 << 26) + qc + dq + 2
                s = ((key * 2654435761) >> 16) & tmask
                while table[s] != 0:
                    if table[s] == key:
                        near = True
                        break
                    s = (s + 1) & tmask
                if near:
                    break
            if near:
                break
        key = dc * (1 << 26) + qc + 2
        s = ((key * 2654435761) >> 16) & tmask
        while table[s] != 0 and table[s] != key:
            s = (s + 1) & tmask
        table[s] = key
        if near:
            flags[a - pos] = 2
        else:
            flags[a - pos] = 1
            taken += 1
        a += 1
    return a


@njit(cache=True, nogil=True)
def _choose_exec(idx, res, qa, qb, ta, tb, mem, need):
    """Anchors (positions in ``idx``) to execute: regions clear of earlier ones, within ``mem`` bytes.

    Returns a flag per candidate: 1 execute, 0 not now, 2 CPU (its traceback alone exceeds
    the budget, now and in any later wave).
    """
    m = idx.shape[0]
    out = np.zeros(m, dtype=np.int64)
    used = 0
    for x in range(m):
        clear = True
        for y in range(x):
            if qa[y] <= qb[x] and qa[x] <= qb[y] and ta[y] <= tb[x] and ta[x] <= tb[y]:
                clear = False
                break
        if not clear:
            continue
        if need[x] > mem:
            out[x] = 2
            continue
        if used + need[x] > mem:
            continue
        used += need[x]
        out[x] = 1
    return out


@njit(cache=True, nogil=True)
def _traceback(tb, tb_lo, tb_off, tbb, adb, bi, bj, t, t0, tstep, q, q0, qstep):
    """Columns from the origin outwards, as cpu/gapped.ydrop_one_side returns them."""
    ops = np.empty(bi + bj, dtype=np.uint8)
    n = 0
    i = bi
    j = bj
    state = 0
    while i > 0 or j > 0:
        dd = i + j
        byte = tb[tbb + tb_off[adb + dd] + i - tb_lo[adb + dd]]
        if state == 0:
            src = byte & 3
            if src == 0:
                tc = t[t0 + tstep * (j - 1)]
                qc = q[q0 + qstep * (i - 1)]
                ops[n] = cg.OP_EQ if (tc == qc and tc < 4) else OP_X
                n += 1
                i -= 1
                j -= 1
                continue
            state = src
        if state == 1:
            ops[n] = OP_D
            n += 1
            j -= 1
            if (byte & 4) == 0:
                state = 0
        else:
            ops[n] = OP_I
            n += 1
            i -= 1
            if (byte & 8) == 0:
                state = 0
    return ops[:n][::-1].copy()


@njit(cache=True, nogil=True)
def _walk(start, end, wave_lo, flags, comp_pos, execd, cpu_flag, res, ops_buf, ops_off, anchor_q, anchor_t,
          t, q, matrix, gap_open, gap_ext, gappedthresh, k_wave, K, cnt, op_off, ops_all, run_off, runs, head,
          ents, walls, anchor_cells):
    """The sequential rule over anchors [start, end) of the wave beginning at ``wave_lo``.

    Returns (stop, reason, ops_all, runs, ents): reason 0 wave done, 1 stop (recompute from
    ``stop`` in a new wave), 2 the anchor ``stop`` needs the CPU twin.
    """
    reg = np.empty(8, dtype=np.int64)
    for a in range(start, end):
        f = flags[a - wave_lo]
        if f == 0:
            continue
        aq = anchor_q[a]
        at = anchor_t[a]
        if cnt[0] > k_wave and _on_kept(aq, at, k_wave, K, run_off, runs, head, ents):
            continue
        if f == 2:
            return a, 1, ops_all, runs, ents
        c = comp_pos[a - wave_lo]
        if cpu_flag[c]:
            return a, 2, ops_all, runs, ents
        rl = res[2 * c]
        rr = res[2 * c + 1]
        for x in range(4):
            reg[x] = rl[R_IMAX + x]
            reg[4 + x] = rr[R_IMAX + x]
        if cnt[0] > k_wave and _dirty(aq, at, reg, k_wave, cnt[0], K, op_off, ops_all):
            return a, 1, ops_all, runs, ents
        if not execd[c]:
            return a, 1, ops_all, runs, ents
        anchor_cells[a] = rl[R_CELLS] + rr[R_CELLS]
        li, lj, ri, rj = rl[R_BI], rl[R_BJ], rr[R_BI], rr[R_BJ]
        if li + lj + ri + rj == 0:
            continue
        lops = ops_buf[ops_off[2 * c]:ops_off[2 * c + 1]]
        rops = ops_buf[ops_off[2 * c + 1]:ops_off[2 * c + 2]]
        path, s_t0, s_q0, score = _join(lops, rops, t, q, aq, at, li, lj, ri, rj, matrix, gap_open, gap_ext)
        if score < gappedthresh:
            continue
        ops_all, runs, ents = _keep(path, s_t0, s_q0, at + 1 + rj, aq + 1 + ri, score, K, cnt, op_off,
                                    ops_all, run_off, runs, head, ents, walls)
    return end, 0, ops_all, runs, ents


@njit(cache=True, nogil=True)
def side_dp(t, q, tk, matrix, gap_open, gap_ext, ydrop, walls, band, mode, dstop, tb, tbb, tb_lo, tb_off, adb):
    """One side of one anchor on the CPU, exactly as ``cuda/gapped.cu`` computes it.

    ``tk`` is a task row (t0, tstep, tn, q0, qstep, qn, barrier, wq0, wt0); mode 0 inspects
    (returns the 10 result columns), mode 1 also writes the traceback of anti-diagonals
    1..dstop at ``tb[tbb:]`` and their first cell and offset at ``tb_lo/tb_off[adb + d]``.
    ``band`` bounds the cells of an anti-diagonal (status 1 when exceeded), as the kernel's
    shared buffer does. The CPU fallback and the tests' kernel emulator use it.
    """
    t0, tstep, tn, q0, qstep, qn, barrier, wq0, wt0 = tk[0], tk[1], tk[2], tk[3], tk[4], tk[5], tk[6], tk[7], tk[8]
    goe = gap_open + gap_ext
    H = np.full((3, qn + 2), _NEG, dtype=np.int32)
    E = np.full((2, qn + 2), _NEG, dtype=np.int32)
    F = np.full((2, qn + 2), _NEG, dtype=np.int32)
    hA, hB, hC, eA, eB, fA, fB = 0, 1, 2, 0, 1, 0, 1
    H[hB, 0] = 0
    lo1, hi1, lo2, hi2 = 0, 1, 0, 0
    best, bi, bj = 0, 0, 0
    cells, cab, ntb = 0, 0, 0
    imax, jmax, kmin, kmax, status = 0, 0, 0, 0, 0
    d = 0
    nslot = walls.shape[1]
    while True:
        d += 1
        if d > qn + tn or (mode == 1 and d > dstop):
            break
        lo = min(lo1, lo2 + 1)
        hi = max(hi1 + 1, hi2 + 1)
        lo = max(lo, d - tn, 0)
        hi = min(hi, qn + 1, d + 1)
        if lo >= hi:
            break
        if hi - lo > band:
            status = 1
            break
        if mode == 1:
            tb_lo[adb + d] = lo
            tb_off[adb + d] = ntb
        floor = best - ydrop
        dbest, dbi, nlo, nhi = _NEG, -1, hi, lo
        for i in range(lo, hi):
            j = d - i
            sub = _NEG
            if i >= 1 and j >= 1 and lo2 <= i - 1 < hi2:
                hp = H[hA, i - 1]
                if hp > _NEG:
                    sub = hp + matrix[t[t0 + tstep * (j - 1)], q[q0 + qstep * (i - 1)]]
            e, ebit = _NEG, 0
            if j >= 1 and lo1 <= i < hi1:
                eo = H[hB, i] - goe
                ee = E[eB, i] - gap_ext
                if ee > eo:
                    e, ebit = ee, 4
                else:
                    e = eo
                e = max(e, _NEG)
            f, fbit = _NEG, 0
            if i >= 1 and lo1 <= i - 1 < hi1:
                fo = H[hB, i - 1] - goe
                fe = F[fB, i - 1] - gap_ext
                if fe > fo:
                    f, fbit = fe, 8
                else:
                    f = fo
                f = max(f, _NEG)
            h, src = sub, 0
            if e > h:
                h, src = e, 1
            if f > h:
                h, src = f, 2
            dead = h < floor or h <= _NEG or j - i == barrier
            if not dead:
                lt = wt0 + tstep * j
                lq = wq0 + qstep * i
                for k in range(nslot):
                    whi = walls[lt, k, 1]
                    if whi == 0:
                        break
                    if walls[lt, k, 0] <= lq < whi:
                        dead = True
                        break
            if dead:
                H[hC, i] = _NEG
                E[eA, i] = _NEG
                F[fA, i] = _NEG
                if mode == 1:
                    tb[tbb + ntb + i - lo] = 0
                continue
            H[hC, i] = h
            E[eA, i] = e
            F[fA, i] = f
            if mode == 1:
                tb[tbb + ntb + i - lo] = src | ebit | fbit
            nlo = min(nlo, i)
            nhi = i + 1
            if src == 0 and h > dbest:
                dbest, dbi = h, i
        cells += hi - lo
        ntb += hi - lo
        imax = max(imax, hi - 1)
        jmax = max(jmax, d - lo)
        kmin = min(kmin, d - 2 * (hi - 1))
        kmax = max(kmax, d - 2 * lo)
        if nlo >= nhi:
            break
        if dbi >= 0 and dbest >= best:
            best, bi, bj, cab = dbest, dbi, d - dbi, cells
        hA, hB, hC = hB, hC, hA
        eA, eB = eB, eA
        fA, fB = fB, fA
        lo2, hi2, lo1, hi1 = lo1, hi1, nlo, nhi
    return np.array([best, bi, bj, cells, cab, imax, jmax, kmin, kmax, status], dtype=np.int64)



# ---------------------------------------------------------------------------------------------
# the device side

class DeviceRunner:
    """Runs the inspector and executor kernels with CuPy (walls kept on the device)."""

    def __init__(self, t, q, matrix, gap_open, gap_ext, ydrop, wall_slots, mem):
        import cupy as cp
        from . import to_device
        self.cp = cp
        self.t = to_device(t, np.uint8)
        self.q = to_device(q, np.uint8)
        self.matrix = cp.asarray(np.ascontiguousarray(matrix, dtype=np.int32))
        self.msize = int(matrix.shape[1])
        self.gap_open, self.gap_ext, self.ydrop = int(gap_open), int(gap_ext), int(ydrop)
        self.nslot = int(wall_slots)
        self.walls = cp.zeros((len(t) + 1, wall_slots, 2), dtype=cp.int32)
        self.mem = mem
        self.launches = 0
        self.band_retries = 0

    def set_walls(self, walls, rows):
        if len(rows):
            d_rows = self.cp.asarray(rows)
            self.walls[d_rows] = self.cp.asarray(walls[rows])

    def _kernel(self, band):
        from ..cuda import get_kernel
        k = get_kernel("gapped", "ydrop")
        wpb = max(1, min(4, 57344 // (7 * 4 * band)))
        smem = wpb * 7 * 4 * band
        if smem > 48 * 1024:
            k.max_dynamic_shared_size_bytes = smem
        return k, wpb, smem

    def _launch(self, tasks, mode, band, res=None, dstop=None, tbb=None, adb=None, tb=None, tb_lo=None,
                tb_off=None):
        cp = self.cp
        k, wpb, smem = self._kernel(band)
        n = int(tasks.shape[0])
        z = cp.zeros(1, dtype=cp.int64)
        zb = cp.zeros(1, dtype=cp.uint8)
        zi = cp.zeros(1, dtype=cp.int32)
        k(((n + wpb - 1) // wpb,), (32 * wpb,),
          (self.t, self.q, tasks, np.int32(n), self.matrix, np.int32(self.msize), np.int32(self.gap_open),
           np.int32(self.gap_ext), np.int32(self.ydrop), self.walls, np.int32(self.nslot), np.int32(band),
           np.int32(mode), res if res is not None else z, dstop if dstop is not None else z,
           tbb if tbb is not None else z, adb if adb is not None else z, tb if tb is not None else zb,
           tb_lo if tb_lo is not None else zi, tb_off if tb_off is not None else z),
          shared_mem=smem)
        self.launches += 1

    def inspect(self, tasks):
        """Inspector results (ntasks, 10) and the band each task fitted (0: none)."""
        cp = self.cp
        d_tasks = cp.asarray(tasks)
        res = cp.empty((len(tasks), 10), dtype=cp.int64)
        self._launch(d_tasks, 0, BANDS[0], res=res)
        out = cp.asnumpy(res)
        band = np.full(len(tasks), BANDS[0], dtype=np.int64)
        for b in BANDS[1:]:
            over = np.flatnonzero(out[:, R_STATUS] != 0)
            if not len(over):
                break
            self.band_retries += len(over)
            sub = cp.asarray(tasks[over])
            r2 = cp.empty((len(over), 10), dtype=cp.int64)
            self._launch(sub, 0, b, res=r2)
            out[over] = cp.asnumpy(r2)
            band[over] = b
        band[out[:, R_STATUS] != 0] = 0
        return out, band

    def execute(self, tasks, band, dstop, tbb, adb, tb_total, ad_total):
        """Tracebacks of the tasks: host arrays tb (bytes), tb_lo, tb_off."""
        cp = self.cp
        tb = cp.empty(max(tb_total, 1), dtype=cp.uint8)
        tb_lo = cp.empty(max(ad_total, 1), dtype=cp.int32)
        tb_off = cp.empty(max(ad_total, 1), dtype=cp.int64)
        for b in np.unique(band):
            sel = np.flatnonzero(band == b)
            self._launch(cp.asarray(tasks[sel]), 1, int(b), dstop=cp.asarray(dstop[sel]),
                         tbb=cp.asarray(tbb[sel]), adb=cp.asarray(adb[sel]), tb=tb, tb_lo=tb_lo, tb_off=tb_off)
        return cp.asnumpy(tb), cp.asnumpy(tb_lo), cp.asnumpy(tb_off)


# ---------------------------------------------------------------------------------------------

def _tasks_of(idx, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier):
    """Task rows (left, right per anchor): t0, tstep, tn, q0, qstep, qn, barrier, wq0, wt0."""
    aq = anchor_q[idx]
    at = anchor_t[idx]
    m = len(idx)
    tasks = np.empty((2 * m, 9), dtype=np.int64)
    if self_barrier:
        bl, br = at - aq, aq - at
    else:
        bl = br = np.full(m, _FAR, dtype=np.int64)
    tasks[0::2] = np.stack([at, np.full(m, -1), at - t_lo[idx] + 1, aq, np.full(m, -1), aq - q_lo[idx] + 1,
                            bl, aq + 1, at + 1], axis=1)
    tasks[1::2] = np.stack([at + 1, np.full(m, 1), t_hi[idx] - at - 1, aq + 1, np.full(m, 1),
                            q_hi[idx] - aq - 1, br, aq + 1, at + 1], axis=1)
    return tasks


def extend_anchors(t, q, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, matrix, gap_open, gap_ext, ydrop,
                   gappedthresh, self_barrier, wall_slots, gpu_mem=None, wave=None, runner=None):
    """Gapped extension of anchors in the given order: the CPU twin's result, on the GPU.

    Parameters are those of :func:`gpukernels.cpu.gapped.extend_anchors`, plus:

    gpu_mem : int, optional
        Memory budget in bytes (tracebacks per executor batch).
    wave : int, optional
        Anchors per wave (default :data:`WAVE`).
    runner : object, optional
        Kernel runner (default :class:`DeviceRunner`); tests pass an emulator.

    Returns
    -------
    tuple
        ``(t0, t1, q0, q1, score, op_off, ops, anchor_cells)`` as the CPU twin.
    """
    from . import budget
    t = np.ascontiguousarray(t, dtype=np.uint8)
    q = np.ascontiguousarray(q, dtype=np.uint8)
    anchor_q = np.ascontiguousarray(anchor_q, dtype=np.int64)
    anchor_t = np.ascontiguousarray(anchor_t, dtype=np.int64)
    t_lo, t_hi, q_lo, q_hi = (np.ascontiguousarray(x, dtype=np.int64) for x in (t_lo, t_hi, q_lo, q_hi))
    matrix = np.ascontiguousarray(matrix, dtype=np.int32)
    n = len(anchor_q)
    width = int(wave or WAVE)
    mem = budget(gpu_mem)
    if runner is None:
        runner = DeviceRunner(t, q, matrix, gap_open, gap_ext, ydrop, wall_slots, mem)
    mem = int(getattr(runner, "mem", mem))
    # host state
    K = np.zeros((max(n, 1), 5), dtype=np.int64)
    op_off = np.zeros(n + 2, dtype=np.int64)
    run_off = np.zeros(n + 2, dtype=np.int64)
    ops_all = np.empty(1 << 16, dtype=np.uint8)
    runs = np.empty((1024, 3), dtype=np.int64)
    head = np.full((len(t) >> _BSHIFT) + 2, -1, dtype=np.int64)
    ents = np.empty((1024, 2), dtype=np.int64)
    cnt = np.zeros(2, dtype=np.int64)       # kept alignments, bucket entries
    walls = np.zeros((len(t) + 1, wall_slots, 2), dtype=np.int32)
    anchor_cells = np.full(n, -1, dtype=np.int64)
    flags = np.zeros(4 * width + 1, dtype=np.int8)
    table = np.zeros(1 << max(12, int(np.ceil(np.log2(8 * width)))), dtype=np.int64)
    long_rec = (t_hi - t_lo > _MAXLEN) | (q_hi - q_lo > _MAXLEN)
    stats = dict(waves=0, computed=0, executed=0, cpu_anchors=0, stops=0, band_retries=0, launches=0,
                 exec_batches=0, inspect_s=0.0, execute_s=0.0, traceback_s=0.0, walk_s=0.0, form_s=0.0,
                 walls_s=0.0, max_task_cells=0)
    cpu_scratch = {}
    pos = 0
    clock = time.perf_counter
    while pos < n:
        c0 = clock()
        end = _form_wave(pos, anchor_q, anchor_t, K, run_off, runs, head, ents, width, 4 * width, flags, table)
        wflags = flags[:end - pos]
        comp = np.flatnonzero(wflags == 1) + pos
        comp_pos = np.full(end - pos, -1, dtype=np.int64)
        comp_pos[comp - pos] = np.arange(len(comp))
        stats["waves"] += 1
        stats["computed"] += len(comp)
        stats["form_s"] += clock() - c0
        cpu_flag = long_rec[comp].copy()
        gpu_comp = np.flatnonzero(~cpu_flag)
        res = np.zeros((2 * len(comp), 10), dtype=np.int64)
        band = np.zeros(2 * len(comp), dtype=np.int64)
        if len(gpu_comp):
            tasks = _tasks_of(comp[gpu_comp], anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier)
            c0 = clock()
            r, b = runner.inspect(tasks)
            stats["inspect_s"] += clock() - c0
            stats["max_task_cells"] = max(stats["max_task_cells"], int(r[:, R_CELLS].max()))
            rows = np.empty(2 * len(gpu_comp), dtype=np.int64)
            rows[0::2] = 2 * gpu_comp
            rows[1::2] = 2 * gpu_comp + 1
            res[rows] = r
            band[rows] = b
            over = (b == 0).reshape(-1, 2).any(axis=1)
            cpu_flag[gpu_comp[over]] = True
        # executor: regions clear of earlier ones in the wave, within the budget
        execd = np.zeros(len(comp), dtype=np.bool_)
        ops_buf = np.zeros(0, dtype=np.uint8)
        ops_off = np.zeros(2 * len(comp) + 1, dtype=np.int64)
        cand = np.flatnonzero(~cpu_flag)
        if len(cand):
            aq, at = anchor_q[comp[cand]], anchor_t[comp[cand]]
            rl, rr = res[2 * cand], res[2 * cand + 1]
            qa, qb = aq + 1 - rl[:, R_IMAX], aq + 1 + rr[:, R_IMAX]
            ta, tb_ = at + 1 - rl[:, R_JMAX], at + 1 + rr[:, R_JMAX]
            dl = rl[:, R_BI] + rl[:, R_BJ]
            dr = rr[:, R_BI] + rr[:, R_BJ]
            need = np.where(dl > 0, rl[:, R_CAB] + 12 * (dl + 1), 0) + \
                np.where(dr > 0, rr[:, R_CAB] + 12 * (dr + 1), 0)
            choice = _choose_exec(cand, res, qa, qb, ta, tb_, mem, need)
            cpu_flag[cand[choice == 2]] = True
            sel = cand[choice == 1]
            if len(sel):
                stats["exec_batches"] += 1
                side_rows = np.empty(2 * len(sel), dtype=np.int64)
                side_rows[0::2] = 2 * sel
                side_rows[1::2] = 2 * sel + 1
                dstop = res[side_rows, R_BI] + res[side_rows, R_BJ]
                run_rows = side_rows[dstop > 0]
                ops_len = np.zeros(2 * len(comp), dtype=np.int64)
                if len(run_rows):
                    ds = res[run_rows, R_BI] + res[run_rows, R_BJ]
                    cab = res[run_rows, R_CAB]
                    tbb = np.concatenate([[0], np.cumsum(cab)[:-1]]).astype(np.int64)
                    adb = np.concatenate([[0], np.cumsum(ds + 1)[:-1]]).astype(np.int64)
                    tasks = _tasks_of(comp[run_rows // 2], anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi,
                                      self_barrier)
                    side = run_rows % 2
                    tasks = tasks[np.arange(len(run_rows)) * 2 + side]
                    c0 = clock()
                    tb, tb_lo, tb_off = runner.execute(tasks, band[run_rows], ds, tbb, adb, int(cab.sum()),
                                                       int((ds + 1).sum()))
                    c1 = clock()
                    stats["execute_s"] += c1 - c0
                    pieces = []
                    for x, row in enumerate(run_rows):
                        tk = tasks[x]
                        o = _traceback(tb, tb_lo, tb_off, tbb[x], adb[x], res[row, R_BI], res[row, R_BJ], t,
                                       tk[0], tk[1], q, tk[3], tk[4])
                        pieces.append(o)
                        ops_len[row] = len(o)
                    ops_buf = np.concatenate(pieces) if pieces else ops_buf
                    stats["traceback_s"] += clock() - c1
                    # pieces are in run_rows order, which is increasing: offsets follow
                ops_off[1:] = np.cumsum(ops_len)
                execd[sel] = True
                stats["executed"] += len(sel)
        # walk
        k_wave = int(cnt[0])
        a = pos
        c0 = clock()
        while True:
            stop, reason, ops_all, runs, ents = _walk(
                a, end, pos, flags, comp_pos, execd, cpu_flag, res, ops_buf, ops_off, anchor_q, anchor_t, t, q,
                matrix, gap_open, gap_ext, gappedthresh, k_wave, K, cnt, op_off, ops_all, run_off, runs, head,
                ents, walls, anchor_cells)
            if reason != 2:
                break
            ops_all, runs, ents = _cpu_anchor(stop, t, q, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, matrix,
                                              gap_open, gap_ext, ydrop, gappedthresh, self_barrier, K, cnt,
                                              op_off, ops_all, run_off, runs, head, ents, walls, anchor_cells,
                                              cpu_scratch)
            stats["cpu_anchors"] += 1
            a = stop + 1
        if reason == 1:
            stats["stops"] += 1
        stats["walk_s"] += clock() - c0
        c0 = clock()
        # walls of the alignments kept in this wave go to the device
        if cnt[0] > k_wave:
            rows = np.concatenate([np.arange(K[k, 0], K[k, 1] + 1) for k in range(k_wave, int(cnt[0]))])
            runner.set_walls(walls, np.unique(rows))
        stats["walls_s"] += clock() - c0
        pos = stop
    stats["launches"] = getattr(runner, "launches", 0)
    stats["band_retries"] = getattr(runner, "band_retries", 0)
    LAST_STATS.clear()
    LAST_STATS.update(stats)
    nk = int(cnt[0])
    return (K[:nk, 0].copy(), K[:nk, 1].copy(), K[:nk, 2].copy(), K[:nk, 3].copy(), K[:nk, 4].copy(),
            op_off[:nk + 1].copy(), ops_all[:op_off[nk]].copy(), anchor_cells)


def _cpu_anchor(a, t, q, anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, matrix, gap_open, gap_ext, ydrop,
                gappedthresh, self_barrier, K, cnt, op_off, ops_all, run_off, runs, head, ents, walls,
                anchor_cells, scratch):
    """Extend anchor ``a`` on the CPU (walls of this moment) and keep it by the same rule."""
    tasks = _tasks_of(np.array([a]), anchor_q, anchor_t, t_lo, t_hi, q_lo, q_hi, self_barrier)
    m64 = np.ascontiguousarray(matrix, dtype=np.int64)
    z8, z32, z64 = np.zeros(1, np.uint8), np.zeros(1, np.int32), np.zeros(1, np.int64)
    sides = []
    for tk in tasks:
        r = side_dp(t, q, tk, m64, gap_open, gap_ext, ydrop, walls, 1 << 62, 0, 0, z8, 0, z32, z64, 0)
        dstop = int(r[R_BI] + r[R_BJ])
        ops = np.zeros(0, dtype=np.uint8)
        if dstop > 0:
            tb = np.empty(int(r[R_CAB]), dtype=np.uint8)
            tb_lo = np.empty(dstop + 1, dtype=np.int32)
            tb_off = np.empty(dstop + 1, dtype=np.int64)
            side_dp(t, q, tk, m64, gap_open, gap_ext, ydrop, walls, 1 << 62, 1, dstop, tb, 0, tb_lo, tb_off, 0)
            ops = _traceback(tb, tb_lo, tb_off, 0, 0, r[R_BI], r[R_BJ], t, tk[0], tk[1], q, tk[3], tk[4])
        sides.append((r, ops))
    (rl, lops), (rr, rops) = sides
    aq, at = int(anchor_q[a]), int(anchor_t[a])
    anchor_cells[a] = rl[R_CELLS] + rr[R_CELLS]
    li, lj, ri, rj = int(rl[R_BI]), int(rl[R_BJ]), int(rr[R_BI]), int(rr[R_BJ])
    if li + lj + ri + rj == 0:
        return ops_all, runs, ents
    path, s_t0, s_q0, score = _join(lops, rops, t, q, aq, at, li, lj, ri, rj, matrix, gap_open, gap_ext)
    if score < gappedthresh:
        return ops_all, runs, ents
    return _keep(path, s_t0, s_q0, at + 1 + rj, aq + 1 + ri, score, K, cnt, op_off, ops_all, run_off, runs,
                 head, ents, walls)
