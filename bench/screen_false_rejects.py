"""False rejects of the SeedHit pair screen (issue 6, "What it must show", point 4).

    python bench/screen_false_rejects.py [--min-identity 90] [--pairs all|within]
        [--coverage skipped|cross] [--no-extra] [--no-controls] [--threads 2] [--genomes NAME ...]

Runs the pair screen (CPU backend) on every pair of the 5 S. aureus and the
5 H. pylori genomes of ``$AVA_SHARED_DATA/bacteria`` (default
``../shared/data``) in both orders, since the screen is asymmetric (query
windows against target windows). ``--pairs all``: the 45 pairs of the ten
genomes (``within``: the 10 + 10 pairs of one species). ``extra``: E. coli
MG1655 x S. aureus COL and V. cholerae H1 x H. pylori G27; ``controls``:
S. aureus COL and H. pylori G27 each against a random genome of their own
length and base composition (no homology: the screen should skip them).

For every pair skipped in either order the LASTZ-mode alignments (engine, CPU,
LASTZ defaults) are computed and the pair is a **false reject** when they
cover >= 1% of either genome. A pair that passes is aligned in full, so it
cannot be a false reject, and its coverage is not computed
(``--coverage cross`` also computes it for the pairs of two species, to show
what a higher cutoff would have to let through).

The table: target, query, kind, verdict, the screen's count against its
bound, ``up to`` (the highest whole percent at which this order would still
pass: from the best window count over both strands) and the screen's seconds;
then the coverage of the pairs that needed it.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pathlib
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = pathlib.Path(os.environ.get("AVA_SHARED_DATA", ROOT.parent / "shared" / "data")) / "bacteria"
SPECIES = ("S.Aureus", "H.Pylori")
EXTRA = (("E.Coli_MG1655-K12", "S.Aureus_COL"), ("V.Cholerae_H1", "H.Pylori_G27"))
CONTROLS = ("S.Aureus_COL", "H.Pylori_G27")
MIN_COVERAGE = 0.01


def random_like(genome, seed=0):
    """A random genome (one record) of ``genome``'s length and A/C/G/T composition."""
    from gpukernels.genome import read_fasta
    acgt = genome.codes[genome.codes < 4]
    freq = np.bincount(acgt, minlength=4) / len(acgt)
    codes = np.random.default_rng(seed).choice(4, size=len(genome.codes), p=freq)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "random.fa")
        with open(path, "w") as fh:
            fh.write(f">random\n{np.frombuffer(b'ACGT', np.uint8)[codes].tobytes().decode()}\n")
        return read_fasta(path, name=f"random({genome.name})")


def passes_up_to(t_codes, q_codes, bits, window):
    """Highest whole percent at which the screen passes this order, and the best window count."""
    from gpukernels import seedhit
    from gpukernels.genome import complement_reversed
    best = -1
    for q in (q_codes, complement_reversed(q_codes)):
        counts = seedhit.best_window_counts(t_codes, q, bits, window)[:len(q) // window]
        if len(counts):
            best = max(best, int(counts.max()))
    ok = [p for p in range(101) if best >= seedhit.threshold(window, bits, p)]
    return max(ok), best


def coverage(target, query, threads):
    """LASTZ-mode coverage of target and query by the engine's alignments (CPU), and seconds."""
    from gpukernels import AlignOptions, align
    from gpukernels.matrix import covered_bases, non_n_masks
    clock = time.perf_counter()
    alns = align(target, query, AlignOptions(), backend="cpu", threads=threads)
    out = []
    for g, rec, lo, hi in ((target, alns.t_rec, alns.t_start, alns.t_end),
                           (query, alns.q_rec, alns.q_start, alns.q_end)):
        masks = non_n_masks(g)
        cov = covered_bases([g.names[r] for r in rec], lo, hi, masks)
        out.append(sum(cov.values()) / sum(int(m.sum()) for m in masks.values()))
    return out[0], out[1], len(alns), time.perf_counter() - clock


def pair_list(names, mode, extra, controls):
    """Unordered pairs ``(a, b, kind)`` to screen."""
    pairs = []
    for a, b in itertools.combinations(names, 2):
        same = a.split("_")[0] == b.split("_")[0]
        if same or mode == "all":
            pairs.append((a, b, "within" if same else "cross"))
    if extra:
        pairs += [(a, b, "extra") for a, b in EXTRA if b in names and (DATA / f"{a}.fa.gz").exists()]
    if controls:
        pairs += [(c, f"random({c})", "control") for c in CONTROLS if c in names]
    return pairs


def main(argv=None):
    """Run the bench and print its tables."""
    from gpukernels import seedhit
    from gpukernels.genome import read_fasta
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--min-identity", type=float, default=seedhit.DEFAULT_SCREEN_IDENTITY)
    p.add_argument("--pairs", choices=("all", "within"), default="all")
    p.add_argument("--coverage", choices=("skipped", "cross"), default="skipped")
    p.add_argument("--no-extra", action="store_true")
    p.add_argument("--no-controls", action="store_true")
    p.add_argument("--threads", type=int, default=2, help="CPU threads of the coverage alignments")
    p.add_argument("--genomes", nargs="+", metavar="NAME",
                   help="only these genomes of the data folder (a quick check; default: the ten)")
    a = p.parse_args(argv)
    names = sorted(f.name[:-len(".fa.gz")] for f in DATA.glob("*.fa.gz") if f.name.startswith(SPECIES))
    if a.genomes:
        names = [n for n in names if n in a.genomes]
    elif len(names) != 10:
        sys.exit(f"expected 5 S. aureus and 5 H. pylori genomes in {DATA}, found {names}")
    pairs = pair_list(names, a.pairs, not a.no_extra, not a.no_controls)
    genomes = {}

    def genome(name):
        if name not in genomes:
            genomes[name] = (random_like(genome(name[7:-1])) if name.startswith("random(")
                             else read_fasta(str(DATA / f"{name}.fa.gz"), name=name))
        return genomes[name]

    seedhit.screen_verdict(np.zeros(600, np.uint8), np.zeros(600, np.uint8), 95.0)   # compile
    print(f"# pair screen at {a.min_identity:g}% identity, {seedhit.DEFAULT_BITS}-bit b-mers, "
          f"{seedhit.DEFAULT_WINDOW}-letter query windows, CPU backend")
    print("| target | query | kind | verdict | count vs bound (first passing window, or best) "
          "| passes up to | screen s |")
    print("|---|---|---|---|---|---|---|")
    skipped = {}
    for x, y, kind in pairs:
        for t, q in ((x, y), (y, x)):
            tg, qg = genome(t), genome(q)
            clock = time.perf_counter()
            v = seedhit.screen_verdict(tg.codes, qg.codes, a.min_identity)
            sec = time.perf_counter() - clock
            up_to, _ = passes_up_to(tg.codes, qg.codes, v.bits, v.window_size)
            sign = ">=" if v.passes else "<"
            print(f"| {t} | {q} | {kind} | {v.verdict.upper()} | {v.count} {sign} {v.need} | {up_to}% "
                  f"| {sec:.1f} |", flush=True)
            if not v.passes:
                skipped.setdefault((x, y, kind), []).append(f"{t} as target")
    todo = dict(skipped)
    if a.coverage == "cross":
        todo.update({(x, y, k): skipped.get((x, y, k), []) for x, y, k in pairs if k in ("cross", "extra")})
    print("\nPairs that pass the screen in both orders are aligned in full and cannot be false rejects;")
    print("their coverage is not needed" + (" (computed below for the pairs of two species)."
                                            if a.coverage == "cross" else "."))
    print("\n| pair (target x query) | kind | skipped | alignments | target cov | query cov "
          "| false reject | align s |")
    print("|---|---|---|---|---|---|---|---|")
    false_rejects = 0
    for (x, y, kind), orders in todo.items():
        tc, qc, n, sec = coverage(genome(x), genome(y), a.threads)
        bad = bool(orders) and max(tc, qc) >= MIN_COVERAGE
        false_rejects += bad
        print(f"| {x} x {y} | {kind} | {'; '.join(orders) or 'no'} | {n} | {100 * tc:.2f}% | "
              f"{100 * qc:.2f}% | {'YES' if bad else 'no'} | {sec:.1f} |", flush=True)
    screened = 2 * len(pairs)
    print(f"\nRESULT min_identity={a.min_identity:g} orders={screened} skipped_orders="
          f"{sum(len(o) for o in skipped.values())} skipped_pairs={len(skipped)} false_rejects={false_rejects}")
    return 1 if false_rejects else 0


if __name__ == "__main__":
    sys.exit(main())
