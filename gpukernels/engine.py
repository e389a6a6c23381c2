"""The alignment pipeline: seeds → ungapped x-drop → gapped y-drop → traceback.

:func:`align` runs both strands of one target/query pair through the stage
functions on the chosen backend and returns canonical :class:`Alignments`.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from . import fmindex, gapped, gecko, jit_cache, seedhit, seeds, ungapped
from .alignments import Alignments
from .backend import resolve_backend
from .errors import InputError
from .genome import Genome
from .scoring import Scoring, lastz_scoring

log = logging.getLogger("gpukernels")

#: query positions of the first batch of seed hits; each later batch takes as many as should give about
#: QUERY_HITS hits at the hits per position seen so far, at most QUERY_BATCH_MAX (bounds memory: two int64
#: arrays of hits; E. coli gives 5.7 hits a position, and two batches instead of five took 0.04-0.06 s
#: less per pair on the GPU). QUERY_HITS = 0: every batch QUERY_BATCH. The hits are the same either way.
QUERY_BATCH = 1 << 20
QUERY_BATCH_MAX = 1 << 24
QUERY_HITS = 1 << 26
#: on the GPU, with both strands at once, a strand whose first query batch holds no HSP of YIELD_BELOW letters
#: or more runs its later seed and ungapped batches on a stream of the least priority: without long similarity
#: its gapped stage is short, and the other strand's, which holds the long extensions (on E. coli MG1655 × DH1
#: the − strand's, with HSPs up to 608 kb, against 3 kb on the + strand), starts sooner. 0: never.
YIELD_BELOW = 1 << 14
#: seconds between GIL handovers while the two strands share the GPU (Python's default is 0.005)
SWITCH_S = 1e-4
#: Python's cyclic garbage collector paused while the two strands share the GPU (:func:`gc_paused`)
PAUSE_GC = True
#: the largest score the stages' 32-bit cells hold (both backends keep their DP rows in int32)
SCORE_ROOF = (1 << 31) - 1
#: host threads of the GPU backend where none are given: its walk takes half of them per strand in target
#: stripes, up to 8 a strand (``gpu/stripes.STRIPES``), and its long extensions the rest; every
#: benchmark ran it with 16 (bench/RESULTS.md)
GPU_HOST_THREADS = 16


_gc_lock = threading.Lock()
_gc_held = {"pairs": 0, "was_enabled": False}


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector off inside the block, on again after the last such block ends.

    A collection stops every thread of the process: on the GPU, the strands'
    walks, the relay's threads and the threads that feed the device all wait
    meanwhile, and the device runs dry. On E. coli MG1655 x DH1 a full
    collection fell inside one pair in 16 and took 124 ms there (0.584 s
    against 0.44-0.49 s), and the young ones took 2-11 ms a pair. Reference
    counting frees the pair's arrays as before; only objects in reference
    cycles wait, for the collections that fall due after the block. Blocks
    may overlap (pairs aligned on several threads at once): the collector
    comes back on after the last one, if it was on before the first.
    """
    with _gc_lock:
        if _gc_held["pairs"] == 0:
            _gc_held["was_enabled"] = gc.isenabled()
            gc.disable()
        _gc_held["pairs"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_held["pairs"] -= 1
            if _gc_held["pairs"] == 0 and _gc_held["was_enabled"]:
                gc.enable()


def default_threads(backend, threads=None):
    """The threads an alignment runs with: ``threads`` where given, else 1 on the CPU backend (2 or more
    align the strands at once there) and on the GPU backend the CPUs this process may use, at most
    :data:`GPU_HOST_THREADS` (with 1, the default before, its walk took every anchor in turn). The
    output never depends on them."""
    if threads is not None:
        return max(1, int(threads))
    if backend != "gpu":
        return 1
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:      # (not on every platform)
        available = os.cpu_count() or 1
    return max(1, min(GPU_HOST_THREADS, available))


@dataclass
class AlignOptions:
    """What to align and how.

    Attributes
    ----------
    strand : {"both", "plus", "minus"}
    unmask : bool
        Let soft-masked (lowercase) bases seed.
    seed : str
        Spaced-seed pattern.
    transition : bool
        Allow one transition in a seed.
    self_mode : bool
        Target and query are the same genome: skip the trivial diagonal and
        report each mirror pair once.
    scoring : Scoring
    preset : {"lastz", "gecko"}
        ``gecko``: exact ``kmer``-mers, GECKO's ungapped fragments kept at
        ``min_identity`` percent, no gapped stage (see :mod:`gpukernels.gecko`).
    seeding : {"spaced", "fmindex"}
        ``fmindex``: words of ``seed_length`` letters found within Hamming
        ``mismatches`` by an FM-index of the target, words over ``occ_cap``
        occurrences dropped (see :mod:`gpukernels.fmindex`); ``fm_index_path``
        reuses a saved index of the same target.
    seed_filter : bool
        Drop isolated seed hits before ungapped extension (:mod:`gpukernels.seedhit`).
    screen_min_identity : float or None
        Skip the pair when b-mer hit counts show no query window can reach
        this identity (percent; :func:`gpukernels.seedhit.screen_verdict`;
        the documented cutoff is :data:`gpukernels.seedhit.DEFAULT_SCREEN_IDENTITY`).
        None: no screen.
    traceback : {"auto", "dp", "wfa"}
        Paths of the gapped stage: ``dp`` the y-drop DP's traceback; ``wfa``
        (uniform scoring, CPU backend) the DP score-only, then WFA between
        the anchor and each side's optimum, same scores
        (:mod:`gpukernels.cpu.wfa_traceback`); ``auto`` picks with
        :func:`resolve_traceback`.
    """

    strand: str = "both"
    unmask: bool = False
    seed: str = seeds.DEFAULT_SEED
    transition: bool = True
    self_mode: bool = False
    scoring: Scoring = field(default_factory=lastz_scoring)
    preset: str = "lastz"
    kmer: int = 32
    min_identity: float = 80.0
    seeding: str = "spaced"
    seed_length: int = 20
    mismatches: int = 0
    occ_cap: int = 128
    fm_index_path: str | None = None
    seed_filter: bool = False
    screen_min_identity: float | None = None
    traceback: str = "auto"


@dataclass
class StageStats:
    """Counts and seconds per stage, summed over strands."""

    seed_hits: int = 0
    hsps: int = 0
    anchors_extended: int = 0
    alignments: int = 0
    dp_cells: int = 0
    seconds: dict = field(default_factory=lambda: {"seed": 0.0, "ungapped": 0.0, "gapped": 0.0})
    #: the pair screen's :class:`~gpukernels.seedhit.ScreenVerdict` (None when it did not run)
    screen: seedhit.ScreenVerdict | None = None
    #: WFA traceback: sides per outcome (wfa, fallback_n, ...), summed over strands
    wfa: dict = field(default_factory=dict)

    def add(self, other):
        """Add another StageStats' counts and seconds to this one."""
        for name in ("seed_hits", "hsps", "anchors_extended", "alignments", "dp_cells"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for stage, sec in other.seconds.items():
            self.seconds[stage] = self.seconds.get(stage, 0.0) + sec
        for key, count in other.wfa.items():
            self.wfa[key] = self.wfa.get(key, 0) + count


#: what ``traceback="auto"`` picks for a uniform scoring on the CPU backend (bench/RESULTS.md,
#: "WFA in the engine traceback")
UNIFORM_TRACEBACK = "dp"


def resolve_traceback(options: AlignOptions, backend):
    """The gapped stage's traceback, ``"dp"`` or ``"wfa"``, for these options and backend.

    Raises
    ------
    InputError
        ``wfa`` asked for with a non-uniform matrix or on the GPU backend.
    """
    from .scoring import uniform_scores
    choice = options.traceback
    if choice not in ("auto", "dp", "wfa"):
        raise InputError(f"unknown traceback {choice!r}; choose auto, dp or wfa")
    uniform = uniform_scores(options.scoring) is not None
    if choice == "auto":
        return UNIFORM_TRACEBACK if uniform and backend == "cpu" else "dp"
    if choice == "wfa" and not uniform:
        raise InputError("--traceback wfa needs uniform scoring (--preset uniform or --match/--mismatch)")
    if choice == "wfa" and backend != "cpu":
        raise InputError("--traceback wfa runs on the CPU backend only")
    return choice


def _record_bounds(genome: Genome, pos, reverse):
    """Bounds ``[lo, hi)`` of the record holding each position of a strand's array."""
    total = len(genome.codes)
    fwd = total - 1 - pos if reverse else pos
    rec = genome.record_of(fwd)
    lo = genome.starts[rec]
    hi = lo + genome.sizes[rec]
    if reverse:
        lo, hi = total - hi, total - lo
    return lo, hi


def _to_records(raw, target: Genome, query: Genome, reverse):
    """Concatenated-array coordinates → record coordinates (forward strand)."""
    n = len(raw["t0"])
    total_q = len(query.codes)
    t_rec = target.record_of(raw["t0"])
    t_start = raw["t0"] - target.starts[t_rec] + target.offsets[t_rec]
    t_end = raw["t1"] - target.starts[t_rec] + target.offsets[t_rec]
    if reverse:
        f0, f1 = total_q - raw["q1"], total_q - raw["q0"]
    else:
        f0, f1 = raw["q0"], raw["q1"]
    q_rec = query.record_of(f0)
    q_start = f0 - query.starts[q_rec] + query.offsets[q_rec]
    q_end = f1 - query.starts[q_rec] + query.offsets[q_rec]
    return Alignments(t_rec, t_start, t_end, q_rec, q_start, q_end,
                      np.full(n, 1 if reverse else 0, dtype=np.int8), raw["score"], raw["op_off"],
                      raw["ops"])


def _strand_hsps(t_seed, q_seed, t_codes, q_codes, index, seed, options, self_mode, backend, stats,
                 lesser=None):
    """One strand's seed hits extended to anchored HSPs, the query taken in batches (:data:`QUERY_BATCH`).

    ``lesser``: a context that runs GPU work on a stream of the least priority, for the batches after
    the first when it found no long HSP (:data:`YIELD_BELOW`); None: every batch on the caller's stream.
    """
    sc = options.scoring
    fm = options.seeding == "fmindex"
    clock = time.perf_counter()
    qkeys = None if fm else seeds.seed_keys(q_seed, seed, backend)
    t_keys = time.perf_counter()
    diag_end = ungapped.new_diag_end(len(t_codes) + len(q_codes) + 1, backend)
    parts = []
    batch_stream = contextlib.nullcontext
    # each batch's anchors are found while the next batch runs (on the CPU, on a host thread: a megabase
    # HSP takes milliseconds to slide its window over), or at once on the device (GPU: well under one)
    with ThreadPoolExecutor(1, thread_name_prefix="ava-anchors") as anchoring:
        lo, seen_hits = 0, 0
        while lo < len(q_codes):
            size = QUERY_BATCH
            if QUERY_HITS and lo:
                size = min(QUERY_BATCH_MAX, max(QUERY_BATCH, QUERY_HITS * lo // max(seen_hits, 1)))
            hi = min(lo + size, len(q_codes))
            with batch_stream():
                t1 = time.perf_counter()
                if fm:
                    hit_q, hit_t = fmindex.find_hits(index, q_seed, lo, hi, options.seed_length, options.mismatches,
                                                     options.occ_cap, self_mode, backend)
                else:
                    hit_q, hit_t = seeds.find_hits(index, qkeys, lo, hi, options.transition, self_mode, backend)
                seen_hits += len(hit_q)
                if options.seed_filter:
                    hit_q, hit_t = seedhit.filter_candidates(hit_q, hit_t, backend)
                t2 = time.perf_counter()
                stats.seconds["seed"] += t2 - t1
                stats.seed_hits += len(hit_q)
                span = options.seed_length if fm else seed.span
                part = ungapped.extend_hits(t_seed, q_seed, hit_q, hit_t, span, sc, diag_end, backend)
                if backend == "gpu":
                    parts.append(ungapped.add_anchors(part, t_codes, q_codes, sc, backend))
                else:
                    parts.append(anchoring.submit(ungapped.add_anchors, part, t_codes, q_codes, sc))
                stats.seconds["ungapped"] += time.perf_counter() - t2
            if lesser is not None and lo == 0 and YIELD_BELOW and not (part.q1 - part.q0 >= YIELD_BELOW).any():
                batch_stream = lesser
            lo = hi
        stats.seconds["seed"] += t_keys - clock
        hsps = ungapped.HSPs.concat([p.result() if isinstance(p, Future) else p for p in parts])
    return hsps


def align_strand(target: Genome, query: Genome, index, options: AlignOptions, reverse, backend, stats, threads=1,
                 lesser=None):
    """Align one strand of the query; returns :class:`Alignments` (``threads``: see :func:`align`).

    ``lesser``: see :func:`_strand_hsps` (:func:`align` gives it when the strands share the GPU).
    """
    sc = options.scoring
    fm = options.seeding == "fmindex"
    seed = None if fm else index.seed
    t_codes = target.codes
    t_seed = target.seed_codes(options.unmask)
    if reverse:
        q_codes = query.reverse_complement()
        q_seed = query.seed_codes_rc(options.unmask)
    else:
        q_codes = query.codes
        q_seed = query.seed_codes(options.unmask)
    self_mode = 0
    if options.self_mode:
        self_mode = 2 if reverse else 1
    hsps = _strand_hsps(t_seed, q_seed, t_codes, q_codes, index, seed, options, self_mode, backend, stats, lesser)
    stats.hsps += len(hsps)
    t3 = time.perf_counter()
    order = gapped.anchor_order(hsps.score, hsps.anchor_q, hsps.anchor_t)
    aq, at = hsps.anchor_q[order], hsps.anchor_t[order]
    t_lo, t_hi = _record_bounds(target, at, False)
    q_lo, q_hi = _record_bounds(query, aq, reverse)
    raw = gapped.extend_anchors(t_codes, q_codes, aq, at, (t_lo, t_hi, q_lo, q_hi), sc,
                                self_barrier=options.self_mode and not reverse, backend=backend,
                                traceback=resolve_traceback(options, backend), threads=threads,
                                label=f"strand {'-' if reverse else '+'}")
    stats.seconds["gapped"] += time.perf_counter() - t3
    for key, count in raw.get("wfa_stats", {}).items():
        stats.wfa[key] = stats.wfa.get(key, 0) + count
    stats.dp_cells += raw["cells"]
    stats.anchors_extended += raw["extended"]
    alns = _to_records(raw, target, query, reverse)
    stats.alignments += len(alns)
    return alns


def longest_safe_alignment(scoring: Scoring):
    """Columns an alignment may hold before its score could pass :data:`SCORE_ROOF` (None: never).

    An extension's score grows by at most the best substitution score a
    column; the DP's cells hold it in 32 bits on both backends, so an
    alignment longer than this may be cut short where its score would pass
    the roof (one more column fits the sum before the cut).
    """
    top = int(np.asarray(scoring.matrix).max())
    return None if top <= 0 else SCORE_ROOF // top - 1


def warn_score_roof(target: Genome, query: Genome, scoring: Scoring):
    """Log a warning where records of both genomes are longer than :func:`longest_safe_alignment`.

    Only an alignment that long could reach the roof (nearly identical
    records, with the default scores more than 21 Mb of them); the
    workflow's windows (``split.size``, 10 Mb by default) keep every record
    below it. Returns the limit where it warned, else None.
    """
    limit = longest_safe_alignment(scoring)
    if limit is None or not target.n_records or not query.n_records:
        return None
    t_long, q_long = int(target.sizes.max()), int(query.sizes.max())
    if min(t_long, q_long) <= limit:
        return None
    log.warning("%s and %s hold records of %s and %s letters: an alignment of more than %s columns would pass "
                "the 32-bit score range and may be cut short there. Split the records below that length (the "
                "workflow's split.size) where such an alignment may exist.", target.name, query.name,
                f"{t_long:,}", f"{q_long:,}", f"{limit:,}")
    return limit


def align(target: Genome, query: Genome, options: AlignOptions | None = None, backend="auto",
          device=None, gpu_mem=None, stats: StageStats | None = None, threads=None):
    """Align ``query`` against ``target`` on both strands (or one).

    Parameters
    ----------
    target, query : Genome
    options : AlignOptions, optional
    backend : {"auto", "cpu", "gpu"}
    device : int, optional
        CUDA device for the GPU backend.
    gpu_mem : int, optional
        GPU memory budget in bytes (GPU backend); output does not depend on it.
    stats : StageStats, optional
        Filled with per-stage counts and times.
    threads : int, optional
        CPU backend: with 2 or more, the two strands are aligned at once.
        GPU backend: host threads for the extensions too long for the GPU
        (at least 2) and the walk's stripes; the two strands are always
        aligned at once, each on a stream of its own with half the memory
        budget. Default: :func:`default_threads`.

    Returns
    -------
    Alignments
        Canonically sorted, exact duplicates removed.
    """
    options = options or AlignOptions()
    if options.strand not in ("both", "plus", "minus"):
        raise InputError(f"unknown strand {options.strand!r}; choose both, plus or minus")
    stats = stats if stats is not None else StageStats()
    chosen = resolve_backend(backend, device)
    if threads is None:
        threads = default_threads(chosen)
        log.info("threads: %d (the default on the %s backend)", threads, chosen)
    if chosen == "gpu":
        from . import gpu
        gpu.set_budget(gpu_mem)
    if options.screen_min_identity is not None:
        verdict = seedhit.screen_verdict(target.codes, query.codes, options.screen_min_identity,
                                         backend=chosen)
        log.info("pair screen: %s (%s)", verdict.verdict, verdict.reason)
        stats.screen = verdict
        if not verdict.passes:
            return Alignments.empty()
    if options.preset == "gecko":
        return gecko.align(target, query, options, chosen, stats)
    if options.preset != "lastz":
        raise InputError(f"unknown preset {options.preset!r}; choose lastz or gecko")
    log.info("gapped traceback: %s", resolve_traceback(options, chosen))  # checks the choice early
    jit_cache.note_first_compile(chosen)
    warn_score_roof(target, query, options.scoring)
    t1 = time.perf_counter()
    if options.seeding == "fmindex":
        fmindex.check_params(options.seed_length, options.mismatches, options.occ_cap)
        index = fmindex.index_for(target.seed_codes(options.unmask), options.fm_index_path)
    elif options.seeding == "spaced":
        index = seeds.build_index(target.seed_codes(options.unmask), seeds.parse_seed(options.seed), chosen)
    else:
        raise InputError(f"unknown seeding {options.seeding!r}; choose spaced or fmindex")
    stats.seconds["seed"] += time.perf_counter() - t1
    strands = [r for r in (False, True) if options.strand != ("plus" if r else "minus")]

    # the numba stages release the GIL, and on the GPU each strand has a stream of its own: the two
    # strands run side by side (the GPU's gapped rounds fill a few multiprocessors, so the other
    # strand's kernels fit beside them)
    side_by_side = len(strands) > 1 and (chosen == "gpu" or threads > 1)
    streams, lesser = contextlib.nullcontext, None
    if chosen == "gpu" and side_by_side:
        from . import gpu
        import cupy
        gpu.set_budget(gpu.budget(gpu_mem) // len(strands))
        gpu.wait()  # the index, read by both strands' streams
        device_id = cupy.cuda.Device().id
        streams = functools.partial(gpu.own_stream, device_id)
        lesser = functools.partial(gpu.own_stream, device_id, urgent=False)

    def one_strand(reverse):
        own = StageStats()
        with streams():
            alns = align_strand(target, query, index, options, reverse, chosen, own,
                                threads=threads if chosen == "gpu" else 1,
                                lesser=lesser)
        log.info("strand %s: %d seed hits, %d HSPs, %d alignments (%.1f s)", "-" if reverse else "+",
                 own.seed_hits, own.hsps, len(alns), sum(own.seconds.values()))
        return alns, own

    if side_by_side:
        # a strand's thread that a GPU wait has released takes the GIL back sooner from the other
        # (the default 5 ms handover cost ~7 % on E. coli; restored after)
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, SWITCH_S) if chosen == "gpu" else switch)
        try:
            paused = gc_paused() if chosen == "gpu" and PAUSE_GC else contextlib.nullcontext()
            with paused, ThreadPoolExecutor(max_workers=len(strands)) as pool:
                results = list(pool.map(one_strand, strands))
        finally:
            sys.setswitchinterval(switch)
    else:
        results = [one_strand(r) for r in strands]
    for _, own in results:
        stats.add(own)
    alns = Alignments.concat([a for a, _ in results])
    return alns.canonical(target.names, query.names)
