"""Long y-drop extensions split into speculative chunks (cpu/relay.py) give the sequential sweep's result."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from gpukernels.cpu import gapped as G
from gpukernels.cpu import relay
from gpukernels.scoring import lastz_scoring

from test_gapped import mutate


def _random_walls(rng, n, qn, rate):
    walls = np.zeros((n + 2, 2, 2), dtype=np.int32)
    for x in np.flatnonzero(rng.random(n + 2) < rate):
        a = int(rng.integers(0, qn + 1))
        walls[x, 0] = (a, a + int(rng.integers(1, 4)))
    return walls


def _similar_side(rng, n_max, rate, wall_rate):
    """A right-side extension over a random sequence and its copy mutated at ``rate``, with random walls.

    Returns the DP arguments, the work buffers' width and the sequential sweep's result.
    """
    sc = lastz_scoring()
    n = int(rng.integers(8000, n_max))
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = mutate(rng, t, rate)
    walls = _random_walls(rng, n, len(q), wall_rate)
    dp = (t[::-1].copy(), n, n, q, -1, len(q), sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, 1 << 40, walls,
          0, 0, 1)
    width = len(q) + 3
    ref = G.ydrop_one_side(*dp, np.empty((8, width), np.int32), np.empty(16, np.uint8), np.empty(4, np.int64),
                           np.empty(4, np.int64))
    return dp, width, ref


def _side_and_sweep(seed):
    """:func:`_similar_side` (16 kb at most; 1 % or 4 % diverged, and walls, by the seed's parity) and the
    arguments :func:`relay.speculative_chunk` passes ``ydrop_sweep`` for it."""
    dp, width, ref = _similar_side(np.random.default_rng(seed), 16000, [0.01, 0.04][seed % 2], [0.0, 0.002][seed % 2])
    sc = lastz_scoring()
    flat = G._flat_matrix(sc.matrix)
    sweep_dp = dp[:6] + (flat, np.int32(sc.gap_open + sc.gap_extend), np.int32(sc.gap_extend)) + dp[9:]
    return dp, width, ref, sweep_dp


@pytest.mark.parametrize("warm", [900, 10])
@pytest.mark.parametrize("seed", range(8))
def test_relay_equals_sequential_sweep(seed, warm):
    """Best cell, score, cells and columns equal ydrop_one_side's, whether chunks take over or not.

    Warm-ups of 10 anti-diagonals are too short for the rows to converge: every check fails.
    """
    rng = np.random.default_rng(seed)
    sc = lastz_scoring()
    n = int(rng.integers(6000, 20000))
    t = rng.integers(0, 4, n).astype(np.uint8)
    if seed % 4 == 3:
        t[n // 2:n // 2 + 3000] = rng.integers(0, 4, 3000)    # a stretch of noise: the alignment may end there
    q = mutate(rng, t, [0.01, 0.03, 0.08][seed % 3])
    walls = _random_walls(rng, n, len(q), [0.0, 0.001, 0.02][seed % 3])
    barrier = 1 << 40 if seed % 2 else int(rng.integers(5, 50))
    t_rev = t[::-1].copy()
    dp = (t_rev, n, n, q, -1, len(q), sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, barrier, walls, 0, 0, 1)
    width = len(q) + 3
    ref = G.ydrop_one_side(*dp, np.empty((8, width), np.int32), np.empty(16, np.uint8), np.empty(4, np.int64),
                           np.empty(4, np.int64))
    stats = {}
    with ThreadPoolExecutor(3) as pool:
        got = relay.relay_side(*dp, pool, [np.empty((8, width), np.int32) for _ in range(3)], chunk=1500, warm=warm,
                               stats=stats)
    assert tuple(got[:4]) == tuple(ref[:4])
    assert np.array_equal(got[4], ref[4])
    assert np.array_equal(got[5], _region(ref))
    assert stats["relay_rounds"] >= 1
    assert (stats["relay_taken"] if warm > 100 else stats["relay_missed"]) > 0


def test_relay_chunks_take_over_on_similar_sequences():
    """On a long, 99 % identical pair most speculative chunks pass the check."""
    rng = np.random.default_rng(7)
    sc = lastz_scoring()
    t = rng.integers(0, 4, 40000).astype(np.uint8)
    q = mutate(rng, t, 0.01)
    walls = np.zeros((len(t) + 2, 1, 2), dtype=np.int32)
    dp = (t[::-1].copy(), len(t), len(t), q, -1, len(q), sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, 1 << 40,
          walls, 0, 0, 1)
    stats = {}
    with ThreadPoolExecutor(4) as pool:
        got = relay.relay_side(*dp, pool, [np.empty((8, len(q) + 3), np.int32) for _ in range(4)], chunk=4000,
                               warm=2000, stats=stats)
    ref = G.ydrop_one_side(*dp, np.empty((8, len(q) + 3), np.int32), np.empty(16, np.uint8), np.empty(4, np.int64),
                           np.empty(4, np.int64))
    assert tuple(got[:4]) == tuple(ref[:4]) and np.array_equal(got[4], ref[4])
    assert np.array_equal(got[5], _region(ref))
    assert stats["relay_taken"] > stats["relay_missed"]


@pytest.mark.parametrize("handed", [False, True])
@pytest.mark.parametrize("lead_there", [True, False])
@pytest.mark.parametrize("per_round", [2, 32])
@pytest.mark.parametrize("warm", [900, 10])
@pytest.mark.parametrize("seed", range(4))
def test_relay_with_chunks_elsewhere_equals_sequential_sweep(seed, warm, per_round, lead_there, handed, monkeypatch):
    """With the chunks run by a callback (the GPU's way), the result is still ydrop_one_side's.

    The callback runs them here, one after the other. Each accepted chunk's end state is put back
    into the one buffer (restore) where the next round goes on from it: with 2 chunks per round
    that happens several times per side. With ``lead_there`` the first round's lead is one of the
    callback's chunks too, from the origin. With ``handed`` each chunk comes with its hand-over
    from the chunk before it checked by the callback (the device's ``_chunk_states``), and the
    relay's own checks are then only those against its true state.
    """
    monkeypatch.setattr(relay, "LEAD_ELSEWHERE", lead_there)
    dp, width, ref, sweep_dp = _side_and_sweep(100 + seed)
    work = np.empty((8, width), np.int32)
    calls = []
    asked = []
    same_state = relay.same_state
    monkeypatch.setattr(relay, "same_state", lambda *a: asked.append(1) or same_state(*a))

    def chunks(starts, width):
        assert width > 0
        calls.append(len(starts))
        got = [relay.speculative_chunk(sweep_dp, work, *a) for a in starts]
        if not handed:
            return got
        out = []
        for x, g in enumerate(got):
            before = got[x - 1] if x else None
            check = None
            if g is not None and before is not None and before[5] is not None:
                check = same_state(before[1], *before[5], *g[0])
            out.append(None if g is None else (*g, check))
        return out

    stats = {}
    with ThreadPoolExecutor(1) as pool:
        got = relay.relay_side(*dp, pool, [np.empty((8, width), np.int32)], chunk=1000, warm=warm, stats=stats,
                               chunks=chunks, per_round=per_round)
    assert tuple(got[:4]) == tuple(ref[:4])
    assert np.array_equal(got[4], ref[4])
    assert np.array_equal(got[5], _region(ref))
    assert calls and max(calls) <= per_round
    assert (stats["relay_taken"] if warm > 100 else stats["relay_missed"]) > 0
    if handed:      # one check a round at most: the first chunk against the true state
        assert len(asked) <= stats["relay_rounds"]


class _Elsewhere:
    """A chunk's bytes in a buffer shared by its call's chunks, walked by ``trace_split`` (the device's way, here).

    ``chunks``: each chunk of the buffer as (first and last own anti-diagonal, start in the buffer,
    tables indexed by anti-diagonal, bytes), for :meth:`tables` where the pieces leave them here.
    """

    def __init__(self, buf, start, frame, stretch, above, chunks):
        self.buf, self.start, self.frame, self.stretch, self.above = buf, start, frame, stretch, above
        self.chunks = chunks

    def region(self, d_from, d_to, dbest):
        """The region of the run of pieces over anti-diagonals ``d_from..d_to``, from the chunks' tables."""
        off, lo = [], []
        for d in range(d_from, d_to + 1):
            lo_d, hi_d, start, c_off, c_lo, nbytes = next(c for c in self.chunks if c[0] <= d <= c[1])
            off.append(start + c_off[d])
            lo.append(c_lo[d])
        last = next(c for c in self.chunks if c[0] <= d_to <= c[1])
        return relay.piece_region(np.array(off), np.array(lo), last[2] + last[5], d_from, d_to, dbest)

    def own_tables(self, piece):
        """A piece as the relay holds it with its tables here: offsets from its own first byte."""
        c = next(c for c in self.chunks if c[0] == piece[3])
        return piece[:1] + (c[3][piece[3]:piece[4] + 1], c[4][piece[3]:piece[4] + 1]) + piece[3:]

    def trace(self, pieces, i, j, state):
        pieces = [p if p[1] is not None else self.own_tables(p) for p in pieces]
        tables = relay.split_tables(pieces, i, j)
        if tables is None:
            return np.zeros(0, np.uint8), i, j, state
        d0, off, lo, wid = tables
        tA, T0, qA, Q0 = self.frame
        cols, i, j, state, steps = relay.trace_split(self.buf, off, lo, wid, d0, i, j, state, self.stretch,
                                                     self.above, tA, T0, -1, qA, Q0, 1)
        _Elsewhere.steps += steps
        _Elsewhere.columns += len(cols)
        return cols, i, j, state


@pytest.mark.parametrize("tables_there", [False, True])
@pytest.mark.parametrize("stretch, above", [(256, 128), (64, 0), (5000, 10)])
@pytest.mark.parametrize("seed", range(4))
def test_relay_pieces_traced_elsewhere_equal_sequential(seed, stretch, above, tables_there):
    """Chunks whose bytes stay elsewhere, traced there in stretches walked ahead (``trace_split``), give ydrop_one_side's columns.

    The walks ahead start ``above`` anti-diagonals over their stretch (0: on it, off the path
    most often); the path's own walk takes their columns where it meets them, and walks the
    rest itself. A stretch longer than the side is one walk from the entry. With ``tables_there``
    the pieces leave their tables there too, and the side's tables come from runs of them.
    """
    dp, width, ref, sweep_dp = _side_and_sweep(500 + seed)
    work = np.empty((8, width), np.int32)
    frame = (dp[0], dp[1], dp[3], dp[4])

    def chunks(starts, width):
        got = [relay.speculative_chunk(sweep_dp, work, *a) for a in starts]
        ends = np.cumsum([0] + [int(g[1][G.ST_NTB]) if g is not None else 0 for g in got])
        buf = np.concatenate([g[2][:int(g[1][G.ST_NTB])] for g in got if g is not None] + [np.zeros(1, np.uint8)])
        kept = [(a[2] + 1, int(g[1][G.ST_D]), int(ends[x]), g[3], g[4], int(g[1][G.ST_NTB]))
                for x, (a, g) in enumerate(zip(starts, got)) if g is not None]
        out = []
        for x, g in enumerate(got):
            if g is None:
                out.append(None)
                continue
            there = _Elsewhere(buf, int(ends[x]), frame, stretch, above, kept)
            tables = (None, None) if tables_there else g[3:5]
            out.append(g[:2] + (there,) + tables + g[5:])
        return out

    _Elsewhere.steps = _Elsewhere.columns = 0
    stats = {}
    with ThreadPoolExecutor(1) as pool:
        got = relay.relay_side(*dp, pool, [np.empty((8, width), np.int32)], chunk=1000, warm=900, stats=stats,
                               chunks=chunks, per_round=8)
    assert tuple(got[:4]) == tuple(ref[:4])
    assert np.array_equal(got[4], ref[4])
    assert np.array_equal(got[5], _region(ref))
    assert stats["relay_taken"] > 0 and _Elsewhere.columns > 0
    if stretch == 256:
        assert _Elsewhere.steps < _Elsewhere.columns / 4      # most columns come from the walks ahead


@pytest.mark.parametrize("guess", ["best", "off", "outside"])
@pytest.mark.parametrize("seed", range(6))
def test_traceback_walked_ahead_equals_sequential(seed, guess, monkeypatch):
    """The pieces walked ahead from a guess each give the sequential traceback's columns.

    ``best``: the best cell of each piece's last anti-diagonal (the walks meet the path soon);
    ``off``: a cell 40 away from it (they meet later, or never); ``outside``: a cell the piece did not
    compute (the walk ahead gives up and the path is walked there as before).
    """
    monkeypatch.setattr(relay, "AHEAD_MIN", 64)
    best_guess = relay.entry_guess
    shift = {"best": 0, "off": 40, "outside": 1 << 20}[guess]
    monkeypatch.setattr(relay, "entry_guess", lambda lo, rows: best_guess(lo, rows) + shift)
    calls = []
    ahead = relay.trace_ahead

    def counted(*args):
        out = ahead(*args)
        calls.append(bool(out[0]))
        return out
    monkeypatch.setattr(relay, "trace_ahead", counted)
    dp, width, ref = _similar_side(np.random.default_rng(300 + seed), 14000, [0.01, 0.04, 0.08][seed % 3],
                                   [0.0, 0.002][seed % 2])
    with ThreadPoolExecutor(4) as pool:
        got = relay.relay_side(*dp, pool, [np.empty((8, width), np.int32) for _ in range(4)], chunk=700, warm=600)
    assert tuple(got[:4]) == tuple(ref[:4])
    assert np.array_equal(got[4], ref[4])
    assert np.array_equal(got[5], _region(ref))
    if calls:
        assert any(calls) == (guess != "outside")


def test_relay_share_keeps_a_first_chunk_for_each_side_yet_to_ask():
    from gpukernels.gpu.runner import RelayShare
    share = RelayShare(100, sides=3, first_room=10)
    room = np.full(32, 10, dtype=np.int64)
    # the first side may take all but a chunk for each of the two yet to ask
    assert share.take(room, first=True) == 8
    # its later call finds only the others' reserve left
    assert share.take(room, first=False) == 0
    assert share.take(room, first=True) == 1
    assert share.take(room, first=True) == 1
    share.give(80)
    assert share.take(room, first=False) == 8
    # a chunk wider than what is left does not run
    assert share.take(np.array([50]), first=False) == 0


def _region(ref):
    """The region of a side from ``ydrop_one_side``'s result ``ref`` (its tables)."""
    return relay.side_region(ref[6], ref[7], ref[3], ref[1] + ref[2])


def _region_by_steps(off, lo, cells, dbest):
    """The region as the walk's checks define it, one anti-diagonal at a time up to the last with a cell."""
    imax = jmax = kmin = kmax = d = 0
    while cells > 0:
        d += 1
        low, high = int(lo[d]), int(lo[d] + off[d + 1] - off[d])
        if d <= dbest:
            imax, jmax = max(imax, high - 1), max(jmax, d - low)
            kmin, kmax = min(kmin, d - 2 * (high - 1)), max(kmax, d - 2 * low)
        if off[d + 1] == cells + 1:
            break
    return [imax, jmax, kmin, kmax, d]


@pytest.mark.parametrize("seed", range(6))
def test_side_region_equals_the_steps_over_the_table(seed):
    """``side_region`` (and the pieces' ``piece_region`` it runs on) gives the stepwise region of a real
    y-drop side, with the table's arrays longer than the side as the host's buffers are."""
    rng = np.random.default_rng(900 + seed)
    dp, width, ref = _similar_side(rng, 12000, [0.01, 0.05, 0.2][seed % 3], [0.0, 0.002][seed % 2])
    off, lo, cells = ref[6], ref[7], ref[3]
    for dbest in (ref[1] + ref[2], 0, (ref[1] + ref[2]) // 2):
        assert list(relay.side_region(off, lo, cells, dbest)) == _region_by_steps(off, lo, cells, dbest)
    # split into pieces anywhere, joined again
    dlast = int(relay.side_region(off, lo, cells, 0)[4])
    if dlast > 3:
        cut = int(rng.integers(1, dlast))
        region = np.zeros(5, np.int64)
        relay.join_regions(region, relay.piece_region(off[:cut + 1], lo[:cut + 1], off[cut + 1], 0, cut, ref[1] + ref[2]))
        relay.join_regions(region, relay.piece_region(off[cut + 1:dlast + 2], lo[cut + 1:dlast + 1], off[dlast + 1],
                                                      cut + 1, dlast, ref[1] + ref[2]))
        assert list(region) == _region_by_steps(off, lo, cells, ref[1] + ref[2])


def _rows_region_by_steps(lo, wid, d_from, dbest):
    """``rows_region``'s definition, one anti-diagonal at a time (from ``d_from``, anti-diagonal 0 left out)."""
    out = [0, 0, 0, 0, 0]
    for x in range(max(1 - d_from, 0), len(wid)):
        d, width = d_from + x, int(wid[x])
        if width > 0:
            out[4] = d
        if d <= dbest:
            low = int(lo[x])
            out[0], out[1] = max(out[0], low + width - 1), max(out[1], d - low)
            out[2], out[3] = min(out[2], d - 2 * (low + width - 1)), max(out[3], d - 2 * low)
    return out


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_rows_region_equals_its_steps(dtype):
    """``rows_region`` (its reach folded over slices) gives the stepwise region, where the rows start before
    anti-diagonal 1, end before the best or past it, hold empty anti-diagonals, and ``lo`` stops at the best."""
    rng = np.random.default_rng(77)
    for _ in range(3000):
        n = int(rng.integers(0, 40))
        d_from = int(rng.integers(-3, 30))
        dbest = int(rng.integers(d_from - 5, d_from + 45))
        wid = (rng.integers(0, 5, n) * (rng.random(n) < 0.7)).astype(dtype)
        lo = rng.integers(0, 100, max(0, min(n, dbest - d_from + 1))).astype(dtype)
        assert list(relay.rows_region(lo, wid, d_from, dbest)) == _rows_region_by_steps(lo, wid, d_from, dbest)


def _dump(state, snap, i0, s, band):
    """A state and snapshot in kernel ``ydrop_chunk``'s dump form (chunk origin ``(i0, s - i0)``)."""
    from gpukernels.gpu.runner import DUMP_HEAD
    head = np.zeros(DUMP_HEAD + 4 * (band + 2), dtype=np.int32)
    head[0] = state[G.ST_D] - s
    head[1:5] = np.array([state[G.ST_LO1], state[G.ST_HI1], state[G.ST_LO2], state[G.ST_HI2]]) - i0
    head[5], head[6], head[7] = state[G.ST_BEST], state[G.ST_BI] - i0, state[G.ST_BJ] - (s - i0)
    head[8], head[9] = state[G.ST_CELLS], state[G.ST_DONE]
    if snap is not None:
        lo, rows = snap
        head[10], head[11] = lo - i0, rows.shape[1]
        for r in range(4):
            head[DUMP_HEAD + r * (band + 2):DUMP_HEAD + r * (band + 2) + rows.shape[1]] = rows[r]
    return head


@pytest.mark.parametrize("warm", [900, 10])
def test_chunk_states_decode_dumps_and_check_hand_overs(warm):
    """``gpu/runner._chunk_states`` gives each chunk's states and snapshots back, and ``same_state`` of each
    chunk's end and the next one's check, as the relay would ask it (warm-ups of 10: hand-overs fail)."""
    from gpukernels.gpu.runner import DUMP_HEAD, _chunk_states
    dp, width, ref, sweep_dp = _side_and_sweep(101)
    work = np.empty((8, width), np.int32)
    chunk, band = 1000, 1024
    starts, got = [], []
    for m in range(1, 6):
        d_check = m * chunk
        s = d_check - warm
        s -= s & 1
        i0 = s // 2
        starts.append((i0, s))
        got.append(relay.speculative_chunk(sweep_dp, work, i0, s, d_check, d_check + chunk))
    keep = np.array([g is not None for g in got])
    assert keep.sum() >= 3
    dumps = np.zeros((len(got), 2, DUMP_HEAD + 4 * (band + 2)), dtype=np.int32)
    for x, (g, (i0, s)) in enumerate(zip(got, starts)):
        if g is not None:
            dumps[x, 0] = _dump(g[0][0], g[0][1:], i0, s, band)
            dumps[x, 1] = _dump(g[1], g[5], i0, s, band)
    i0s, ss = np.array([a for a, _ in starts]), np.array([b for _, b in starts])
    st, lo, wid, at, rows, same, frame = _chunk_states(dumps, i0s, ss, keep)
    for x, g in enumerate(got):
        if g is None:
            continue
        for k, (state, snap) in enumerate([(g[0][0], g[0][1:]), (g[1], g[5])]):
            fields = [G.ST_D, G.ST_LO1, G.ST_HI1, G.ST_LO2, G.ST_HI2, G.ST_BEST, G.ST_BI, G.ST_BJ, G.ST_CELLS,
                      G.ST_DONE]
            assert np.array_equal(st[x, k, fields], state[fields])
            if snap is None:
                assert wid[x, k] == -1
                continue
            assert lo[x, k] == snap[0]
            assert np.array_equal(rows[at[x, k]:at[x, k] + 4 * wid[x, k]].reshape(4, -1), snap[1])
        before = got[x - 1] if x else None
        expect = (False, 0)
        if before is not None and before[5] is not None:
            expect = relay.same_state(before[1], *before[5], *g[0])
        assert (bool(same[x]), int(frame[x])) == (bool(expect[0]), int(expect[1]))
    assert same.any() == (warm > 100)
