"""Wavefront alignment (WFA) of many pairs: gap-affine or edit distance, exact.

:func:`wfa` is the public entry point. It checks its inputs, reduces the
penalties by their greatest common divisor (fewer, denser wavefronts; scores
are scaled back), and dispatches to the numba twin (``cpu/wfa.py``) or the
CUDA kernels (``cuda/wfa.cu``). Both follow the same recurrences and tie
order, so both give the same scores and the same CIGARs.

GPU path: pairs are 2-bit packed on the host; edit-distance pairs up to
:data:`EWFA_MAX_LEN` go to the shared-memory eWFA kernel first; the rest, and
any overflow, go to the general kernels (wavefront ring in global memory); a
pair that overflows the backtrace pool is retried with a larger pool and, if
it still does not fit, aligned by the CPU twin. Then ``wfa_replay`` turns the
2-bit op lists into CIGAR letters and ``wfa_compact`` packs them.

Two backtrace designs give the same op lists (see :data:`CIGAR_MODES`):
``"chain"`` carries each cell's ops with it (WFA-GPU's piggybacked blocks);
``"packed"`` (gap-affine general kernel only) stores 4 bits per cell in
per-score bit planes and walks back through them at the end.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from .backend import resolve_backend
from .errors import InputError

log = logging.getLogger("gpukernels")

DEFAULT_PENALTIES = (4, 6, 2)
EWFA_MAX_LEN = 1024
"""Longest sequence (either side) that the shared-memory eWFA kernel takes."""
MAX_LENGTH = 1 << 28
"""Longest sequence accepted (offsets and the NULL marker are 32-bit)."""
SHARED_SEQ_BYTES = 40 * 1024
"""Shared memory the general kernels may use to stage a pair (about 80 kbp a side)."""
CIGAR_MODES = ("chain", "packed")
"""GPU backtrace designs (same CIGARs): ``"chain"``, each cell carries its op
chain (about 76 bytes of traffic per cell); ``"packed"``, each gap-affine cell
leaves 4 bits in per-score bit planes, walked back once at the end (offsets
plus half a byte per cell). Edit distance always uses ``"chain"``."""
PACKED_MIN_WORDS = 4096
"""Smallest bit-plane area per block (32-bit words) the packed mode sizes for."""

_CODES = np.full(256, 255, dtype=np.uint8)
for _i, _ch in enumerate(b"ACGT"):
    _CODES[_ch] = _i
    _CODES[_ch + 32] = _i
LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)


# ---------------------------------------------------------------- data types

@dataclass
class Sequences:
    """Many DNA sequences as base codes (A0 C1 G2 T3) in one array.

    Attributes
    ----------
    codes : ndarray of uint8
        All sequences concatenated.
    offsets : ndarray of int64
        Sequence ``i`` is ``codes[offsets[i]:offsets[i+1]]``.
    """

    codes: np.ndarray
    offsets: np.ndarray

    def __len__(self):
        return len(self.offsets) - 1

    @property
    def lengths(self):
        """Length of each sequence (int64)."""
        return np.diff(self.offsets)

    def text(self, i):
        """Sequence ``i`` as a string of ``ACGT``."""
        return LETTERS[self.codes[self.offsets[i]:self.offsets[i + 1]]].tobytes().decode()


def encode_sequences(seqs):
    """Encode strings (or bytes) of ``ACGTacgt`` as :class:`Sequences`.

    Parameters
    ----------
    seqs : sequence of str or bytes

    Returns
    -------
    Sequences

    Raises
    ------
    InputError
        When a sequence holds another character; ``exc.index`` is its index.
    """
    raw = [s.encode("ascii", "replace") if isinstance(s, str) else bytes(s) for s in seqs]
    lengths = np.fromiter((len(s) for s in raw), dtype=np.int64, count=len(raw))
    offsets = np.zeros(len(raw) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = _CODES[np.frombuffer(b"".join(raw), dtype=np.uint8)]
    bad = np.flatnonzero(codes == 255)
    if bad.size:
        index = int(np.searchsorted(offsets, bad[0], side="right") - 1)
        char = chr(b"".join(raw)[bad[0]])
        exc = InputError(f"sequence {index + 1} has the character {char!r}; only A, C, G, T are allowed")
        exc.index = index
        raise exc
    return Sequences(codes, offsets)


@dataclass
class WFAResult:
    """Scores and CIGARs of a batch of alignments.

    Attributes
    ----------
    scores : ndarray of int64
        Penalty of each optimal alignment (edit distance with ``edit=True``).
    ops : ndarray of uint8 or None
        CIGAR letters ``=XID`` (ASCII), one per alignment column, all pairs
        concatenated; ``None`` in score-only mode.
    op_offsets : ndarray of int64 or None
        Pair ``i`` owns ``ops[op_offsets[i]:op_offsets[i+1]]``.
    """

    scores: np.ndarray
    ops: np.ndarray | None = None
    op_offsets: np.ndarray | None = None

    def __len__(self):
        return len(self.scores)

    def cigar(self, i):
        """Run-length CIGAR string of pair ``i`` (``""`` for two empty sequences)."""
        if self.ops is None:
            raise ValueError("score-only result has no CIGAR")
        return run_length(self.ops[self.op_offsets[i]:self.op_offsets[i + 1]])

    def cigars(self):
        """All run-length CIGAR strings, in pair order."""
        return [self.cigar(i) for i in range(len(self))]


def run_length(ops):
    """``b"==XI"`` (as uint8 array) → ``"2=1X1I"``."""
    if ops.size == 0:
        return ""
    change = np.flatnonzero(ops[1:] != ops[:-1]) + 1
    starts = np.concatenate(([0], change))
    counts = np.diff(np.concatenate((starts, [ops.size])))
    letters = ops[starts].tobytes().decode()
    return "".join(f"{c}{l}" for c, l in zip(counts.tolist(), letters))


def simulate_pairs(n_pairs, length, error, seed=0):
    """Random (patterns, texts) as WFA2-lib's ``generate_dataset`` makes them.

    Parameters
    ----------
    n_pairs, length : int
        How many pairs, and the pattern length.
    error : float
        Error rate: ``round(error * length)`` mismatches, insertions and
        deletions (equal odds) at distinct uniform positions of the text.
    seed : int

    Returns
    -------
    (Sequences, Sequences)
    """
    from .cpu import wfa as cpu
    n_err = min(int(error * length + 0.5), length)
    pat = np.empty(n_pairs * length, np.uint8)
    txt = np.empty(n_pairs * (length + n_err), np.uint8)
    pat_off = np.empty(n_pairs + 1, np.int64)
    txt_off = np.empty(n_pairs + 1, np.int64)
    cpu.simulate(n_pairs, length, float(error), seed, pat, pat_off, txt, txt_off)
    return Sequences(pat, pat_off), Sequences(txt[:txt_off[-1]], txt_off)


def penalties_from_scores(match, mismatch, gap_open, gap_extend):
    """WFA penalties equivalent to a uniform score scheme, for global alignment.

    With a match worth ``match`` (> 0), a mismatch costing ``mismatch`` and a
    gap of length L costing ``gap_open + gap_extend*L`` (all ≥ 0), every
    global alignment of an n-base pattern with an m-base text satisfies
    ``2*score = match*(n + m) - penalty`` under the penalties returned here,
    so the minimal-penalty alignment is the maximal-score one (the engine's
    gapped traceback between two fixed end points is such an alignment).

    Returns
    -------
    tuple of int
        ``(x, o, e) = (2*(match + mismatch), 2*gap_open, match + 2*gap_extend)``.
    """
    return 2 * (match + mismatch), 2 * gap_open, match + 2 * gap_extend


def score_from_penalty(penalty, n, m, match):
    """The score of :func:`penalties_from_scores`' scheme from a WFA penalty."""
    return (match * (np.asarray(n) + np.asarray(m)) - np.asarray(penalty)) // 2


def parse_penalties(text):
    """``"4,6,2"`` → ``(4, 6, 2)``, checked as by :func:`check_penalties`."""
    try:
        values = tuple(int(v) for v in str(text).split(","))
    except ValueError:
        raise InputError(f"--penalties {text!r}: expected three integers x,o,e") from None
    return check_penalties(values)


def check_penalties(penalties):
    """Check (x, o, e): integers with x ≥ 1, o ≥ 0, e ≥ 1; return them as a tuple."""
    try:
        x, o, e = (int(v) for v in penalties)
    except (TypeError, ValueError):
        raise InputError(f"penalties {penalties!r}: expected three integers x,o,e") from None
    if x < 1 or o < 0 or e < 1 or max(x, o + e) > 4096:
        raise InputError(f"penalties {x},{o},{e}: need mismatch x ≥ 1, gap-open o ≥ 0, "
                         f"gap-extend e ≥ 1 and max(x, o+e) ≤ 4096")
    return x, o, e


# ---------------------------------------------------------------- entry point

def wfa(patterns, texts, penalties=DEFAULT_PENALTIES, edit=False, score_only=False,
        backend="auto", device=None, timing=None, tuning=None, cigar_mode="packed"):
    """Globally align ``patterns[i]`` with ``texts[i]`` for every ``i``.

    Parameters
    ----------
    patterns, texts : Sequences or sequence of str
        The two sides of each pair (same count).
    penalties : tuple of int
        ``(x, o, e)``: mismatch, gap open, gap extend; a gap of length L costs
        ``o + e*L``, a match 0. Ignored when ``edit``.
    edit : bool
        Edit distance (unit mismatch, insertion and deletion).
    score_only : bool
        Skip the CIGAR.
    backend : {"auto", "cpu", "gpu"}
    device : int, optional
        CUDA device ordinal.
    timing : dict, optional
        GPU only: receives ``"gpu_ms"`` (CUDA-event time of the kernels) and
        ``"rescued"`` (pairs the CPU twin aligned).
    tuning : dict, optional
        GPU only, for tests and benchmarks: launch overrides. ``threads``
        (per block, general kernels), ``pool`` (first-pass pool entries per
        block), ``max_pool`` (cap on every pass; forces the CPU rescue),
        ``mem_fraction`` (of free GPU memory), ``ewfa_k`` (eWFA diagonal
        bound), ``ewfa_pool``, ``ewfa_threads``, ``no_ewfa``, ``blocks_per_sm``,
        ``global_seqs`` (read sequences from global memory), ``chunk_pairs``
        and ``chunk_bases`` (pairs per GPU batch, default 2 M and 600 M bases).
        With ``cigar_mode="packed"``, ``pool`` and ``max_pool`` count 32-bit
        words of bit planes and ``threads`` must be a multiple of 32.
        Results never depend on them.
    cigar_mode : {"chain", "packed"}
        GPU backtrace design for gap-affine CIGARs (see :data:`CIGAR_MODES`);
        the results are identical, only the speed differs. ``"packed"``, the
        default, was faster on every shape measured on the H200
        (bench/RESULTS.md, "WFA"). Ignored by the
        CPU backend, by edit distance and in score-only mode.

    Returns
    -------
    WFAResult
        Scores are the minimal penalty (≥ 0). CIGAR ``I`` is a text base
        missing from the pattern, ``D`` a pattern base missing from the text.
    """
    patterns = patterns if isinstance(patterns, Sequences) else encode_sequences(patterns)
    texts = texts if isinstance(texts, Sequences) else encode_sequences(texts)
    if len(patterns) != len(texts):
        raise InputError(f"{len(patterns)} patterns but {len(texts)} texts")
    if cigar_mode not in CIGAR_MODES:
        raise ValueError(f"cigar_mode {cigar_mode!r}: expected one of {CIGAR_MODES}")
    x, o, e = (1, 0, 1) if edit else check_penalties(penalties)
    g = math.gcd(math.gcd(x, o), e)
    pen = (x // g, o // g, e // g)
    which = resolve_backend(backend, device)
    if len(patterns) == 0:
        empty = np.zeros(1, np.int64)
        return WFAResult(np.zeros(0, np.int64), None if score_only else np.zeros(0, np.uint8),
                         None if score_only else empty)
    longest = int(max(patterns.lengths.max(), texts.lengths.max()))
    if longest > MAX_LENGTH:
        raise InputError(f"a sequence of {longest} bases; at most {MAX_LENGTH} are supported")
    if which == "gpu":
        result = _gpu_chunks(patterns, texts, pen, edit, not score_only, timing, dict(tuning or {}),
                             cigar_mode)
    else:
        result = _cpu_align(patterns, texts, pen, edit, not score_only)
    result.scores *= g
    return result


def _slice(S, a, b):
    """Sequences ``a:b`` of ``S`` (sharing its codes)."""
    return Sequences(S.codes, S.offsets[a:b + 1])


def _gpu_chunks(P, T, pen, edit, cigar, timing, tuning, cigar_mode="packed"):
    """GPU path in chunks of at most ``chunk_pairs`` pairs and ``chunk_bases`` bases."""
    max_pairs = int(tuning.get("chunk_pairs", 2_000_000))
    max_bases = int(tuning.get("chunk_bases", 600_000_000))
    bases = np.cumsum(P.lengths + T.lengths)
    parts, a = [], 0
    while a < len(P):
        limit = (bases[a - 1] if a else 0) + max_bases
        b = min(len(P), a + max_pairs, max(a + 1, int(np.searchsorted(bases, limit, "right"))))
        t = {} if timing is not None else None
        parts.append(_gpu_align(_slice(P, a, b), _slice(T, a, b), pen, edit, cigar, t, tuning,
                                cigar_mode))
        if t is not None:
            timing["gpu_ms"] = timing.get("gpu_ms", 0.0) + t["gpu_ms"]
            timing["rescued"] = timing.get("rescued", 0) + t["rescued"]
        a = b
    if len(parts) == 1:
        return parts[0]
    scores = np.concatenate([r.scores for r in parts])
    if not cigar:
        return WFAResult(scores)
    lengths = np.concatenate([np.diff(r.op_offsets) for r in parts])
    off = np.zeros(len(scores) + 1, np.int64)
    np.cumsum(lengths, out=off[1:])
    return WFAResult(scores, np.concatenate([r.ops for r in parts]), off)


# ---------------------------------------------------------------- CPU

def _cpu_raw(P, T, pen, edit, cigar, idx):
    """Run the numba twin on pairs ``idx``; return (scores, lengths, buffer, offsets)."""
    from .cpu import wfa as cpu
    n = len(P)
    cap = np.zeros(n, np.int64)
    if cigar:
        cap[idx] = P.lengths[idx] + T.lengths[idx]
    cig_off = np.zeros(n + 1, np.int64)
    np.cumsum(cap, out=cig_off[1:])
    buf = np.empty(int(cig_off[-1]), np.uint8)
    lengths = np.zeros(n, np.int64)
    scores = np.full(n, -1, np.int64)
    x, o, e = pen
    cpu.align_batch(P.codes, P.offsets, T.codes, T.offsets, np.asarray(idx, np.int64),
                    x, o, e, bool(edit), bool(cigar), cig_off, buf, lengths, scores)
    return scores, lengths, buf, cig_off


def _pack_ops(buf, buf_off, lengths):
    """Gapless CSR (ops, offsets) from per-pair slices of ``buf``."""
    from .cpu import wfa as cpu
    out_off = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=out_off[1:])
    out = np.empty(int(out_off[-1]), np.uint8)
    cpu.compact(buf, buf_off, lengths.astype(np.int64), out_off, out)
    return out, out_off


def _cpu_align(P, T, pen, edit, cigar):
    scores, lengths, buf, off = _cpu_raw(P, T, pen, edit, cigar, np.arange(len(P)))
    if not cigar:
        return WFAResult(scores)
    ops, op_off = _pack_ops(buf, off, lengths)
    return WFAResult(scores, ops, op_off)


def pack_2bit(P, T):
    """Pack patterns and texts into one word array.

    Returns
    -------
    words : ndarray of uint32
        16 bases per word, base j in bits ``2*(j%16)``; two spare words at the end.
    pw, tw : ndarray of int64
        First word of each pattern and of each text.
    """
    from .cpu import wfa as cpu
    pl, tl = P.lengths, T.lengths
    pn = (pl + 15) // 16
    tn = (tl + 15) // 16
    pw = np.zeros(len(P), np.int64)
    tw = np.zeros(len(T), np.int64)
    np.cumsum(pn[:-1], out=pw[1:])
    total_p = int(pn.sum())
    np.cumsum(tn[:-1], out=tw[1:])
    tw += total_p
    words = np.zeros(total_p + int(tn.sum()) + 2, np.uint32)
    cpu.pack_words(P.codes, P.offsets, pw, words)
    cpu.pack_words(T.codes, T.offsets, tw, words)
    return words, pw, tw


# ---------------------------------------------------------------- GPU

def _threads_for(length):
    """Threads per block for the general kernels: about one per 8 bases, 64-512."""
    t = 64
    while t < 512 and t * 8 < length:
        t *= 2
    return t


class _GpuBatch:
    """Device arrays of one call: packed pairs, outputs and the kernels' arguments.

    ``packed`` is true when the general gap-affine kernel runs with the packed
    backtrace (``cigar_mode="packed"``, CIGAR wanted, not edit distance).
    """

    def __init__(self, P, T, pen, edit, cigar, cigar_mode="packed"):
        import cupy as cp
        self.cp = cp
        self.n = len(P)
        self.pen = pen
        self.edit = edit
        self.cigar = cigar
        self.packed = bool(cigar and not edit and cigar_mode == "packed")
        self.pl = P.lengths.astype(np.int32)
        self.tl = T.lengths.astype(np.int32)
        words, pw, tw = pack_2bit(P, T)
        self.words = cp.asarray(words)
        self.pw = cp.asarray(pw)
        self.tw = cp.asarray(tw)
        self.d_pl = cp.asarray(self.pl)
        self.d_tl = cp.asarray(self.tl)
        self.scores = cp.full(self.n, -1, cp.int32)
        self.status = cp.zeros(self.n, cp.int32)
        self.dummy_u32 = cp.zeros(2, cp.uint32)
        self.dummy_i32 = cp.zeros(2, cp.int32)
        self.dummy_u64 = cp.zeros(1, cp.uint64)
        if cigar:
            cap = (2 * (self.pl.astype(np.int64) + self.tl)) // 16 + 2
            off = np.zeros(self.n + 1, np.int64)
            np.cumsum(cap, out=off[1:])
            self.ops_off = cp.asarray(off)
            self.ops = cp.empty(int(off[-1]), cp.uint32)
            self.n_ops = cp.zeros(self.n, cp.int32)
        else:
            self.ops_off = cp.zeros(self.n + 1, cp.int64)
            self.ops = self.dummy_u32
            self.n_ops = self.dummy_i32
        dev = cp.cuda.Device()
        self.sms = int(dev.attributes["MultiProcessorCount"])

    def max_score(self, idx):
        """A score no alignment of pairs ``idx`` can exceed (a runaway guard)."""
        x, o, e = self.pen
        longest = int(max(self.pl[idx].max(), self.tl[idx].max()))
        return min(2 * (o + e) + (x + 2 * e) * longest + 1, 2**30)

    def launch(self, name, idx, blocks, threads, K, pool_cap, shared, wf_words, seq_cap=0):
        """Run alignment kernel ``name`` over pairs ``idx`` with a fixed grid.

        ``pool_cap`` is the backtrace pool per block: (word, previous) entries
        for the chain kernels, 32-bit bit-plane words for ``wfa_affine_packed``.
        """
        from .cuda import get_kernel
        cp = self.cp
        x, o, e = self.pen
        d_idx = cp.asarray(idx.astype(np.int32))
        queue = cp.zeros(1, cp.int32)
        wf_off = cp.empty(max(wf_words, 1), cp.int32)
        packed = name == "wfa_affine_packed"
        if self.cigar and wf_words and not packed:
            wf_bw = cp.empty(wf_words, cp.uint32)
            wf_bp = cp.empty(wf_words, cp.uint32)
        else:
            wf_bw = wf_bp = self.dummy_u32
        if packed:
            pool = cp.empty(max(blocks * pool_cap, 4), cp.uint32)
        elif self.cigar and pool_cap and name.startswith("wfa_"):
            pool = cp.empty(blocks * pool_cap, cp.uint64)
        else:
            pool = self.dummy_u64
        kernel = get_kernel("wfa", name)
        if shared > 48 * 1024:
            kernel.max_dynamic_shared_size_bytes = shared
        i32 = np.int32
        head = (self.words, self.pw, self.d_pl, self.tw, self.d_tl, d_idx, i32(len(idx)), queue,
                i32(x), i32(o), i32(e), i32(K), i32(self.max_score(idx)), wf_off)
        tail = (self.scores, self.status, self.ops, self.ops_off, self.n_ops, i32(seq_cap))
        if packed:
            args = head + (pool, i32(pool_cap)) + tail
        else:
            args = head + (wf_bw, wf_bp, pool, i32(pool_cap)) + tail
        kernel((blocks,), (threads,), args, shared_mem=shared)
        del wf_off, wf_bw, wf_bp, pool

    def failed(self, idx):
        """Pairs of ``idx`` whose status is not 0 (each pass rewrites the status it visits)."""
        st = self.status[self.cp.asarray(idx.astype(np.int32))].get()
        return idx[st != 0]


def _ewfa_pass(b, idx, tuning):
    """Short edit-distance pairs through the shared-memory kernel; return the overflow."""
    short = idx[np.maximum(b.pl[idx], b.tl[idx]) <= EWFA_MAX_LEN]
    if short.size == 0:
        return idx
    longest = int(max(b.pl[short].max(), b.tl[short].max()))
    K = min(longest, int(tuning.get("ewfa_k", 128)))
    W = 2 * K + 1
    pool_cap = int(tuning.get("ewfa_pool", 512)) if b.cigar else 0
    seq_cap = longest // 16 + 2
    shared = pool_cap * 8 + 2 * W * 4 * (3 if b.cigar else 1) + 2 * seq_cap * 4
    threads = int(tuning.get("ewfa_threads", 128))
    blocks = min(short.size, b.sms * max(1, min(32, 2048 // threads)))
    name = "ewfa_edit_cigar" if b.cigar else "ewfa_edit_score"
    b.launch(name, short, blocks, threads, K, pool_cap, shared, 0, seq_cap)
    rest = idx[np.maximum(b.pl[idx], b.tl[idx]) > EWFA_MAX_LEN]
    return np.concatenate([rest, b.failed(short)])


def _general_pass(b, idx, tuning, big=False):
    """Pairs ``idx`` through the global-memory kernels; return those that overflowed."""
    cp = b.cp
    longest = int(max(b.pl[idx].max(), b.tl[idx].max()))
    K = longest
    W = 2 * K + 1
    x, o, e = b.pen
    R = 2 if b.edit else max(x, o + e) + 1
    rows = 2 if b.edit else R + 2 * (e + 1)  # M ring, then I and D rings
    wf_per_block = rows * W
    bytes_wf = wf_per_block * (12 if b.cigar and not b.packed else 4)
    threads = int(tuning.get("threads", _threads_for(longest)))
    per_sm = int(tuning.get("blocks_per_sm", max(1, min(32, 2048 // threads))))
    blocks = min(idx.size, b.sms * (1 if big else per_sm))
    free = cp.cuda.runtime.memGetInfo()[0] + cp.get_default_memory_pool().free_bytes()
    budget = int(free * float(tuning.get("mem_fraction", 0.5)))
    pool_cap = 0
    if b.packed:
        if threads % 32:
            raise ValueError(f"cigar_mode='packed' needs threads per block in multiples of 32, not {threads}")
        blocks, pool_cap = _packed_area(blocks, bytes_wf, budget, W, big, tuning)
    elif b.cigar:
        want = int(tuning.get("pool", max(4096, 3 * W * W // 40))) if not big else 2**31 - 2
        while blocks > 1 and blocks * (bytes_wf + 8 * 4096) > budget:
            blocks //= 2
        pool_cap = int(min(want, max(4096, (budget // blocks - bytes_wf) // 8), 2**31 - 2,
                           tuning.get("max_pool", 2**31)))
    else:
        while blocks > 1 and blocks * bytes_wf > budget:
            blocks //= 2
    if blocks * bytes_wf > budget:
        return idx
    name = ("wfa_edit_" if b.edit else "wfa_affine_") + ("cigar" if b.cigar else "score")
    if b.packed:
        name = "wfa_affine_packed"
    shared = 0 if b.edit else 2 * R * 4
    seq_cap = longest // 16 + 2  # both sequences in shared memory when they fit
    if shared + 8 * seq_cap > SHARED_SEQ_BYTES or tuning.get("global_seqs"):
        seq_cap = 0
    shared += 8 * seq_cap
    b.launch(name, idx, blocks, threads, K, pool_cap, shared, blocks * wf_per_block, seq_cap)
    return b.failed(idx)


def _packed_area(blocks, bytes_wf, budget, W, big, tuning):
    """Blocks and bit-plane words per block for the packed kernel.

    The first pass asks for ``W*W/32`` words (4 bits for each of ``W*W/4``
    cells: wavefronts that widen by two diagonals per score up to the full
    width ``W``; a 10 kbp pair at 10 % error uses about ``W*W/370``), the
    retry (``big``) for as much as the memory budget gives one block per SM.
    Both stay within ``budget`` bytes with the rings, and are multiples of 4
    (16-byte groups and 8-byte headers stay aligned).
    """
    want = 2**31 - 4 if big else int(tuning.get("pool", max(PACKED_MIN_WORDS, W * W // 32)))
    while blocks > 1 and blocks * (bytes_wf + 4 * PACKED_MIN_WORDS) > budget:
        blocks //= 2
    words = int(min(want, max(PACKED_MIN_WORDS, (budget // blocks - bytes_wf) // 4), 2**31 - 4,
                    tuning.get("max_pool", 2**31)))
    return blocks, words - words % 4


def _gpu_finish_ops(b):
    """Replay op lists into CIGAR letters and pack them; return host (ops, off, lengths)."""
    from .cuda import get_kernel
    cp = b.cp
    cap = b.pl.astype(np.int64) + b.tl
    cig_off = np.zeros(b.n + 1, np.int64)
    np.cumsum(cap, out=cig_off[1:])
    d_cig_off = cp.asarray(cig_off)
    cig = cp.empty(max(int(cig_off[-1]), 1), cp.uint8)
    cig_len = cp.zeros(b.n, cp.int32)
    threads = 128
    grid = (b.n + threads - 1) // threads
    get_kernel("wfa", "wfa_replay")(
        (grid,), (threads,),
        (b.words, b.pw, b.d_pl, b.tw, b.d_tl, np.int32(b.n), b.ops, b.ops_off, b.n_ops,
         np.int32(1 if b.edit else 0), cig, d_cig_off, cig_len, b.status))
    out_off = cp.concatenate([cp.zeros(1, cp.int64), cp.cumsum(cig_len, dtype=cp.int64)])
    total = int(out_off[-1:].get()[0])
    out = cp.empty(max(total, 1), cp.uint8)
    get_kernel("wfa", "wfa_compact")(
        (grid,), (threads,), (cig, d_cig_off, cig_len, out_off, out, np.int32(b.n)))
    return out, out_off, cig_len


def _gpu_align(P, T, pen, edit, cigar, timing=None, tuning=None, cigar_mode="packed"):
    """The GPU path of :func:`wfa` (penalties already reduced)."""
    b = _GpuBatch(P, T, pen, edit, cigar, cigar_mode)
    cp = b.cp
    tuning = dict(tuning or {})
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    todo = np.arange(b.n, dtype=np.int64)
    if edit and not tuning.get("no_ewfa"):
        todo = _ewfa_pass(b, todo, tuning)
    if todo.size:
        todo = _general_pass(b, todo, tuning)
    if todo.size and b.cigar:
        log.info("wfa: %d pair(s) overflowed the backtrace pool; retrying with a larger one", todo.size)
        todo = _general_pass(b, todo, tuning, big=True)
    if cigar:
        d_ops, d_off, d_len = _gpu_finish_ops(b)
    end.record()
    end.synchronize()
    todo = np.union1d(todo, np.flatnonzero(b.status.get() != 0))
    if timing is not None:
        timing["gpu_ms"] = cp.cuda.get_elapsed_time(start, end)
        timing["rescued"] = int(todo.size)
    scores = b.scores.get().astype(np.int64)
    if todo.size:
        log.info("wfa: %d pair(s) aligned by the CPU twin (GPU bounds exceeded)", todo.size)
    if not cigar:
        if todo.size:
            scores[todo] = _cpu_raw(P, T, pen, edit, False, todo)[0][todo]
        return WFAResult(scores)
    off = d_off.get()
    ops = d_ops.get()[:int(off[-1])]
    if todo.size:
        return _merge_rescued(P, T, pen, edit, todo, scores, ops, off)
    return WFAResult(scores, ops, off)


def _merge_rescued(P, T, pen, edit, todo, scores, ops, off):
    """Replace pairs ``todo`` by the CPU twin's results."""
    from .cpu import wfa as cpu
    c_scores, c_len, c_buf, c_off = _cpu_raw(P, T, pen, edit, True, todo)
    scores[todo] = c_scores[todo]
    take = np.zeros(len(scores), bool)
    take[todo] = True
    g_len = np.diff(off)
    lengths = np.where(take, c_len, g_len)
    out_off = np.zeros(len(scores) + 1, np.int64)
    np.cumsum(lengths, out=out_off[1:])
    out = np.empty(int(out_off[-1]), np.uint8)
    cpu.compact(ops, off, np.where(take, 0, g_len), out_off, out)
    cpu.compact(c_buf, c_off, np.where(take, c_len, 0), out_off, out)
    return WFAResult(scores, out, out_off)
