"""Benchmarks of the seeding and filtering family (issue 6).

    python bench/seeding_bench.py seedhit-pairs [--pairs 1000000] [--length 256] [--repeats 20] [--backend gpu]
    python bench/seeding_bench.py seedhit-units [--target E.Coli_MG1655-K12] [--query E.Coli_DH1]
    python bench/seeding_bench.py fmindex [--queries 1000000] [--length 20] [--mismatches 1]
        (each query word is searched on both strands: the word and its reverse complement)
    python bench/seeding_bench.py gecko [--target primates/Hsap.fa.gz --query primates/Ggor.fa.gz]
    python bench/seeding_bench.py filter [--target bacteria/H.Pylori_G27.fa.gz ...]

Data paths are relative to ``$AVA_SHARED_DATA`` (default ``../shared/data``).
Each command prints one result line ``RESULT key=value ...`` (after a warm-up
run where a kernel compiles).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
DATA = pathlib.Path(os.environ.get("AVA_SHARED_DATA", ROOT.parent / "shared" / "data"))


def _genome(rel):
    from gpukernels.genome import read_fasta
    return read_fasta(str(DATA / rel))


def _result(**kv):
    print("RESULT " + " ".join(f"{k}={v}" for k, v in kv.items()), flush=True)


def seedhit_pairs(a):
    """Screen n synthetic pairs: from host arrays (copies in and out), and on the GPU from device arrays.

    Then the GPU alone (CUDA events): from byte codes on the device (packing
    included: ``kernel_*``) and from sequences already packed 2 bits a letter,
    as SeedHit keeps them (``packed_*``); counts are left on the device.
    """
    from gpukernels import seedhit
    rng = np.random.default_rng(0)
    n, L = a.pairs, a.length
    t = rng.integers(0, 4, n * L).astype(np.uint8)
    q = t.copy()
    half = rng.random(n) < 0.5                      # half the pairs similar (5% substitutions), half random
    mut = (rng.random(n * L) < 0.05) | np.repeat(~half, L)
    q[mut] = rng.integers(0, 4, int(mut.sum())).astype(np.uint8)
    off = np.arange(0, n * L + 1, L, dtype=np.int64)
    seedhit.screen_pairs(t[:L * 1000], off[:1001], q[:L * 1000], off[:1001], a.min_identity, a.bits, a.backend)
    clock = time.perf_counter()
    ok, counts, need = seedhit.screen_pairs(t, off, q, off, a.min_identity, a.bits, a.backend)
    sec = time.perf_counter() - clock
    kernel = {}
    if a.backend == "gpu":
        import cupy as cp
        from gpu_timing import gpu_seconds
        from gpukernels.gpu import seedhit as gpu_sh
        dt, doff, dq = cp.asarray(t), cp.asarray(off), cp.asarray(q)
        ksec, got = gpu_seconds(lambda: gpu_sh.count_pairs_device(dt, doff, dq, doff, a.bits), a.repeats)
        pt, pq = gpu_sh.pack(dt), gpu_sh.pack(dq)
        csec, _ = gpu_seconds(lambda: gpu_sh.count_packed_device(pt, doff, pq, doff, a.bits), a.repeats)
        cpu_counts = seedhit.count_pairs(t, off, q, off, a.bits, backend="cpu")
        same = bool(np.array_equal(cp.asnumpy(got), cpu_counts))
        kernel = dict(kernel_seconds=f"{ksec:.6f}", kernel_bases_per_s=f"{2 * n * L / ksec:.3e}",
                      packed_seconds=f"{csec:.6f}", packed_bases_per_s=f"{2 * n * L / csec:.3e}",
                      kernel_counts_equal_cpu=same)
    _result(bench="seedhit-pairs", backend=a.backend, pairs=n, length=L, bits=a.bits, seconds=f"{sec:.4f}",
            bases_per_s=f"{2 * n * L / sec:.3e}", **kernel, passed=int(ok.sum()), similar=int(half.sum()),
            similar_rejected=int((~ok & half).sum()))


def seedhit_units(a):
    from gpukernels import seedhit
    t = _genome(a.target)
    q = _genome(a.query)
    W = a.window
    seedhit.best_window_counts(t.codes[:100_000], q.codes[:10_000], a.bits, W, a.backend)
    clock = time.perf_counter()
    counts = seedhit.best_window_counts(t.codes, q.codes, a.bits, W, a.backend)
    sec = time.perf_counter() - clock
    nq, nt = len(q.codes), len(t.codes)
    window_pairs = ((nt + W - 1) // W) * ((nq + W - 1) // W)
    need = int(seedhit.threshold(W, a.bits, a.min_identity))
    _result(bench="seedhit-units", backend=a.backend, target=a.target, query=a.query, seconds=f"{sec:.3f}",
            window_pairs=window_pairs, bases_per_s=f"{window_pairs * 3 * W / sec:.3e}",
            windows_passing=int((counts >= need).sum()), windows=len(counts), need=need)


def fmindex_bench(a):
    from gpukernels import fmindex
    t = _genome(a.target)
    clock = time.perf_counter()
    ix = fmindex.index_for(t.seed_codes(False), a.index)
    build = time.perf_counter() - clock
    q = _genome(a.query)
    rng = np.random.default_rng(1)
    L = a.length
    src = q.codes
    starts = rng.integers(0, len(src) - L, a.queries * 2)
    words = src[starts[:, None] + np.arange(L)]
    words = words[(words < 4).all(axis=1)][:a.queries]
    rc = np.array([3, 2, 1, 0, 4, 5], dtype=np.uint8)[words[:, ::-1]]
    block = np.full((len(words), 2 * L + 2), 4, dtype=np.uint8)   # word, N, its reverse complement, N
    block[:, :L] = words
    block[:, L + 1:2 * L + 1] = rc
    qc = block.ravel()
    fmindex.find_hits(ix, qc[:(2 * L + 2) * 1000], 0, (2 * L + 2) * 1000, L, a.mismatches, a.cap, backend=a.backend)
    clock = time.perf_counter()
    hq, ht = fmindex.find_hits(ix, qc, 0, len(qc), L, a.mismatches, a.cap, backend=a.backend)
    sec = time.perf_counter() - clock
    _result(bench="fmindex", backend=a.backend, target=a.target, target_bp=len(t.codes), queries=len(words),
            length=L, mismatches=a.mismatches, cap=a.cap, build_s=f"{build:.1f}",
            index_bits_per_base=f"{8 * ix.nbytes() / len(t.codes):.2f}", search_s=f"{sec:.3f}",
            hits=len(hq), words_with_hits=len(np.unique(hq // (2 * L + 2))))


def _covered(starts, ends, n):
    mark = np.zeros(n + 1, dtype=np.int64)
    np.add.at(mark, starts, 1)
    np.add.at(mark, ends, -1)
    return int(np.count_nonzero(np.cumsum(mark)[:n] > 0))


def _coverage(alns, genome, side):
    tot = 0
    for r in range(genome.n_records):
        sel = (alns.t_rec if side == "t" else alns.q_rec) == r
        s = (alns.t_start if side == "t" else alns.q_start)[sel]
        e = (alns.t_end if side == "t" else alns.q_end)[sel]
        tot += _covered(s, e, int(genome.lengths[r]))
    return tot / max(1, genome.non_n_length())


def gecko_bench(a):
    from gpukernels.engine import AlignOptions, StageStats, align
    t = _genome(a.target)
    q = _genome(a.query)
    opts = AlignOptions(preset="gecko", kmer=a.kmer, min_identity=a.min_identity)
    stats = StageStats()
    clock = time.perf_counter()
    alns = align(t, q, opts, backend=a.backend, stats=stats)
    sec = time.perf_counter() - clock
    _result(bench="gecko", backend=a.backend, target=a.target, query=a.query, kmer=a.kmer, seconds=f"{sec:.2f}",
            hits=stats.seed_hits, fragments=len(alns), target_coverage=f"{_coverage(alns, t, 't'):.4f}",
            query_coverage=f"{_coverage(alns, q, 'q'):.4f}")


def filter_bench(a):
    """The candidate filter against no filter: alignments, coverage, time."""
    from gpukernels.engine import AlignOptions, StageStats, align
    t = _genome(a.target)
    q = _genome(a.query)
    out = {}
    for flag in (False, True):
        stats = StageStats()
        clock = time.perf_counter()
        alns = align(t, q, AlignOptions(seed_filter=flag), backend=a.backend, stats=stats)
        out[flag] = (alns, time.perf_counter() - clock, stats)
    (a0, s0, st0), (a1, s1, st1) = out[False], out[True]
    _result(bench="filter", backend=a.backend, target=a.target, query=a.query,
            hits_off=st0.seed_hits, hits_on=st1.seed_hits, alignments_off=len(a0), alignments_on=len(a1),
            tcov_off=f"{_coverage(a0, t, 't'):.5f}", tcov_on=f"{_coverage(a1, t, 't'):.5f}",
            qcov_off=f"{_coverage(a0, q, 'q'):.5f}", qcov_on=f"{_coverage(a1, q, 'q'):.5f}",
            seconds_off=f"{s0:.1f}", seconds_on=f"{s1:.1f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    def command(name, func, **options):
        """A subcommand: ``--backend`` and one option per keyword (its default; its type from the default)."""
        sp = sub.add_parser(name)
        sp.add_argument("--backend", default="gpu", choices=("cpu", "gpu"))
        for opt, default in options.items():
            sp.add_argument("--" + opt.replace("_", "-"), default=default,
                            type=str if default is None else type(default))
        sp.set_defaults(func=func)

    command("seedhit-pairs", seedhit_pairs, pairs=1_000_000, length=256, bits=16, min_identity=90.0, repeats=20)
    command("seedhit-units", seedhit_units, target="bacteria/E.Coli_MG1655-K12.fa.gz",
            query="bacteria/E.Coli_DH1.fa.gz", bits=16, window=256, min_identity=90.0)
    # --index: save the index there, or reuse it
    command("fmindex", fmindex_bench, target="fungi/Ztritici_IPO323.fa.gz", query="fungi/Ztritici_A26b.fa.gz",
            index=None, queries=1_000_000, length=20, mismatches=1, cap=128)
    command("gecko", gecko_bench, target="primates/Hsap.fa.gz", query="primates/Ggor.fa.gz", kmer=32,
            min_identity=80.0)
    command("filter", filter_bench, target="bacteria/H.Pylori_G27.fa.gz", query="bacteria/H.Pylori_SJM180.fa.gz")
    a = p.parse_args(argv)
    a.func(a)


if __name__ == "__main__":
    main()
