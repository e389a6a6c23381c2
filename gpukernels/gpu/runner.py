"""The device side of the GPU gapped stage: launches of ``cuda/gapped.cu`` and the copies around them.

:class:`DeviceRunner` holds one strand's sequences and walls on the device
and runs the y-drop kernels for :mod:`gpukernels.gpu.gapped`: the inspector
and executor of waves and rounds, a round's inspection with its tracebacks,
relay chunks, and the rows at the best that sides keep. Every copy goes
through pinned host memory without waiting on the copy itself: the two
strands run at once in threads of their own, and a copy to or from pageable
memory waits inside the driver, holding up the other thread's copies.
Tests replace the runner by a kernel emulator (``tests/gapped_emulator.py``)
with the same methods.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..cpu import gapped as cg
from ..cpu.relay import rows_region, same_state
from . import wait


#: band buffers tried by the inspector (cells per anti-diagonal held in shared memory)
BANDS = (512, 2048)
#: the warp kernels fit an anti-diagonal of at most band - WARP_SLACK cells (WARP_SLACK in
#: ``cuda/gapped.cu``), so that ``ydrop16`` holds its pairs in rows of band / 2 words
WARP_SLACK = 4
#: anti-diagonals an inspector side may run before it is left to the host
DCAP = 1 << 14
#: threads of the block that extends one side in a round (``ydrop_wide``; 384 measured best on the
#: H200, against 256, 512 and 1024: sides in a round are a few hundred cells wide)
WIDE_THREADS = 384
#: threads of the block that runs one relay chunk (``ydrop_chunk``; a chunk of 74k anti-diagonals, about
#: 120 cells wide, took 50 ms with 128 against 58, 54, 68 and 95 ms with 384, 256, 64 and 32, H200)
CHUNK_THREADS = 128
#: a relayed side's traceback runs on the device, over its chunks' bytes left there (kernels
#: ``relay_walk_ahead`` and ``relay_walk_join``), instead of copying the bytes to the host (240 MB
#: for E. coli's 2 Mb side, which held up the walk's start)
RELAY_DEVICE_TRACE = True
#: a relay launch's results come back with one wait, and so does a run of pieces' traceback with the
#: side's region (its rows copied beside the traceback of the run that holds the side's best cell):
#: each wait is for a device shared with the batch's other chunks and the waves, where a long side's
#: traceback and region waited 20-30 ms each in a timeline of E. coli's first long batch
RELAY_ONE_WAIT = True
#: a relay launch's bytes are packed into a buffer of their size before the traceback (DeviceRunner._packed_bytes),
#: so the batch's share gets the rest of the rooms back at once
RELAY_PACK = True
#: the packing is done by the launch's table kernel (``relay_tables``), not by a copy per chunk: in a
#: timeline of E. coli's first long batch the 2 Mb side's 64 copies took 46-64 ms, each a wait for a
#: device that ~1,300 chunk blocks shared
RELAY_PACK_IN_TABLE = True
#: a relay chunk's room for traceback bytes, per anti-diagonal: RELAY_ROOM times the side's known width
#: plus 64, at most the band (0: the band). A chunk writes its live cells only, about the width, and
#: one whose cells outgrow the room is a missed speculation; with rooms of the band (four times the
#: width on E. coli) the first long batch's 16 sides asked 19 GB at once, and the last to ask got 1
#: chunk of 64 (cpu/relay then ran its round's pieces on the host's lead)
RELAY_ROOM = 2
#: anti-diagonals of a stretch walked ahead by one thread, and how far above it the walk starts (E. coli's
#: 2 Mb side: 4,000 threads of 768 steps each, then 4,000 joins; 2048 and 1024 took 0.601 s a pair against
#: 0.571 s in an A/B, where the side's traceback took 40-90 ms beside the batch's other chunks)
RELAY_STRETCH = 512
RELAY_ABOVE = 256
#: the largest band buffer tried by ``ydrop_wide`` (smaller where shared memory is short)
WIDE_BAND = 1 << 13
#: bytes of the substitution matrix at the base of the y-drop kernels' dynamic shared memory (64 ints,
#: rows of 8: MAT_INTS in ``cuda/gapped.cu``), before their rows of the band
MAT_BYTES = 256
#: the waves' inspector in 16-bit pairs (kernel ``ydrop16``, Hopper's DPX instructions) where the
#: scores fit it (:func:`fits16`); ``ydrop`` otherwise, and always for the rounds and the relay's chunks
PAIRS16 = True
#: the sides a warp of the waves' inspector (``ydrop16``) takes before its block ends, and of their executor
#: (``exec16``); 0: until the launch's queue is empty, a grid that fills the device once. A started block
#: keeps its multiprocessor whatever the streams' priorities, so with a grid that fills the device once
#: a wave's executor and walk back (a stream of a higher priority, ``gapped.EXEC_PRIORITY``), a round or
#: a relay launch waited for the whole of another wave's inspection; with a quota the inspector's blocks
#: end as they go, and the waiting blocks of a higher priority start at the first that ends
INSPECT_QUOTA = 1
EXEC_QUOTA = 0
#: the waves' executor in 16-bit pairs too (kernel ``exec16``, ydrop's mode 1 in warps) where the inspector
#: runs in them; the long chains in blocks of their own stay ``ydrop_wide``
EXEC16 = True
#: the wall grid's blocks (kernel ``wall_grid_mark``; ``ydrop16`` and ``exec16`` sweep a stretch of 512
#: anti-diagonals whose cells reach no marked block with no wall reads): 2**GRID_SHIFT target rows by as
#: many query positions, coarser where the grid would pass GRID_BITS bits
GRID_SHIFT = 12
GRID_BITS = 1 << 26
#: the blocks' kernels (``ydrop_wide``, ``ydrop_chunk``: rounds, relay chunks, the executor's long chains)
#: read the wall grid too: a task whose reach, up to its stop or cap, holds no marked block runs a build
#: with no wall reads (as the warp kernels in 16-bit pairs do)
WIDE_GRID = True
#: the executor's warps take their tasks longest first (anti-diagonals up to the best plus the warp's
#: steps over their cells), so the longest chains start first
EXEC_LONGEST_FIRST = True
#: an executor task of at least EXEC_WIDE_STEPS such steps whose anti-diagonals are at least
#: EXEC_WIDE_WIDTH cells wide on average runs in a block of its own (``ydrop_wide``, on a stream beside
#: the warps): a wave's few sides of thousands of anti-diagonals some 300 cells wide are chains that one
#: warp sweeps in ten steps each, and ran on for 10 ms after the rest of the wave (E. coli's first wave of
#: 4,096 anchors: 18.5 ms, the 16 longest alone 21.3 ms in warps and 4.7 ms in blocks)
EXEC_WIDE_STEPS = 1 << 14
EXEC_WIDE_WIDTH = 64
#: blocks per side that pack a wide round's tracebacks for the copy to the host
PACK_BLOCKS = 16
#: a route's header in ydrop_trace's routes (kernel_twin.side_routes): the cell where it meets the path
#: (anti-diagonal, i, state) and its columns' count, four little-endian int32
ROUTE_HEAD = 16
#: a side's room for its routes, a byte per best anti-diagonal times ROUTE_ROOM_PER_AD and ROUTE_ROOM_EXTRA
#: bytes more (route_room): it holds the anti-diagonals of the records off the path (4 bytes each, at most one
#: an anti-diagonal) beside the routes; only its bytes written come back (kernel pack_rooms)
ROUTE_ROOM_PER_AD = 5
ROUTE_ROOM_EXTRA = 1024
#: ints of a relay chunk's state header (kernel ydrop_chunk's dump; its rows follow, band + 2 ints each)
DUMP_HEAD = 16
#: cells per row of a side's rows kept at its best cell (kernel's dump_w; wider ones are not kept),
#: and the most sides whose rows the device keeps (two waves of 4,096 anchors; at most 1 / KEEP_SHARE of the budget)
KEEP_W = 512
KEEP_SLOTS = 1 << 14
KEEP_SHARE = 8
#: copies of the walls (32 bytes a target base) for waves beside the walk (DeviceRunner.snapshots): at most
#: SNAPSHOTS, and at least one, within SNAPSHOT_BYTES
SNAPSHOTS = 2
SNAPSHOT_BYTES = 1 << 30
# inspector result columns (cuda/gapped.cu)
#   R_IMAX, R_JMAX, R_KMIN, R_KMAX: the region explored up to the best anti-diagonal (query and
#   target reach, diagonal range; all of it for an abandoned side, R_STATUS 2); R_DIAGS: the
#   anti-diagonals computed; R_STOPPED: a round's side stopped at its stale best (result final)
R_BEST, R_BI, R_BJ, R_CELLS, R_CAB, R_IMAX, R_JMAX, R_KMIN, R_KMAX, R_STATUS, R_DIAGS, R_TRACED, R_STOPPED = range(13)
R_N = 13
#: pinned host buffers of DeviceRunner._to_host, per thread (and per device and use inside)
_PINNED = threading.local()
#: free pinned bytes the relay's block pool keeps for later batches and pairs (_HostBlocks)
HOST_BLOCKS_KEEP = 1 << 31
#: the host's walls live in pinned memory kept between calls (_PinnedArrays) up to this size; larger
#: ones are ordinary memory, uploaded through a pinned copy
HOST_WALLS_KEEP = 1 << 30
#: pinned walls go to the device span by span, spans less than this many rows apart in one copy
WALL_COPY_GAP = 1 << 15
#: walls given back are zeroed again on a thread of their own, and the next take waits for it: for two
#: strains the rows written are the whole target (148 MB for E. coli), about 15 ms of memory writes
#: that otherwise end the strand's gapped stage (False: zeroed in give_walls)
ZERO_BESIDE = True
#: free pinned bytes kept for the host's stores of rows at the best (one per strand, DeviceRunner.host_kept)
HOST_KEPT_KEEP = 1 << 30


def _exec_steps(dstop, tbb, tb_total):
    """A warp's steps for each executor task: its anti-diagonals plus 32-cell steps over its cells.

    The cells are the gaps between consecutive traceback bases ``tbb`` (the
    last one up to ``tb_total``); the executor's queue takes the tasks in
    decreasing order of this, so its longest chains start first.
    """
    tbb = np.asarray(tbb, dtype=np.int64)
    cells = np.diff(np.append(tbb, np.int64(tb_total)))
    return np.asarray(dstop, dtype=np.int64) + cells // 32


def _exec_order(band, dstop, tbb, tb_total, wide):
    """The executor's launch order and which tasks run in a block of their own.

    Returns ``(order, lone)``: the tasks by band, in each band first those
    that run in blocks (``lone``: at least :data:`EXEC_WIDE_STEPS` warp
    steps, anti-diagonals at least :data:`EXEC_WIDE_WIDTH` cells wide on
    average; none where every task runs in a block already, ``wide``), then
    the others longest first (:data:`EXEC_LONGEST_FIRST`; else as given).
    """
    dstop = np.asarray(dstop, dtype=np.int64)
    steps = _exec_steps(dstop, tbb, tb_total)
    lone = np.zeros(len(dstop), dtype=bool)
    if not wide and EXEC_WIDE_STEPS:
        cells = steps - dstop     # a warp's steps over the cells
        lone = (steps >= EXEC_WIDE_STEPS) & (32 * cells >= EXEC_WIDE_WIDTH * dstop)
    first = -steps if EXEC_LONGEST_FIRST else np.arange(len(dstop))
    return np.lexsort((first, ~lone, np.asarray(band))), lone


#: int64 entries of an execution's upload holding zeros for its warp launches' task queues (two int32 each)
EXEC_QUEUES = 8
#: an execution's host work before its launches in one compiled call writing one upload (:func:`_exec_plan`):
#: the tables as contiguous runs of it, so that no launch needs a copy on the device first (False: numpy,
#: a table copied per column, for the A/B)
EXEC_PLAN = True


def _exec_layout(n, routes):
    """Offsets in an execution's upload (:func:`_exec_plan`): the tables in the tasks' order (tasks, tbb, adb,
    bi, bj, obase), in launch order (tasks, tbb, adb, dstop, slots), the routes' bases, the queues; and its size."""
    at = {"tasks": 0, "tbb": 9 * n, "adb": 10 * n, "bi": 11 * n, "bj": 12 * n, "obase": 13 * n,
          "o_tasks": 14 * n, "o_tbb": 23 * n, "o_adb": 24 * n, "o_dstop": 25 * n, "o_slots": 26 * n,
          "rbase": 28 * n}
    at["queues"] = at["rbase"] + (n + 1 if routes else 0)
    return at, at["queues"] + EXEC_QUEUES


@njit(cache=True, nogil=True)
def _exec_plan(out, tasks, band, dstop, tbb, adb, bi, bj, keep, tb_total, wide, longest_first, wide_steps,
               wide_width, routes, per_ad, extra):
    """An execution's host tables, written into ``out`` in :func:`_exec_layout`'s layout, in one call.

    The same order and lone tasks as :func:`_exec_order` (band, then the lone
    ones, then longest first; stable), the same bases as
    :meth:`DeviceRunner._exec_tables_numpy` computes with numpy, and the routes' room
    (:func:`route_room`). Returns ``(order, parts)``: the launch order and per
    launch its first and last row in it, band and whether it runs in blocks.
    """
    n = dstop.shape[0]
    steps = np.empty(n, np.int64)
    for x in range(n):
        end = tbb[x + 1] if x + 1 < n else tb_total
        steps[x] = dstop[x] + (end - tbb[x]) // 32
    lone = np.zeros(n, np.bool_)
    if not wide and wide_steps > 0:
        for x in range(n):
            lone[x] = steps[x] >= wide_steps and 32 * (steps[x] - dstop[x]) >= wide_width * dstop[x]
    first = np.empty(n, np.int64)
    for x in range(n):
        first[x] = -steps[x] if longest_first else x
    o1 = np.argsort(first, kind="mergesort")
    key = np.empty(n, np.int64)
    for y in range(n):
        x = o1[y]
        key[y] = 2 * band[x] + (0 if lone[x] else 1)
    order = o1[np.argsort(key, kind="mergesort")]
    # the tables in the tasks' order, for the walk back
    obase = 0
    for x in range(n):
        for c in range(9):
            out[9 * x + c] = tasks[x, c]
        out[9 * n + x] = tbb[x]
        out[10 * n + x] = adb[x]
        out[11 * n + x] = bi[x]
        out[12 * n + x] = bj[x]
        out[13 * n + x] = obase
        obase += bi[x] + bj[x]
    # in launch order, for the executor's launches
    for y in range(n):
        x = order[y]
        for c in range(9):
            out[14 * n + 9 * y + c] = tasks[x, c]
        out[23 * n + y] = tbb[x]
        out[24 * n + y] = adb[x]
        out[25 * n + y] = dstop[x]
        out[26 * n + 2 * y] = keep[x]
        out[26 * n + 2 * y + 1] = -1
    q = 28 * n
    if routes:
        out[q] = 0
        for x in range(n):
            out[q + x + 1] = out[q + x] + per_ad * (bi[x] + bj[x]) + extra
        q += n + 1
    for k in range(q, out.shape[0]):
        out[k] = 0
    # the launches: runs of one band, its lone tasks (in blocks) first
    parts = np.empty((2 * n + 1, 4), np.int64)
    m = 0
    y = 0
    while y < n:
        b, blk = band[order[y]], lone[order[y]]
        z = y
        while z < n and band[order[z]] == b and lone[order[z]] == blk:
            z += 1
        parts[m, 0], parts[m, 1], parts[m, 2], parts[m, 3] = y, z, b, 1 if blk else 0
        m += 1
        y = z
    return order, parts[:m]


@njit(cache=True, nogil=True)
def _slot_columns(out, obase, size, lens):
    """Each task's columns from the end of its slot (``ydrop_trace``'s layout), as one flat array, and the counts."""
    flat = np.empty(lens.sum(), dtype=np.uint8)
    at = 0
    for x in range(lens.shape[0]):
        end = obase[x] + size[x]
        flat[at:at + lens[x]] = out[end - lens[x]:end]
        at += lens[x]
    return flat, lens


def route_room(bi, bj):
    """Bytes of routes each side of an executor batch may write (``ydrop_trace``, kernel_twin.side_routes; past
    them, none): :data:`ROUTE_ROOM_PER_AD` a best anti-diagonal and :data:`ROUTE_ROOM_EXTRA`."""
    return ROUTE_ROOM_PER_AD * (np.asarray(bi, dtype=np.int64) + np.asarray(bj, dtype=np.int64)) + ROUTE_ROOM_EXTRA


def _pack_dumps(dumps):
    """Kernel dumps of rows at the best (one per row of ``dumps``), packed as :meth:`DeviceRunner.kept_rows` packs them.

    A dump is a header and four rows of :data:`KEEP_W` + 2 ints; only the
    header and each row's first ``dump[11]`` ints are kept. Returns the
    packed ints and where each dump starts in them (-1 where the header
    says none was kept, ``d`` below 1).
    """
    stride = KEEP_W + 2
    dumps = np.asarray(dumps, dtype=np.int32).reshape(len(dumps), -1)
    size = np.where(dumps[:, 0] >= 1, DUMP_HEAD + 4 * dumps[:, 11].astype(np.int64), 0)
    at = np.cumsum(size) - size
    flat = np.empty(int(size.sum()), dtype=np.int32)
    for k in np.flatnonzero(size):
        n, a = int(dumps[k, 11]), int(at[k])
        flat[a:a + DUMP_HEAD] = dumps[k, :DUMP_HEAD]
        for r in range(4):
            flat[a + DUMP_HEAD + r * n:a + DUMP_HEAD + (r + 1) * n] = \
                dumps[k, DUMP_HEAD + r * stride:DUMP_HEAD + r * stride + n]
    return flat, np.where(size > 0, at, -1)



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
        if not 0 < self.msize <= 8 or matrix.shape[0] != self.msize:
            raise ValueError(f"the GPU kernels take substitution matrices up to 8 x 8, not {matrix.shape}")
        self.gap_open, self.gap_ext, self.ydrop = int(gap_open), int(gap_ext), int(ydrop)
        self.nslot = int(wall_slots)
        self.pairs16 = fits16(matrix, self.gap_open, self.gap_ext, self.ydrop) and self.nslot == 4
        # the wall grid (GRID_SHIFT): blocks that hold a wall set so far, for ydrop16
        self.grid_shift, self.grid_cols, words = grid_shape(len(t) + 1, len(q) + 1)
        self.wall_grid = cp.zeros(words, dtype=cp.uint32)
        self.walls = cp.zeros((len(t) + 1, wall_slots, 2), dtype=cp.int32)
        #: slots for sides' rows at their best (the kernel's keep and stale slots; allocated at first
        #: use, out of the budget), and the rest of the budget, for tracebacks
        self.keep_slots = keep_slots(mem)
        self._arena = None
        self.mem = mem - self.keep_slots * 4 * _keep_stride()
        # a copy of the walls for a wave speculated beside the walk (background), and which walls this
        # thread's launches read
        self.device_id = cp.cuda.Device().id
        #: copies of the walls for waves speculated beside the walk: several where they are small enough,
        #: so that the next wave starts before the one the walk waits for has finished (gapped.EARLY_WAVES)
        self.snapshots = int(max(1, min(SNAPSHOTS, SNAPSHOT_BYTES // max(self.walls.nbytes, 1))))
        self._walls_bg = [None] * self.snapshots
        self._snap_turn = 0
        self._tl = threading.local()
        self.launches = 0
        self.band_retries = 0
        # stand-ins for the buffers a mode does not use (allocated once: a round's launches are short)
        self._z = cp.zeros(1, dtype=cp.int64)
        self._zb = cp.zeros(1, dtype=cp.uint8)
        self._zi = cp.zeros(1, dtype=cp.int32)
        self._kernels = {}                  # (band, wide) -> kernel and launch shape (_kernel)
        from ..cuda import get_kernel
        self._pack = get_kernel("gapped", "ydrop_pack")
        self._trace = get_kernel("gapped", "ydrop_trace")
        self._rows_pack = get_kernel("gapped", "rows_pack")
        self._pack_rooms = get_kernel("gapped", "pack_rooms")
        self._walk_ahead = get_kernel("gapped", "relay_walk_ahead")
        self._walk_join = get_kernel("gapped", "relay_walk_join")
        self._relay_tables = get_kernel("gapped", "relay_tables")
        self._grid_mark = get_kernel("gapped", "wall_grid_mark")
        optin = cp.cuda.Device().attributes["MaxSharedMemoryPerBlockOptin"]
        self.wide_band = WIDE_BAND
        while self.wide_band > BANDS[-1] and 28 * self.wide_band + 2048 > optin:
            self.wide_band //= 2

    def host_walls(self):
        """The host's walls for this runner's target, all zero: pinned memory kept between calls.

        Give them back with :meth:`give_walls`. Pinned, an upload goes
        straight from them (:meth:`set_walls`), and their pages are in place:
        the first write of a fresh page cost 0.7 µs on the device's host
        (a megabase alignment's walls touch tens of thousands). Walls larger
        than :data:`HOST_WALLS_KEEP` are ordinary memory.
        """
        shape = self.walls.shape
        if self.walls.nbytes > HOST_WALLS_KEEP:
            return np.zeros(shape, dtype=np.int32)
        return _WALLS.take(self.cp, shape)

    def give_walls(self, walls, spans):
        """Walls of :meth:`host_walls` back for a later call; ``spans``: the rows written (all else is zero)."""
        if _WALLS.owns(walls):
            _WALLS.give(walls, spans)

    def set_walls(self, walls, spans):
        """Copy the host's wall rows ``[start, stop)`` of each span to the device, and mark their walls'
        blocks in the wall grid (after the copy, on the same stream). See :meth:`_upload_walls`."""
        self._upload_walls(walls, spans)
        if self.pairs16 and len(spans):
            first, stop = int(spans[0, 0]), int(spans[-1, 1])
            n = stop - first
            self._grid_mark(((n + 255) // 256,), (256,),
                            (self.walls, np.int64(first), np.int64(stop), np.int32(self.grid_shift),
                             np.int32(self.grid_cols), np.int32(len(self.q)), self.wall_grid))

    def _upload_walls(self, walls, spans):
        """Copy the host's wall rows ``[start, stop)`` of each span to the device.

        Walls of :meth:`host_walls` go straight from their pinned memory,
        all the rows from the first span to the last in one copy, waited for
        (the walk writes them next). Other walls go through a pinned copy
        without waiting: all those rows where the spans cover half of them or
        more, else the rows and their index, and one scatter on the runner's
        stream, so the host goes on to the launch that reads them (pageable
        copies waited for the stream, which the other strand's kernels share
        the GPU with).
        """
        size = spans[:, 1] - spans[:, 0]
        first, stop = int(spans[0, 0]), int(spans[-1, 1])
        if _WALLS.owns(walls):
            # straight from pinned memory, the spans joined where they lie less than WALL_COPY_GAP rows
            # apart: all the rows between took 2.7-3 ms a wave (142 MB for E. coli, most of it unchanged),
            # where gathering 722,000 rows took 19 ms
            for lo, hi in _joined_spans(spans, WALL_COPY_GAP):
                part = walls[lo:hi]
                self.walls[lo:hi].data.copy_from_host_async(part.ctypes.data, part.nbytes)
            wait()
            return
        if stop - first <= 2 * int(size.sum()):
            # dense (after a wave's walk, most of the genome): the rows between as they are, no index
            self.walls[first:stop] = self._to_device(walls[first:stop], "wall_values")
            return
        total = int(size.sum())
        rows = self._pinned((total,), np.int64, "wall_rows")
        values = self._pinned((total,) + walls.shape[1:], walls.dtype, "wall_values")
        _gather_rows(walls.reshape(len(walls), -1), spans, rows, values.reshape(total, -1))
        self.walls[self._upload(rows)] = self._upload(values)

    def _walls_now(self):
        """The walls this thread's launches read (:meth:`background`)."""
        walls = getattr(self._tl, "walls", None)
        return self.walls if walls is None else walls

    def snapshot_walls(self):
        """Copy the walls as they stand (after the uploads queued so far) for a background wave.

        Returns the token :meth:`background` takes: the event the
        background's stream waits for and the copy. The copies take turns
        (:attr:`snapshots` of them): a copy is taken again only after the
        wave that read it :attr:`snapshots` waves before has finished.
        """
        buf = self._walls_bg[self._snap_turn % self.snapshots]
        if buf is None:
            buf = self._walls_bg[self._snap_turn % self.snapshots] = self.cp.empty_like(self.walls)
        self._snap_turn += 1
        buf[...] = self.walls
        return self.cp.cuda.get_current_stream().record(), buf

    @contextlib.contextmanager
    def background(self, token):
        """Launches of the calling thread (another than the walk's) on a stream of their own, after
        the event of ``token``, reading the walls of :meth:`snapshot_walls`: the walk's rounds upload walls meanwhile.
        The stream has the least priority: the walk's rounds and long sides wait on theirs."""
        from . import own_stream
        ready, walls = token
        with own_stream(self.device_id, urgent=False) as stream:
            stream.wait_event(ready)
            self._tl.walls = walls
            try:
                yield
            finally:
                self._tl.walls = None

    def _kernel(self, band, wide, name16=None):
        """The kernel, its tasks per block and threads per block, and its dynamic shared memory.

        ``name16``: a warp kernel in 16-bit pairs (``ydrop16`` or
        ``exec16``; ydrop's launch, with rows of half the bytes).

        Memoised per runner: a pair makes thousands of short launches, and
        looking the kernel up and setting its shared-memory limit took
        ~0.3 ms each time in a profile.
        """
        got = self._kernels.get((band, wide, name16))
        if got is None:
            from ..cuda import get_kernel
            k = get_kernel("gapped", "ydrop_chunk" if wide == "chunk" else "ydrop_wide" if wide else
                           name16 or "ydrop")
            # the largest limit any shape asks for (the kernel object is shared by threads and runners):
            # the block's opt-in maximum less the kernel's static shared memory
            attributes = self.cp.cuda.Device().attributes
            k.max_dynamic_shared_size_bytes = attributes["MaxSharedMemoryPerBlockOptin"] - k.shared_size_bytes
            per_warp = 7 * (2 if name16 else 4) * band   # 7 rows of band ints, or of band / 2 words of pairs
            tpb, grid = (1, 0) if wide else _warp_shape(k, per_warp, attributes)
            smem = MAT_BYTES + tpb * per_warp
            threads = CHUNK_THREADS if wide == "chunk" else WIDE_THREADS if wide else 32 * tpb
            got = self._kernels[(band, wide, name16)] = (k, tpb, threads, smem, grid)
        return got

    def _launch(self, tasks, mode, band, wide, res=None, dstop=None, tbb=None, adb=None, tb=None, tb_lo=None,
                tb_off=None, dump_at=None, dump=None, slots=None, pairs16=None, dcap=None, tb_rec=None, queue=None):
        """Launch a y-drop kernel on ``tasks`` in ``mode`` (``pairs16``: None, the warp kernels in 16-bit
        pairs where they apply, the inspector and the executor; False, never). ``dcap``: the anti-diagonals
        past which a side is abandoned (default: :data:`DCAP` for warps, none for blocks). ``queue``: the warps'
        task counter, one int32 zero on the device (default: a new one)."""
        cp = self.cp
        warp16 = PAIRS16 and pairs16 is not False and self.pairs16 and not wide
        name16 = None
        if warp16 and mode == 0 and slots is None:
            name16 = "ydrop16"
        elif warp16 and mode == 1 and EXEC16:
            name16 = "exec16"
        k, tpb, threads, smem, grid = self._kernel(band, wide, name16)
        n = int(tasks.shape[0])
        z, zb, zi = self._z, self._zb, self._zi
        dump_w = 0
        if slots is not None:
            if self._arena is None:
                self._arena = cp.empty(self.keep_slots * _keep_stride(), dtype=cp.int32)
            dump, dump_w = self._arena, KEEP_W
        args = (self.t, self.q, tasks, np.int32(n), self.matrix, np.int32(self.msize), np.int32(self.gap_open),
                np.int32(self.gap_ext), np.int32(self.ydrop), self._walls_now(), np.int32(self.nslot), np.int32(band),
                np.int32(mode), np.int32(dcap if dcap is not None else (1 << 30) if wide else DCAP),
                res if res is not None else z,
                dstop if dstop is not None else z,
                tbb if tbb is not None else z, adb if adb is not None else z, tb if tb is not None else zb,
                tb_lo if tb_lo is not None else zi, tb_off if tb_off is not None else z,
                tb_rec if tb_rec is not None else np.uint64(0), dump_at if dump_at is not None else z,
                slots if slots is not None else z,
                dump if dump is not None else zi, np.int32(dump_w))
        blocks = (n + tpb - 1) // tpb
        quota = (INSPECT_QUOTA if name16 == "ydrop16" else EXEC_QUOTA) if name16 else 0
        if not wide:
            # the warps take tasks from a queue: at most enough blocks to fill the device once, or with a
            # quota blocks for every task, each warp ending after its quota
            args += (queue if queue is not None else cp.zeros(1, dtype=cp.int32),)
            blocks = warp_blocks(n, tpb, grid, quota)
        if name16:
            args += (self.wall_grid, np.int32(self.grid_shift), np.int32(self.grid_cols), np.int32(len(self.q)),
                     np.int32(quota))
        elif wide:
            grid_on = WIDE_GRID and self.pairs16   # the grid is kept (set_walls) where the pairs are
            args += (self.wall_grid if grid_on else np.uint64(0), np.int32(self.grid_shift), np.int32(self.grid_cols),
                     np.int32(len(self.q)))
        k((blocks,), (threads,), args, shared_mem=smem)
        self.launches += 1

    def inspect(self, tasks, wide=False, dcap=None):
        """Inspector results (ntasks, R_N) and the band each task fitted (0: none, or abandoned).

        ``wide``: one block per task, no anti-diagonal cap (unless ``dcap``), the wide band (a round).
        """
        cp = self.cp
        tasks = np.ascontiguousarray(tasks, dtype=np.int64)
        d_tasks = self._to_device(tasks, "tasks")
        res = cp.empty((len(tasks), R_N), dtype=cp.int64)
        bands = (self.wide_band,) if wide else BANDS
        self._launch(d_tasks, 0, bands[0], wide, res=res, dcap=dcap)
        out = self._to_host(res, "res").copy()
        band = np.full(len(tasks), bands[0], dtype=np.int64)
        for b in bands[1:]:
            over = np.flatnonzero(out[:, R_STATUS] == 1)
            if not len(over):
                break
            self.band_retries += len(over)
            sub = self._to_device(tasks[over], "tasks")
            r2 = cp.empty((len(over), R_N), dtype=cp.int64)
            self._launch(sub, 0, b, wide, res=r2, dcap=dcap)
            out[over] = self._to_host(r2, "res")
            band[over] = b
        band[out[:, R_STATUS] != 0] = 0
        return out, band

    def inspect_traced(self, tasks, tb_room, ad_room, slots=None, dcap=None, routes=True):
        """A wide round in one launch: inspector results, bands, and the tracebacks that fitted.

        Task x may write ``tb_room[x]`` traceback bytes and ``ad_room[x]``
        anti-diagonal rows (kernel mode 2); ``ydrop_pack`` then packs the
        tracebacks up to the best cells, so one copy brings them back.
        ``slots`` (ntasks, 2): the slot where each task keeps its rows at its
        best, and the slot of its stale run's (-1: none), :class:`~gpukernels.gpu.kept_rows.KeptRows`.
        ``dcap``: the anti-diagonals past which a side is abandoned (none by default).
        Returns ``(res, band, (tb, tb_lo, tb_off, tbb, adb, rec))``: the packed
        tracebacks and where each task's starts (:func:`_packed_bases`; valid
        where ``res[x, R_TRACED]`` and the best cell is past the origin), and
        with ``routes`` each row's record (where the best rose, for
        :func:`~gpukernels.gpu.kernel_twin.routes_batch`; else None).
        ``tb`` is a view of pinned memory, valid until the runner's next call.
        """
        cp = self.cp
        n = len(tasks)
        tbb = np.concatenate([[0], np.cumsum(_up16(np.asarray(tb_room, dtype=np.int64)))]).astype(np.int64)
        adb = np.concatenate([[0], np.cumsum(ad_room)]).astype(np.int64)
        res = cp.empty((n, R_N), dtype=cp.int64)
        # tasks, both bases and the slots in one copy (each copy of a few bytes costs tens of microseconds)
        use = slots is not None and self.keep_slots > 0
        slots = np.asarray(slots if use else np.zeros((0, 2)), dtype=np.int64).ravel()
        d_in = self._to_device(np.concatenate([np.ascontiguousarray(tasks, dtype=np.int64).ravel(), tbb, adb,
                                               slots]), "tasks")
        d_tasks, d_tbb, d_adb = d_in[:9 * n].reshape(n, 9), d_in[9 * n:10 * n + 1], d_in[10 * n + 1:11 * n + 2]
        d_slots = d_in[11 * n + 2:] if use else None
        tb = cp.empty(max(int(tbb[-1]), 1), dtype=cp.uint8)
        tb_lo = cp.empty(max(int(adb[-1]), 1), dtype=cp.int32)
        tb_off = cp.empty(max(int(adb[-1]), 1), dtype=cp.int64)
        tb_rec = cp.empty(max(int(adb[-1]), 1), dtype=cp.int32) if routes else None
        self._launch(d_tasks, 2, self.wide_band, True, res=res, tbb=d_tbb, adb=d_adb, tb=tb, tb_lo=tb_lo,
                     tb_off=tb_off, slots=d_slots, dcap=dcap, tb_rec=tb_rec)
        out_tb = cp.empty_like(tb)
        out_ad = cp.empty(2 * len(tb_off), dtype=cp.int64)
        out_rec = cp.empty(len(tb_off), dtype=cp.int32) if routes else None
        nul = np.uint64(0)
        self._pack((n, PACK_BLOCKS), (256,), (res, np.int32(n), d_tbb, d_adb, tb, tb_lo, tb_off, out_tb, out_ad,
                                               tb_rec if routes else nul, out_rec if routes else nul))
        self.launches += 1
        r = self._to_host(res, "res").copy()
        pos, apos = _packed_bases(r)
        h_tb = self._to_host(out_tb[:int(pos[-1])], "tb")
        h_ad = self._to_host(out_ad[:2 * int(apos[-1])], "ad").reshape(-1, 2)
        h_rec = self._to_host(out_rec[:int(apos[-1])], "rec").copy() if routes else None
        band = np.where(r[:, R_STATUS] == 0, self.wide_band, 0).astype(np.int64)
        return r, band, (h_tb, h_ad[:, 0].astype(np.int32), h_ad[:, 1].copy(), pos[:-1], apos[:-1], h_rec)

    def execute(self, tasks, band, dstop, tbb, adb, tb_total, ad_total, bi, bj, wide=False, keep=None, routes=True):
        """The columns of the tasks' paths to their best cells ``(bi, bj)``: one flat array, and each task's count;
        then the routes of their records off the paths, one flat array, and each task's bytes (-1: none).

        The executor writes each task's traceback bytes (mode 1, up to
        anti-diagonal ``dstop``) at ``tbb`` (``tb_total`` bytes in all) and
        its anti-diagonal rows at ``adb``; ``ydrop_trace`` then walks them
        back on the device, one thread per task, so only the columns come
        back. ``keep``: the slot where each task keeps its rows at its best
        (-1: none), :class:`~gpukernels.gpu.kept_rows.KeptRows`. ``routes``:
        the executor also notes where each best rose, and ``ydrop_trace``
        walks those cells off the path back to it
        (:func:`~gpukernels.gpu.kernel_twin.side_routes`, the walk's proof's witnesses).
        """
        cp = self.cp
        tb = cp.empty(max(tb_total, 1), dtype=cp.uint8)
        tb_lo = cp.empty(max(ad_total, 1), dtype=cp.int32)
        tb_off = cp.empty(max(ad_total, 1), dtype=cp.int64)
        tb_rec = cp.empty(max(ad_total, 1), dtype=cp.int32) if routes else None
        use = keep is not None and self.keep_slots > 0 and bool((np.asarray(keep) >= 0).any())
        n = len(tasks)
        size = np.asarray(bi, dtype=np.int64) + np.asarray(bj, dtype=np.int64)
        tables_of = self._exec_tables if EXEC_PLAN else self._exec_tables_numpy
        parts, lone_parts, tables, obase, room = tables_of(tasks, band, dstop, tbb, adb, bi, bj, keep if use else None,
                                                           tb_total, wide, routes)
        d_tasks, d_tbb, d_adb, d_bi, d_bj, d_obase, d_rbase = tables

        def launch(part, b, in_block, queue):
            p_tasks, p_dstop, p_tbb, p_adb, p_slots = part
            self._launch(p_tasks, 1, b, in_block, dstop=p_dstop, tbb=p_tbb, adb=p_adb, tb=tb, tb_lo=tb_lo,
                         tb_off=tb_off, slots=p_slots if use else None, tb_rec=tb_rec, queue=queue)

        if lone_parts:
            # the long chains on a stream of their own, beside the warps on the caller's
            from . import own_stream
            caller = cp.cuda.get_current_stream()
            ready = caller.record()
            with own_stream(self.device_id) as side:
                side.wait_event(ready)
                for part in lone_parts:
                    launch(*part)
                done = side.record()
                with caller:
                    for part in parts:
                        launch(*part)
            caller.wait_event(done)
        else:
            for part in parts:
                launch(*part)
        out = cp.empty(max(int(size.sum()), 1), dtype=cp.uint8)
        lens = cp.empty(n, dtype=cp.int64)
        nul = np.uint64(0)
        if routes:
            # side x's room: rbase[x] .. rbase[x + 1]
            rout = cp.empty(max(room, 1), dtype=cp.uint8)
            rlens = cp.empty(n, dtype=cp.int64)
            route_args = (tb_rec, d_rbase, rout, rlens)
        else:
            route_args = (nul, nul, nul, nul)
        self._trace(((n + 127) // 128,), (128,),
                    (np.int32(n), d_tasks, self.t, self.q, tb, tb_lo, tb_off, d_tbb, d_adb, d_bi, d_bj, d_obase, out,
                     lens) + route_args)
        self.launches += 1
        # _slot_columns copies the columns out of the pinned buffers before the next call reuses them
        h_lens = self._to_host(lens, "exec_lens")
        flat, counts = _slot_columns(self._to_host(out, "exec_out"), obase, size, h_lens.copy())
        if not routes:
            return flat, counts, np.zeros(0, dtype=np.uint8), np.full(n, -1, dtype=np.int64)
        h_rlens = self._to_host(rlens, "exec_rlens").copy()
        return flat, counts, self._packed_rooms(rout, d_rbase, h_rlens), h_rlens

    def _exec_tables(self, tasks, band, dstop, tbb, adb, bi, bj, keep, tb_total, wide, routes):
        """An execution's tables on the device, from one upload (:func:`_exec_plan`).

        Returns ``(parts, lone_parts, tables, obase, room)``: the warp
        launches and the launches in blocks of their own, each ``((tasks,
        dstop, tbb, adb, slots), band, in_block, queue)`` of contiguous device
        arrays; the walk back's tables ``(tasks, tbb, adb, bi, bj, obase,
        rbase)`` (rbase None without ``routes``); each task's column base on
        the host (a view of the pinned upload, valid until this thread's next
        execution); and the routes' bytes in all (0 without ``routes``).
        """
        cp = self.cp
        n = len(tasks)
        at, total = _exec_layout(n, routes)
        host = self._pinned((total,), np.int64, "exec")
        i64 = np.int64
        _, plan = _exec_plan(host, np.ascontiguousarray(tasks, dtype=i64).reshape(n, 9), np.asarray(band, dtype=i64),
                             np.asarray(dstop, dtype=i64), np.asarray(tbb, dtype=i64), np.asarray(adb, dtype=i64),
                             np.asarray(bi, dtype=i64), np.asarray(bj, dtype=i64),
                             np.asarray(keep if keep is not None else np.full(n, -1), dtype=i64), int(tb_total),
                             bool(wide), EXEC_LONGEST_FIRST, int(EXEC_WIDE_STEPS), int(EXEC_WIDE_WIDTH), bool(routes),
                             int(ROUTE_ROOM_PER_AD), int(ROUTE_ROOM_EXTRA))
        d = self._upload(host)

        def column(name):
            return d[at[name]:at[name] + n]
        tables = (d[:9 * n].reshape(n, 9), column("tbb"), column("adb"), column("bi"), column("bj"), column("obase"),
                  d[at["rbase"]:at["rbase"] + n + 1] if routes else None)
        queues = d[at["queues"]:].view(cp.int32)
        parts, lone_parts = [], []
        for k, (lo, hi, b, blk) in enumerate(plan):
            lo, hi = int(lo), int(hi)
            part = (d[at["o_tasks"] + 9 * lo:at["o_tasks"] + 9 * hi].reshape(hi - lo, 9),
                    d[at["o_dstop"] + lo:at["o_dstop"] + hi], d[at["o_tbb"] + lo:at["o_tbb"] + hi],
                    d[at["o_adb"] + lo:at["o_adb"] + hi],
                    d[at["o_slots"] + 2 * lo:at["o_slots"] + 2 * hi].reshape(-1, 2))
            if blk:
                lone_parts.append((part, int(b), True, None))
            else:
                parts.append((part, int(b), wide, queues[2 * k:2 * k + 1] if k < EXEC_QUEUES else None))
        room = int(host[at["rbase"] + n]) if routes else 0
        return parts, lone_parts, tables, host[at["obase"]:at["obase"] + n], room

    def _exec_tables_numpy(self, tasks, band, dstop, tbb, adb, bi, bj, keep, tb_total, wide, routes):
        """:meth:`_exec_tables` with numpy and a copy per table column on the device (the earlier form)."""
        cp = self.cp
        n = len(tasks)
        size = np.asarray(bi, dtype=np.int64) + np.asarray(bj, dtype=np.int64)
        obase = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
        order, lone = _exec_order(band, dstop, tbb, tb_total, wide)
        slots = np.stack([np.asarray(keep if keep is not None else np.full(n, -1), dtype=np.int64), np.full(n, -1)],
                         axis=1)
        cols = [np.ascontiguousarray(tasks, dtype=np.int64).reshape(n, 9), np.asarray(tbb, np.int64)[:, None],
                np.asarray(adb, np.int64)[:, None], np.asarray(dstop, np.int64)[:, None],
                np.asarray(bi, np.int64)[:, None], np.asarray(bj, np.int64)[:, None], obase[:, None], slots]
        table = np.concatenate(cols, axis=1)
        d_in = self._to_device(np.concatenate([table, table[order]]), "exec")
        by_band = d_in[n:]
        bands, starts = np.unique(np.asarray(band)[order], return_index=True)
        parts, lone_parts = [], []
        c = cp.ascontiguousarray

        def part(rows):
            return c(rows[:, :9]), c(rows[:, 11]), c(rows[:, 9]), c(rows[:, 10]), c(rows[:, 15:17])
        for b, lo, hi in zip(bands, starts, list(starts[1:]) + [n]):
            mid = lo + int(lone[order[lo:hi]].sum())
            if mid > lo:
                lone_parts.append((part(by_band[lo:mid]), int(b), True, None))
            if hi > mid:
                parts.append((part(by_band[mid:hi]), int(b), wide, None))
        rbase, room = None, 0
        if routes:
            rb = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(route_room(bi, bj), out=rb[1:])
            rbase, room = self._to_device(rb, "exec_rbase"), int(rb[-1])
        tables = (c(d_in[:n, :9]), c(d_in[:n, 9]), c(d_in[:n, 10]), c(d_in[:n, 12]), c(d_in[:n, 13]), c(d_in[:n, 14]),
                  rbase)
        return parts, lone_parts, tables, obase, room

    def _packed_rooms(self, buf, d_base, lens):
        """The bytes written at the front of each room of ``buf`` (room x from ``d_base[x]``, ``lens[x]`` bytes
        written, -1 for none), packed on the device and copied to the host as one flat array."""
        cp = self.cp
        used = np.maximum(lens, 0)
        at = np.zeros(len(lens) + 1, dtype=np.int64)
        np.cumsum(used, out=at[1:])
        total = int(at[-1])
        if not total:
            return np.zeros(0, dtype=np.uint8)
        packed = cp.empty(total, dtype=cp.uint8)
        self._pack_rooms((len(lens),), (128,), (buf, d_base, self._to_device(at, "rooms_at"), np.int32(len(lens)),
                                                packed))
        self.launches += 1
        return self._to_host(packed, "rooms_packed").copy()

    def kept_rows(self, slots, into=None):
        """The rows kept in ``slots``, packed on the device and copied to the host (:func:`_pack_dumps`'s result).

        Only each row's live width comes back (a slot holds rows of
        :data:`KEEP_W` + 2 ints, most of them unused): a wave keeps the rows
        of 8,192 sides. They are copied to the front of ``into`` (an int32
        host array, best pinned: the rows land where the caller keeps them,
        :meth:`host_kept`) where it is long enough, else to pinned memory of
        the runner's, a view valid until the next call.
        """
        cp = self.cp
        slots = np.asarray(slots, dtype=np.int64)
        d_slots = self._to_device(slots, "kept_slots")
        arena = self._arena.reshape(self.keep_slots, _keep_stride())
        head = self._to_host(arena[d_slots, :DUMP_HEAD], "kept_heads")
        size = np.where(head[:, 0] >= 1, DUMP_HEAD + 4 * head[:, 11].astype(np.int64), 0)
        at = np.where(size > 0, np.cumsum(size) - size, -1)
        total = int(size.sum())
        flat = cp.empty(max(total, 1), dtype=cp.int32)
        if len(slots):
            self._rows_pack((len(slots),), (128,), (self._arena, np.int32(KEEP_W), d_slots, np.int32(len(slots)),
                                                   self._to_device(at, "kept_at"), flat))
            self.launches += 1
        if into is not None and len(into) >= total:
            flat[:total].get(out=into[:total])
            return into[:total], at
        return self._to_host(flat[:total], "kept_rows"), at

    def host_kept(self, size):
        """An int32 host store of ``size`` ints for rows at the best: pinned memory kept between calls.

        Rows copied back into it (:meth:`kept_rows`'s ``into``) skip a copy
        on the host: a wave brings back about 40 MB of them. Give it back
        with :meth:`give_kept`.
        """
        return _KEPT.take(self.cp, (int(size),))

    def give_kept(self, store):
        """A store of :meth:`host_kept` back for a later call (any other array is left alone)."""
        if _KEPT.owns(store):
            _KEPT.give(store)

    def relay_share(self, total, sides, chunk_diags):
        """A :class:`RelayShare` of ``total`` bytes for ``sides`` relayed at once.

        Each side yet to ask keeps the room of one chunk of ``chunk_diags``
        anti-diagonals (warm-up included) at band 512.
        """
        return RelayShare(total, sides, _up16(int(chunk_diags) * 512))

    def no_walls(self):
        """Device walls with none set (for work that must see the walls of before the first keep), made once."""
        if getattr(self, "_no_walls", None) is None:
            self._no_walls = self.cp.zeros_like(self.walls)
        return self._no_walls

    def relay_launcher(self, task, width, mem, walls=None):
        """``cpu/relay.relay_side``'s ``chunks`` for the side ``task``, callable from any host thread.

        ``width``: the side's cells per anti-diagonal as far as it is known
        (its inspection's average); the chunks' band is chosen from it and
        the lead's. ``mem``: the bytes their tracebacks may take, or the
        :class:`RelayShare` of the batch's sides (they run at once). They run
        on a stream of their own that first waits for the caller's stream as
        it stands now (the walls just uploaded there), on the caller's device,
        with the runner's walls or ``walls`` (:meth:`no_walls`).
        """
        from . import own_stream
        cp = self.cp
        caller, device = cp.cuda.get_current_stream(), cp.cuda.Device().id
        held = []       # pinned blocks holding the chunks' traceback bytes, until release()
        on_device = []  # device buffers holding them instead (RELAY_DEVICE_TRACE), until release()
        calls = []

        def chunks(starts, lead_width):
            with own_stream(device) as stream:
                stream.wait_event(caller.record())
                calls.append(1)
                room = mem
                if not isinstance(mem, RelayShare):
                    room = max(int(mem) - sum(b.nbytes for b in on_device), 0)
                before = getattr(self._tl, "walls", None)
                if walls is not None:
                    self._tl.walls = walls
                try:
                    return self.relay_chunks(task, starts, max(int(width), int(lead_width)), room, held,
                                             first=len(calls) == 1, on_device=on_device)
                finally:
                    self._tl.walls = before

        def release():
            """The side is done with its chunks' bytes: their blocks go back for later calls."""
            with cp.cuda.Device(device):
                _BLOCKS.give(cp, held)
            if isinstance(mem, RelayShare):
                mem.give(sum(b.nbytes for b in on_device))
            held.clear()
            on_device.clear()
        chunks.release = release
        return chunks

    def relay_chunks(self, task, starts, width, mem, held=None, first=False, on_device=None):
        """Speculative chunks of one long side as blocks of one launch (kernel ``ydrop_chunk``).

        ``task`` is the side's task row (:func:`_tasks_of`); ``starts`` and
        ``width`` are what ``cpu/relay.relay_side`` passes its ``chunks``.
        A chunk starts from a single cell scoring 0, which is an extension's
        origin: the task moved to that cell. The band, and each chunk's room
        per anti-diagonal, is the smallest power of two from 512 on that
        holds three times ``width`` (a small band lets several blocks share
        a multiprocessor, and a chunk that outgrows it is only a missed
        speculation); its room, :data:`RELAY_ROOM` times ``width`` an
        anti-diagonal (at most the band: a chunk that outgrows it is missed
        too); as many run as their rooms fit in ``mem`` bytes, or as
        a :class:`RelayShare` grants (``first``: the side's first call).
        With :data:`RELAY_DEVICE_TRACE` and a list ``on_device``, the
        chunks' bytes stay on the device in a buffer appended to it (and
        held in the share until the launcher's release): the pieces' bytes
        are :class:`DevicePiece` objects, traced back there.
        Returns
        :func:`gpukernels.cpu.relay.speculative_chunk`'s result per chunk, in
        side coordinates, or None where the chunk ended before its check or
        outgrew its band or room (the relay then takes the true state there).
        """
        sts = np.asarray(starts, dtype=np.int64).reshape(-1, 4)
        band = 512
        while band < min(3 * int(width) + 64, self.wide_band):
            band *= 2
        ads = sts[:, 3] - sts[:, 1]
        per_diag = band if RELAY_ROOM <= 0 else min(band, RELAY_ROOM * int(width) + 64)
        room = _up16(ads * per_diag)
        if isinstance(mem, RelayShare):
            n = mem.take(room, first)
            kept = []
            try:
                return self._relay_chunks(task, sts[:n], band, room[:n], held, kept) + [None] * (len(sts) - n)
            finally:
                # the rooms come back; the bytes left on the device stay taken until the release
                mem.give(int(room[:n].sum()) - sum(b.nbytes for b in kept))
                if on_device is not None:
                    on_device.extend(kept)
        n = int(min(len(sts), max(int(mem) // max(int(room.max()), 1), 0)))
        kept = on_device if on_device is not None else []
        return self._relay_chunks(task, sts[:n], band, room[:n], held, kept) + [None] * (len(sts) - n)

    def _packed_bytes(self, tb, start, nbytes, copy=True):
        """The runs ``tb[start[x]:start[x] + nbytes[x]]`` end to end in a buffer of their own size.

        A relay launch's buffer holds each chunk's room (band cells per
        anti-diagonal, about four times what a chunk writes), and the bytes
        stay on the device until the side is traced back. Packed, the rest of
        the room goes back to the batch's share at once
        (:class:`RelayShare`), so a long side's next round gets its chunks
        while the batch's other sides are still tracing.

        Returns the buffer and each run's start in it (16-byte aligned).
        ``copy=False``: the buffer is left empty (the launch's table kernel
        fills it, :data:`RELAY_PACK_IN_TABLE`).
        """
        cp = self.cp
        sizes = _up16(np.asarray(nbytes, dtype=np.int64))
        at = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        out = cp.empty(max(int(sizes.sum()), 1), dtype=cp.uint8)
        if not copy:
            return out, at
        stream = cp.cuda.get_current_stream()
        for x in np.flatnonzero(nbytes):
            cp.cuda.runtime.memcpyAsync(out.data.ptr + int(at[x]), tb.data.ptr + int(start[x]), int(nbytes[x]),
                                        cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)
        # the traceback reads them from other streams (as it read the launch's buffer after the copies back)
        wait(stream)
        return out, at

    def _relay_chunks(self, task, sts, band, room, held, on_device):
        """:meth:`relay_chunks` for the chunks ``sts`` that run, each with its ``room`` of traceback bytes.

        ``on_device``: a list for the device buffer of the chunks' bytes
        (:data:`RELAY_DEVICE_TRACE`; else they come to the host)."""
        cp = self.cp
        n = len(sts)
        if n == 0:
            return []
        ads = sts[:, 3] - sts[:, 1]
        i0, s, d_check = sts[:, 0], sts[:, 1], sts[:, 2]
        j0 = s - i0
        # the side's task moved to each seed cell: letters, lengths, barrier and wall origins shift
        tasks = np.repeat(np.asarray(task, dtype=np.int64).reshape(1, 9), n, axis=0)
        tasks[:, 0] += tasks[:, 1] * j0
        tasks[:, 2] -= j0
        tasks[:, 3] += tasks[:, 4] * i0
        tasks[:, 5] -= i0
        tasks[:, 6] -= j0 - i0
        tasks[:, 7] += tasks[:, 4] * i0
        tasks[:, 8] += tasks[:, 1] * j0
        tbb = np.concatenate([[0], np.cumsum(room)]).astype(np.int64)
        adb = np.concatenate([[0], np.cumsum(ads + 2)]).astype(np.int64)
        d_in = self._to_device(np.concatenate([tasks.ravel(), ads, d_check - s, tbb, adb]), "chunks")
        d_tasks = d_in[:9 * n].reshape(n, 9)
        d_stop, d_at = d_in[9 * n:10 * n], d_in[10 * n:11 * n]
        d_tbb, d_adb = d_in[11 * n:12 * n + 1], d_in[12 * n + 1:]
        res = cp.empty((n, R_N), dtype=cp.int64)
        tb = cp.empty(max(int(tbb[-1]), 1), dtype=cp.uint8)
        tb_lo = cp.empty(int(adb[-1]), dtype=cp.int32)
        tb_off = cp.empty(int(adb[-1]), dtype=cp.int64)
        stride = DUMP_HEAD + 4 * (band + 2)
        dump = cp.empty(2 * n * stride, dtype=cp.int32)
        self._launch(d_tasks, 3, band, "chunk", res=res, dstop=d_stop, tbb=d_tbb, adb=d_adb, tb=tb, tb_lo=tb_lo,
                     tb_off=tb_off, dump_at=d_at, dump=dump)
        # copies back through pinned blocks of the shared pool, given back at the end of the call
        temp = []
        r = self._to_host(res, None, temp, blocking=not RELAY_ONE_WAIT)
        dumps = self._to_host(dump, None, temp).reshape(n, 2, stride)
        # valid: band held, the check reached, traced to the end (dump header: 0 d, 8 cells, 12 traced_to)
        keep = (r[:, R_STATUS] == 0) & (dumps[:, 0, 0] >= 0) & (dumps[:, 1, 12] >= dumps[:, 1, 0])
        first = d_check - s + 1                         # the chunks' own anti-diagonals after their check
        # each chunk's own bytes: from the cells swept by its check (where its first own anti-diagonal's
        # start), to its end
        base = np.where(keep & (first <= dumps[:, 1, 0]), dumps[:, 0, 8], dumps[:, 1, 8]).astype(np.int64)
        nbytes = np.where(keep, dumps[:, 1, 8] - base, 0).astype(np.int64)
        if RELAY_DEVICE_TRACE:
            # the bytes stay on the device for the traceback there (the launcher's release lets them go),
            # with the table of the chunks' own anti-diagonals that it reads
            pack = None
            if RELAY_PACK:
                own_at = tbb[:n] + base         # each chunk's own bytes in the launch's buffer
                packed, packed_at = self._packed_bytes(tb, own_at, nbytes, copy=not RELAY_PACK_IN_TABLE)
                byte0 = packed_at - base        # where each chunk's byte 0 would lie in the packed buffer
                if RELAY_PACK_IN_TABLE:
                    pack = (tb, own_at, packed, packed_at, nbytes)
                tb = packed
            else:
                byte0 = tbb
            table = _RelayTable(self, keep, d_check, first, dumps, adb, byte0, i0, tb_off, tb_lo, pack)
            on_device.append(tb)
        else:
            # in one pinned block on the host (``held``, given back by the launcher's release; pageable
            # copies ran at ~1.4 GB/s)
            h_lo, h_off = self._to_host(tb_lo, None, temp), self._to_host(tb_off, None, temp)
            at = np.concatenate([[0], np.cumsum(nbytes)])
            pinned = _BLOCKS.take(cp, int(nbytes.sum()))
            if held is not None:
                held.append(pinned)
            host_tb = np.ndarray((max(int(nbytes.sum()), 1),), dtype=np.uint8, buffer=pinned)
            for x in np.flatnonzero(nbytes):
                tb[int(tbb[x] + base[x]):int(tbb[x] + base[x] + nbytes[x])].get(out=host_tb[at[x]:at[x + 1]])
        out = []
        st, s_lo, s_wid, s_at, s_rows, same, frame = _chunk_states(dumps, i0, s, keep)

        def snap(x, k):
            w = int(s_wid[x, k])
            return None if w < 0 else (int(s_lo[x, k]), s_rows[s_at[x, k]:s_at[x, k] + 4 * w].reshape(4, w))
        for x in range(n):
            if not keep[x]:
                out.append(None)
                continue
            a = int(adb[x])
            last = int(dumps[x, 1, 0])
            f = int(first[x])
            if RELAY_DEVICE_TRACE:
                # the tables stay on the device too (the relay's pieces then hold None)
                piece, off, lo = DevicePiece(self, task, tb, int(byte0[x] + base[x]), table), None, None
            else:
                piece = host_tb[at[x]:at[x + 1]] if nbytes[x] else np.zeros(1, np.uint8)
                # the tables of the chunk's own anti-diagonals only, from d_check + 1 on
                off = h_off[a + f:a + last + 1] - base[x]
                lo = h_lo[a + f:a + last + 1].astype(np.int64) + i0[x]
            st_n = st[x, 1]
            st_n[cg.ST_NTB] = nbytes[x]
            # the hand-over from chunk x - 1, checked already (cpu/relay.relay_side asks it after x - 1 took over)
            handed = (bool(same[x]), int(frame[x])) if x > 0 and keep[x - 1] else None
            out.append(((st[x, 0], *snap(x, 0)), st_n, piece, off, lo, snap(x, 1), f + int(s[x]), handed))
        _BLOCKS.give(cp, temp)
        return out

    def relay_trace(self, task, pieces, i, j, state):
        """The traceback walk from cell ``(i, j)`` in ``state`` over a run of relay pieces whose bytes share a device buffer.

        ``task`` is the side's task row (its letters); ``pieces`` are
        ``cpu/relay``'s, consecutive along the side, their ``tb`` the
        :class:`DevicePiece` of one buffer. Kernels ``relay_walk_ahead``
        (stretches of :data:`RELAY_STRETCH` anti-diagonals walked at once)
        and ``relay_walk_join`` (the path's own walk, taking theirs where it
        meets them): :func:`gpukernels.cpu.relay.trace_split` on the device.
        Returns the columns (last first) and the cell and state where the
        walk left the pieces. With :data:`RELAY_ONE_WAIT`, the run's region
        for a side whose best cell is the walk's entry comes back with them
        (:meth:`_RelayTable.side_region` then returns it).
        """
        from ..cpu.relay import check_consecutive
        cp = self.cp
        d0 = int(pieces[0][3])
        if i + j < d0 or (i == 0 and j == 0):
            return np.zeros(0, dtype=np.uint8), i, j, state
        check_consecutive(pieces)
        table = pieces[0][0].table
        n_ad = int(i + j - d0 + 1)
        r0 = d0 - table.d_first
        t_off, t_lo, t_wid = table.off, table.lo, table.wid
        nst = (n_ad + RELAY_STRETCH - 1) // RELAY_STRETCH
        tk = np.asarray(task, dtype=np.int64)
        tstep, qstep = int(tk[1]), int(tk[4])
        letters = (self.t, self.q, np.int64(tk[0] - tstep), np.int64(tstep), np.int64(tk[3] - qstep), np.int64(qstep))
        entry = (np.int64(i), np.int64(j), np.int32(state))
        from . import own_stream
        with own_stream(self.device_id, top=True) as stream:
            buf = pieces[0][0].buf
            d_off, d_lo, d_wid = t_off[r0:r0 + n_ad], t_lo[r0:r0 + n_ad], t_wid[r0:r0 + n_ad]
            mark = cp.empty(n_ad, dtype=cp.int64)
            mark_n = cp.empty(n_ad, dtype=cp.int32)
            gops = cp.empty(nst * RELAY_STRETCH, dtype=cp.uint8)
            exits = cp.empty(5 * nst, dtype=cp.int64)
            segs = cp.empty(3 * nst, dtype=cp.int64)
            out = cp.empty(n_ad, dtype=cp.uint8)
            res = cp.empty(6, dtype=cp.int64)
            self._walk_ahead(((nst + 127) // 128,), (128,),
                             (np.int64(d0), np.int64(i + j), np.int32(RELAY_STRETCH), np.int32(RELAY_ABOVE),
                              np.int32(nst), buf, d_off, d_lo, d_wid, *letters, *entry, mark, mark_n, gops, exits))
            self._walk_join((1,), (256,), (np.int64(d0), np.int32(RELAY_STRETCH), buf, d_off, d_lo, *letters, *entry,
                                           mark, mark_n, gops, exits, segs, out, res))
            self.launches += 2
            if RELAY_ONE_WAIT:
                temp = []
                d_to, dbest = int(pieces[-1][4]), int(i + j)
                wid, lo = table.region_rows(d0, d_to, dbest)
                r, cols, wid, lo = (self._to_host(x, None, temp, blocking=False) for x in (res, out, wid, lo))
                wait(stream)
                r, cols = r.copy(), cols[:int(r[0])].copy()
                table.regions[(d0, d_to, dbest)] = rows_region(lo, wid, d0, dbest)
                _BLOCKS.give(cp, temp)
            else:
                wait(stream)
                r = res.get()
                cols = out[:int(r[0])].get()
        return cols, int(r[1]), int(r[2]), int(r[3])

    def _pinned(self, shape, dtype, slot):
        """A host array in pinned memory kept for ``slot``, valid until the slot's next use.

        The buffers grow by doubling and are kept per thread and device for
        the next runner (allocating pinned memory takes tens of
        milliseconds).
        """
        cp = self.cp
        dtype = np.dtype(dtype)
        size = int(np.prod(shape, dtype=np.int64))
        nbytes = max(size * dtype.itemsize, 1)
        key = (cp.cuda.Device().id, slot)
        pinned = getattr(_PINNED, "buffers", None)
        if pinned is None:
            pinned = _PINNED.buffers = {}
        buf = pinned.get(key)
        if buf is None or buf.size() < nbytes:
            buf = cp.cuda.alloc_pinned_memory(max(nbytes, 2 * (buf.size() if buf is not None else 1 << 20)))
            pinned[key] = buf
        return np.ndarray((size,), dtype=dtype, buffer=buf).reshape(shape)

    def _to_host(self, arr, slot, blocks=None, blocking=True):
        """``arr`` copied into pinned host memory kept for ``slot``: a view, valid until the slot's next use.

        Tracebacks are the big copies back (megabytes per round, up to
        hundreds per wave); pinned memory moves them about twice as fast
        as pageable. With a list ``blocks`` (threads copying at once, the
        relay's chunk calls), the memory is a block of the shared pool
        :data:`_BLOCKS` instead, appended to ``blocks`` for the caller to
        give back when done with the view (``slot`` is then unused).
        ``blocking=False``: the copy is only queued on the current stream
        (wait for it before reading the view).
        """
        if blocks is None:
            out = self._pinned(arr.shape, arr.dtype, slot)
        else:
            blocks.append(_BLOCKS.take(self.cp, arr.nbytes))
            out = np.ndarray(arr.shape, dtype=arr.dtype, buffer=blocks[-1])
        if arr.size:
            arr.get(out=out, blocking=False)
            if blocking:
                wait()
        return out

    def _to_device(self, arr, slot):
        """A new device array holding ``arr``, copied on the current stream without waiting.

        The copy goes from pinned memory kept for ``slot``: every runner call
        that returns host arrays waits for its stream, so the slot is free
        again at the next call (set_walls, which returns nothing, is always
        followed by one).
        """
        host = self._pinned(arr.shape, arr.dtype, slot)
        host[...] = arr
        return self._upload(host)

    def _upload(self, host):
        """A new device array holding the pinned array ``host``, copied on the current stream without waiting."""
        dev = self.cp.empty(host.shape, dtype=host.dtype)
        if host.nbytes:
            dev.data.copy_from_host_async(host.ctypes.data, host.nbytes)
        return dev


def grid_shape(nt, nq):
    """The wall grid for ``nt`` target rows and ``nq`` query positions: block shift, columns, 32-bit words."""
    shift = GRID_SHIFT
    while ((nt >> shift) + 1) * ((nq >> shift) + 1) > GRID_BITS:
        shift += 1
    cols = (nq >> shift) + 1
    return shift, cols, (((nt >> shift) + 1) * cols + 31) // 32


def fits16(matrix, gap_open, gap_ext, ydrop):
    """Do the scores fit the inspector in 16-bit pairs (kernel ``ydrop16``)?

    Its rows hold scores less a base within 8,192 of the best, dead cells
    at -(ydrop + 1,402), and it counts substitution scores below
    -(ydrop + 1) (a separator's) as that: no sum of them wraps a 16-bit
    half where the positive scores and the gap costs are at most 700 and
    the y-drop at most 15,000 (LASTZ's defaults: HOXD70 up to 100, 430 to
    open a gap, 30 to extend it, 9,400).
    """
    m = np.asarray(matrix)
    return (0 <= gap_open + gap_ext <= 700 and 0 <= gap_ext <= 700 and int(m.max(initial=0)) <= 700
            and 0 <= ydrop <= 15000)


def _warp_shape(kernel, per_warp, attributes):
    """Warps per block and blocks in all for a warp kernel whose warps hold ``per_warp`` bytes of rows.

    Each warp holds its 7 rows in shared memory (``ydrop``: ``band`` ints
    each; ``ydrop16``: ``band`` / 2 words of pairs), and the
    warps take tasks from a queue, so a launch without a quota need only
    fill the device once (:func:`warp_blocks`). The warps per block (up to 8) are those that fit the most warps
    on a multiprocessor, given its shared memory (less the part reserved
    per block and the matrix's 256 bytes, MAT_BYTES), its registers and its
    limits of 64 warps and 32 blocks (a block of 4 warps at band 512 left
    a kilobyte short of a fourth block: 12 warps against 16 with 8).
    """
    sm_smem = attributes["MaxSharedMemoryPerMultiprocessor"]
    reserved = attributes.get("ReservedSharedMemoryPerBlock", 1024) + MAT_BYTES
    regs = max(int(getattr(kernel, "num_regs", 0)), 1) * 32
    best = (1, 1)
    for tpb in range(1, 9):
        if tpb * per_warp > attributes["MaxSharedMemoryPerBlockOptin"]:
            break
        fit = min(sm_smem // (tpb * per_warp + reserved), attributes["MaxRegistersPerMultiprocessor"] // (regs * tpb),
                  64 // tpb, 32)
        if tpb * fit > best[0] * best[1]:
            best = (tpb, fit)
    return best[0], max(1, best[1]) * attributes["MultiProcessorCount"]


def warp_blocks(n, tpb, grid, quota):
    """Blocks of a launch of a warp kernel on ``n`` tasks, ``tpb`` warps a block.

    Without a ``quota`` (0) the warps take tasks from the queue until it is
    empty, so the blocks need only fill the device once (``grid``, from
    :func:`_warp_shape`); with one, each warp takes at most ``quota`` tasks,
    so the blocks cover them all and end as they go.
    """
    if quota > 0:
        return -(-n // (tpb * quota))
    return min(-(-n // tpb), grid)


class _RelayTable:
    """The anti-diagonal table of one relay launch's chunks on the device (kernel ``relay_tables``).

    Rows from the first chunk's check on, one per side anti-diagonal: the
    byte where it starts in the launch's traceback buffer, its first cell
    and its cell count, for each kept chunk's own anti-diagonals (the rows
    of the others are never read: the relay stops at the first chunk that
    does not take over). :meth:`side_region` reduces a run of them to the
    side's region (``cpu/relay._traceback``). ``byte0``: where
    each chunk's byte 0 (its cell count 0) lies in that buffer.
    ``pack``: None, or the launch's buffer, each chunk's first byte in it,
    the packed buffer, each chunk's start there and byte count: the same
    launch packs the bytes (:data:`RELAY_PACK_IN_TABLE`).
    """

    def __init__(self, runner, keep, d_check, first, dumps, adb, byte0, i0, tb_off, tb_lo, pack=None):
        cp = runner.cp
        kx = np.flatnonzero(keep)
        self.d_first = int(d_check[0]) + 1
        last = dumps[kx, 1, 0].astype(np.int64)
        zero = np.zeros(len(kx), np.int64)
        src, dst, moves = runner._zb, runner._zb, (zero, zero, zero)
        if pack is not None:
            src, src_at, dst, dst_at, nbytes = pack
            moves = (src_at[kx], dst_at[kx], nbytes[kx])
        info = np.stack([d_check[kx] + 1 - self.d_first, np.maximum(last - first[kx] + 1, 0), adb[kx] + first[kx],
                         i0[kx], byte0[kx], dumps[kx, 1, 8], *moves], axis=1).astype(np.int64)
        rows = max(int((info[:, 0] + info[:, 1]).max()) if len(kx) else 0, 1)
        self.off = cp.empty(rows, dtype=cp.int64)
        self.lo = cp.empty(rows, dtype=cp.int32)
        self.wid = cp.empty(rows, dtype=cp.int32)
        if len(kx):
            # through the thread's pinned buffer: a pageable copy took 3-4 ms a launch while a long batch's
            # sides copied at once (the driver stages it, on the side's path to its traceback)
            runner._relay_tables((32, len(kx)), (256,), (runner._to_device(info, "relay_table"), tb_off, tb_lo,
                                                         self.off, self.lo, self.wid, src, dst))
        self._runner = runner
        #: regions that came back with a traceback (DeviceRunner.relay_trace), by (d_from, d_to, dbest)
        self.regions = {}

    def rows(self, d_from, d_to):
        """Row slice of side anti-diagonals ``d_from..d_to``."""
        return slice(d_from - self.d_first, d_to + 1 - self.d_first)

    def region_rows(self, d_from, d_to, dbest):
        """The device rows ``cpu/relay.rows_region`` reads: cell counts of side anti-diagonals
        ``d_from..d_to``, and their first cells up to ``dbest``."""
        return self.wid[self.rows(d_from, d_to)], self.lo[self.rows(d_from, min(d_to, max(dbest, d_from - 1)))]

    def side_region(self, d_from, d_to, dbest):
        """``cpu/relay.rows_region`` of side anti-diagonals ``d_from..d_to``: their cell counts (and first
        cells up to ``dbest``) copied back, the region computed on the host (or the one that came back
        with the traceback, :data:`RELAY_ONE_WAIT`).

        Copies only: a kernel here waited 20-50 ms for multiprocessors that
        the waves' kernels held.
        """
        done = self.regions.pop((d_from, d_to, dbest), None)
        if done is not None:
            return done
        from . import own_stream
        cp = self._runner.cp
        temp = []
        with own_stream(self._runner.device_id, top=True):
            wid, lo = self.region_rows(d_from, d_to, dbest)
            wid = self._runner._to_host(wid, None, temp)
            lo = self._runner._to_host(lo, None, temp) if lo.size else np.zeros(0, np.int32)
            region = rows_region(lo, wid, d_from, dbest)
            _BLOCKS.give(cp, temp)
        return region


class DevicePiece:
    """A relay chunk's traceback bytes left on the device: ``buf`` from ``start`` (a piece's ``tb`` in ``cpu/relay``).

    ``trace`` walks a run of such pieces that share ``buf`` there
    (:meth:`DeviceRunner.relay_trace`); ``cpu/relay._traceback`` calls it.
    """

    __slots__ = ("runner", "task", "buf", "start", "table")

    def __init__(self, runner, task, buf, start, table):
        self.runner, self.task, self.buf, self.start = runner, task, buf, start
        #: the launch's :class:`_RelayTable`
        self.table = table

    def region(self, d_from, d_to, dbest):
        """:meth:`_RelayTable.side_region` of the run of pieces over side anti-diagonals ``d_from..d_to``."""
        return self.table.side_region(d_from, d_to, dbest)

    def trace(self, pieces, i, j, state):
        return self.runner.relay_trace(self.task, pieces, i, j, state)


class RelayShare:
    """The device memory of a batch of relayed sides, granted as each side's chunks ask for it.

    The sides of a batch run at once, and most end within their first chunk
    while one may run for megabases: an even split let the longest side of
    E. coli run only 19 of its 32 chunks, and a second round then led on the
    host. Here a side takes the chunks its call asks for (in their order,
    the lead first) while the memory lasts, less one chunk's room kept for
    each side that has not asked yet, so that every side runs at least its
    first chunk on the device. What it took comes back when its chunks'
    bytes are done with: copied to the host, or, where they stay on the
    device, traced (the launcher's release). Only the speed depends on who
    gets what.

    Parameters
    ----------
    total : int
        Bytes for the chunks' tracebacks of all the batch's sides.
    sides : int
        Sides that will ask.
    first_room : int
        The room of one chunk kept for each side yet to ask.
    """

    def __init__(self, total, sides, first_room):
        self.left = int(total)
        self.waiting = int(sides)
        self.first_room = int(first_room)
        self._lock = threading.Lock()

    def take(self, room, first):
        """How many of the chunks with these ``room`` bytes each (in order) may run; their bytes are taken."""
        with self._lock:
            if first and self.waiting > 0:
                self.waiting -= 1
            avail = self.left - self.waiting * self.first_room
            n = int(np.searchsorted(np.cumsum(room), avail, side="right"))
            self.left -= int(room[:n].sum())
            return n

    def give(self, nbytes):
        """Bytes taken come back."""
        with self._lock:
            self.left += int(nbytes)


class _HostBlocks:
    """Pinned host blocks for the relay's copies back, shared by threads and kept between batches.

    A long batch runs each side on a thread of its own, and each chunk call
    copies back megabytes to hundreds of megabytes (the tracebacks of 32
    chunks). Allocating pinned memory takes about 0.5 ms per megabyte and
    holds up the other threads' copies meanwhile (a 240 MB block took
    85–147 ms, and five sides' copies waited as long); CuPy's pool reuses a
    freed block only for a request of the same size. Here blocks come in
    powers of two from 1 MiB and go back to a free list when their user is
    done, so the next batch, and the next pair, take them again (each from
    its own size class, as sides of a batch ask at once). At most
    :data:`HOST_BLOCKS_KEEP` free bytes are kept (the largest go first, back
    to the system: the blocks are allocated outside CuPy's pool).
    """

    def __init__(self):
        self._free = {}     # device -> {size: [free blocks of that size]}
        self._bytes = {}    # device -> free bytes
        self._lock = threading.Lock()

    def take(self, cp, nbytes):
        """A block of at least ``nbytes`` (pinned, on the current device's context)."""
        size = 1 << max(20, (max(int(nbytes), 1) - 1).bit_length())
        device = cp.cuda.Device().id
        with self._lock:
            # only its own size class: a larger block taken here would be missing for the side that
            # needs it (a long batch's sides ask at once)
            same = self._free.get(device, {}).get(size)
            if same:
                self._bytes[device] -= size
                return same.pop()
        # outside CuPy's pool, which would keep a block this pool lets go
        return cp.cuda.PinnedMemoryPointer(cp.cuda.PinnedMemory(size), 0)

    def give(self, cp, blocks):
        """Blocks back to the free lists (their arrays no longer in use), the largest let go past the limit.

        The lock is held for a few list operations: a long batch's threads take and give blocks at once,
        and a thread that lost the interpreter's lock while holding this one (a sort and a sum over the
        free blocks, before) held up the others' copies for milliseconds (E. coli's first long batch).
        """
        device = cp.cuda.Device().id
        with self._lock:
            free = self._free.setdefault(device, {})
            total = self._bytes.get(device, 0)
            for b in blocks:
                free.setdefault(b.size(), []).append(b)
                total += b.size()
            while total > HOST_BLOCKS_KEEP:
                top = max(size for size, same in free.items() if same)
                free[top].pop()
                total -= top
            self._bytes[device] = total


_BLOCKS = _HostBlocks()


class _PinnedArrays:
    """Pinned host int32 arrays kept between calls and pairs, taken and given back by shape.

    Allocating pinned memory takes about 0.5 ms per megabyte, so each shape
    is allocated once and served again. Two pools: the walk's walls (one
    array the size of the target per strand, 32 bytes a base with 4 slots;
    ``zero``: taken all zero, a caller gives it back with the rows it wrote
    set to zero again, far fewer than the whole) and the host's stores of
    rows at the best (:meth:`DeviceRunner.host_kept`, whatever they hold).
    At most ``keep`` free bytes are kept.
    """

    def __init__(self, keep, zero):
        self._free = []             # (shape, array, the future of its zeroing or None)
        self._ours = weakref.WeakValueDictionary()      # id -> the arrays made here, while they live
        self._lock = threading.Lock()
        self._keep = keep
        self._zero = zero
        self._zeroing = None        # the thread that zeroes arrays given back (ZERO_BESIDE), made once

    def take(self, cp, shape):
        """An int32 array of ``shape`` in pinned memory (all zero in a ``zero`` pool)."""
        shape = tuple(int(x) for x in shape)
        with self._lock:
            for k, (s, arr, zeroed) in enumerate(self._free):
                if s == shape:
                    self._free.pop(k)
                    break
            else:
                arr = None
        if arr is not None:
            if zeroed is not None:
                zeroed.result()
            return arr
        size = int(np.prod(shape, dtype=np.int64)) * 4
        arr = np.ndarray(shape, dtype=np.int32, buffer=cp.cuda.PinnedMemoryPointer(cp.cuda.PinnedMemory(size), 0))
        if self._zero:
            arr[...] = 0
        with self._lock:
            self._ours[id(arr)] = arr
        return arr

    def owns(self, arr):
        """Whether ``arr`` is one of this pool's arrays (not a view into one)."""
        return self._ours.get(id(arr)) is arr

    def give(self, arr, spans=None):
        """``arr`` back to the free list; in a ``zero`` pool, ``spans`` are its rows ``[start, stop)`` not zero.

        They are zeroed on the pool's own thread (:data:`ZERO_BESIDE`; the
        next :meth:`take` of the array waits for it), else here.
        """
        zeroed = None
        if self._zero and spans is not None and len(spans):
            if ZERO_BESIDE:
                with self._lock:
                    if self._zeroing is None:
                        self._zeroing = ThreadPoolExecutor(1, thread_name_prefix="ava-zero")
                zeroed = self._zeroing.submit(_zero_spans, arr, spans)
            else:
                _zero_spans(arr, spans)
        with self._lock:
            self._free.append((arr.shape, arr, zeroed))
            while sum(a.nbytes for _, a, _ in self._free) > self._keep:
                self._free.pop(0)


_WALLS = _PinnedArrays(HOST_WALLS_KEEP, zero=True)
_KEPT = _PinnedArrays(HOST_KEPT_KEEP, zero=False)


@njit(cache=True, nogil=True)
def _gather_rows(walls, spans, rows, values):
    """The rows of ``walls`` (2-D) in the spans ``[start, stop)``, and their indices, into ``values`` and ``rows``."""
    at = 0
    for s in range(spans.shape[0]):
        for r in range(spans[s, 0], spans[s, 1]):
            rows[at] = r
            for c in range(walls.shape[1]):
                values[at, c] = walls[r, c]
            at += 1


@njit(cache=True, nogil=True)
def _zero_spans(walls, spans):
    """Rows ``[start, stop)`` of each span of ``walls`` set to zero."""
    for s in range(spans.shape[0]):
        walls[spans[s, 0]:spans[s, 1]] = 0


def _joined_spans(spans, gap):
    """The row spans ``[start, stop)`` (ascending, apart) joined where less than ``gap`` rows lie between."""
    out = []
    for lo, hi in spans.tolist():
        if out and lo - out[-1][1] < gap:
            out[-1][1] = hi
        else:
            out.append([lo, hi])
    return out


def _keep_stride():
    """Ints per slot of kept rows: the header and four rows of :data:`KEEP_W` + 2."""
    return DUMP_HEAD + 4 * (KEEP_W + 2)


def keep_slots(mem):
    """How many sides' rows at their best the device keeps within budget ``mem`` (bytes)."""
    return int(min(KEEP_SLOTS, int(mem) // KEEP_SHARE // (4 * _keep_stride())))


def _up16(x):
    """``x`` rounded up to a multiple of 16 (the pack kernel moves 16-byte words)."""
    return (x + 15) & ~15


@njit(cache=True, nogil=True)
def _chunk_states(dumps, i0, s, keep):
    """The states of each kept chunk of a relay launch in side coordinates, and each hand-over checked.

    ``dumps``: kernel ``ydrop_chunk``'s, shape ``(n, 2, DUMP_HEAD + 4 *
    (band + 2))``: at the check and at the end, each a header and four
    rows; chunk x's origin is cell ``(i0[x], s[x] - i0[x])``. Each state
    is a ``cpu/gapped`` state array and a ``cpu/relay.snapshot``, none
    where the chunk ended. One call with the interpreter's lock let
    go: a long side's 64 chunks made 128 small calls of numpy, then 64 of
    ``same_state``, each waiting for the lock beside the batch's other
    relay threads (15-25 ms in a timeline of E. coli's 2 Mb side).

    Returns
    -------
    st : ndarray of int64, shape (n, 2, ST_N)
    lo, width, at : ndarray of int64, shape (n, 2)
        Each snapshot's first cell, its cells (-1: none, the chunk ended)
        and where its four rows start in ``rows``.
    rows : ndarray of int64
        The snapshots' rows, each ``4 * width`` values.
    same, frame : ndarray, shape (n,)
        ``cpu/relay.same_state`` of chunk ``x - 1``'s end and chunk
        ``x``'s check (False where either is not kept, and for chunk 0),
        which the relay asks when chunk ``x - 1`` took over.
    """
    n = dumps.shape[0]
    band2 = (dumps.shape[2] - DUMP_HEAD) // 4
    st = np.zeros((n, 2, cg.ST_N), dtype=np.int64)
    lo = np.zeros((n, 2), dtype=np.int64)
    width = np.full((n, 2), -1, dtype=np.int64)
    at = np.zeros((n, 2), dtype=np.int64)
    total = 0
    for x in range(n):
        for k in range(2):
            at[x, k] = total
            if keep[x] and dumps[x, k, 9] == 0:
                width[x, k] = dumps[x, k, 11]
                total += 4 * width[x, k]
    rows = np.empty(total, dtype=np.int64)
    for x in range(n):
        if not keep[x]:
            continue
        for k in range(2):
            head = dumps[x, k]
            e = st[x, k]
            e[cg.ST_D] = head[0] + s[x]
            e[cg.ST_LO1], e[cg.ST_HI1] = head[1] + i0[x], head[2] + i0[x]
            e[cg.ST_LO2], e[cg.ST_HI2] = head[3] + i0[x], head[4] + i0[x]
            e[cg.ST_BEST], e[cg.ST_BI], e[cg.ST_BJ] = head[5], head[6] + i0[x], head[7] + s[x] - i0[x]
            e[cg.ST_CELLS], e[cg.ST_DONE] = head[8], head[9]
            w = width[x, k]
            if w < 0:
                continue
            lo[x, k] = head[10] + i0[x]
            for r in range(4):
                for c in range(w):
                    rows[at[x, k] + r * w + c] = head[DUMP_HEAD + r * band2 + c]
    same = np.zeros(n, dtype=np.bool_)
    frame = np.zeros(n, dtype=np.int64)
    for x in range(1, n):
        wa, wb = width[x - 1, 1], width[x, 0]
        if keep[x - 1] and keep[x] and wa >= 0 and wb >= 0:
            ra = rows[at[x - 1, 1]:at[x - 1, 1] + 4 * wa].reshape(4, wa)
            rb = rows[at[x, 0]:at[x, 0] + 4 * wb].reshape(4, wb)
            same[x], frame[x] = same_state(st[x - 1, 1], lo[x - 1, 1], ra, st[x, 0], lo[x, 0], rb)
    return st, lo, width, at, rows, same, frame


def _packed_bases(res):
    """Where ``ydrop_pack`` put each task's traceback: byte and row offsets, ``ntasks + 1`` each.

    Tasks with ``R_TRACED`` and a best cell past the origin are packed in
    order, ``R_CAB`` bytes rounded up to 16 and ``bi + bj + 1`` rows each; the others
    take no room.
    """
    ds = res[:, R_BI] + res[:, R_BJ]
    held = (res[:, R_TRACED] != 0) & (ds > 0)
    pos = np.concatenate([[0], np.cumsum(np.where(held, _up16(res[:, R_CAB]), 0))]).astype(np.int64)
    apos = np.concatenate([[0], np.cumsum(np.where(held, ds + 1, 0))]).astype(np.int64)
    return pos, apos
