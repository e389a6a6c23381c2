"""``ava align``: align a query genome against a target genome."""

from __future__ import annotations

import logging
import shlex
import sys
import time

from ..engine import AlignOptions, StageStats, align
from ..errors import InputError
from ..formats import FORMATS, write_alignments
from ..genome import read_fasta
from ..scoring import UNIFORM_MATCH, UNIFORM_MISMATCH, lastz_scoring, uniform_scoring
from ..seedhit import DEFAULT_SCREEN_IDENTITY
from ..seeds import DEFAULT_SEED

log = logging.getLogger("gpukernels")


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise ValueError
    return value


def add_parser(sub):
    """Register ``ava align``."""
    p = sub.add_parser("align", help="align QUERY against TARGET (LASTZ-class seed → ungapped → gapped)",
                       description="Align every record of QUERY against every record of TARGET on both "
                                   "strands with LASTZ's defaults (HOXD70, 12of19 seed with one "
                                   "transition, xdrop 910, hspthresh 3000, ydrop 9400, gappedthresh 3000).")
    p.add_argument("target", help="target FASTA (.gz accepted)")
    p.add_argument("query", nargs="?", help="query FASTA (.gz accepted); with --self, may be omitted")
    p.add_argument("-o", "--output", default="-", help="output file (default stdout; .gz compresses)")
    p.add_argument("--format", choices=FORMATS, default="paf", help="output format (default paf)")
    p.add_argument("--eqx", action="store_true", help="PAF: write =/X instead of M in cg:Z")
    p.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto",
                   help="auto: the GPU when CuPy sees one, else the CPU (default auto)")
    p.add_argument("--device", type=int, default=None, help="CUDA device ordinal (GPU backend)")
    p.add_argument("--gpu-mem", type=float, default=None, metavar="GB",
                   help="GPU memory budget in GiB (default: a safe share of free memory)")
    p.add_argument("--strand", choices=("both", "plus", "minus"), default="both")
    p.add_argument("--self", dest="self_mode", action="store_true",
                   help="align TARGET to itself without the trivial diagonal; each mirror pair once")
    p.add_argument("--unmask", action="store_true", help="let lowercase (soft-masked) bases seed")
    p.add_argument("--seed", default=DEFAULT_SEED, metavar="PATTERN",
                   help=f"spaced seed of 1 (care) and 0 (default {DEFAULT_SEED})")
    p.add_argument("--notransition", action="store_true", help="seeds must match exactly")
    p.add_argument("--threads", type=_positive_int, default=None,
                   help="CPU threads: on the CPU backend 2 or more align the two strands at once; on the GPU "
                        "backend, host threads for extensions too long for the GPU (at least 2; from 4, each "
                        "is split over them) and, half of them per strand, for the walk of the anchors in "
                        "target stripes (default: 1 on the CPU backend; on the GPU backend the CPUs this "
                        "process may use, at most 16)")
    f = p.add_argument_group("seeding and filters (docs/seeding.md)")
    f.add_argument("--preset", choices=("lastz", "gecko", "uniform"), default="lastz",
                   help="gecko: exact k-mers, +1/-1 ungapped fragments, no gapped stage; uniform: LASTZ's "
                        "pipeline with match 100 / mismatch -100 instead of HOXD70 (default lastz)")
    f.add_argument("--kmer", type=int, default=32, help="gecko: k-mer size, 4 to 32 (default 32)")
    f.add_argument("--min-identity", type=float, default=80.0,
                   help="gecko: least fragment identity in percent (default 80)")
    f.add_argument("--seeding", choices=("spaced", "fmindex"), default="spaced",
                   help="fmindex: FM-index words with mismatches instead of the spaced seed")
    f.add_argument("--seed-length", type=int, default=20, help="fmindex: word length (default 20)")
    f.add_argument("--mismatches", type=int, default=0, help="fmindex: Hamming distance, 0 to 2 (default 0)")
    f.add_argument("--occ-cap", type=int, default=128,
                   help="fmindex: words with more occurrences are dropped (default 128)")
    f.add_argument("--fm-index", default=None, metavar="FILE",
                   help="fmindex: reuse the target's index saved here (built and saved when absent)")
    f.add_argument("--seed-filter", action="store_true",
                   help="drop isolated seed hits before ungapped extension")
    f.add_argument("--screen", action="store_true",
                   help=f"SeedHit pair screen at its documented cutoff, {DEFAULT_SCREEN_IDENTITY:g}%% "
                        "identity: skip the pair when b-mer counts rule out that identity in every "
                        "256-letter query window (default: no screen)")
    f.add_argument("--screen-min-identity", type=float, default=None, metavar="PCT",
                   help="the pair screen at this cutoff instead (implies --screen)")
    s = p.add_argument_group("scoring (LASTZ defaults)")
    s.add_argument("--gap-open", type=int, default=400, help="gap open penalty (default 400)")
    s.add_argument("--gap-extend", type=int, default=30, help="gap extend penalty (default 30)")
    s.add_argument("--xdrop", type=int, default=None, help="ungapped x-drop (default 10 × A/A = 910)")
    s.add_argument("--hspthresh", type=int, default=3000, help="HSP score threshold (default 3000)")
    s.add_argument("--ydrop", type=int, default=None,
                   help="gapped y-drop (default open + 300 × extend = 9400)")
    s.add_argument("--gappedthresh", type=int, default=None,
                   help="gapped alignment threshold (default = hspthresh)")
    s.add_argument("--noentropy", action="store_true", help="no entropy adjustment of HSP scores")
    s.add_argument("--match", type=int, default=None,
                   help="uniform matrix: match score (implies --preset uniform; default 100)")
    s.add_argument("--mismatch", type=int, default=None,
                   help="uniform matrix: mismatch penalty, scored -X (implies --preset uniform; default 100)")
    s.add_argument("--traceback", choices=("auto", "dp", "wfa"), default="auto",
                   help="gapped paths: the y-drop DP's traceback, or (uniform scoring, CPU) WFA between "
                        "the anchor and the DP's optimum, same scores (default auto: see docs/wfa.md)")
    p.set_defaults(func=run)


def _scoring(args):
    """The run's :class:`~gpukernels.scoring.Scoring`: LASTZ's, or uniform with ``--preset uniform``."""
    common = dict(gap_open=args.gap_open, gap_extend=args.gap_extend, xdrop=args.xdrop,
                  hspthresh=args.hspthresh, ydrop=args.ydrop, gappedthresh=args.gappedthresh,
                  entropy=not args.noentropy)
    if args.preset == "uniform" or args.match is not None or args.mismatch is not None:
        if args.preset == "gecko":
            raise InputError("--match/--mismatch do not apply to --preset gecko")
        return uniform_scoring(match=UNIFORM_MATCH if args.match is None else args.match,
                               mismatch=UNIFORM_MISMATCH if args.mismatch is None else args.mismatch, **common)
    return lastz_scoring(**common)


def _screen_identity(args):
    """The pair screen's cutoff in percent, or None for no screen."""
    if args.screen_min_identity is not None:
        value = args.screen_min_identity
        if not 0 <= value <= 100:
            raise InputError(f"--screen-min-identity must be within 0 and 100, not {value:g}")
        return value
    return DEFAULT_SCREEN_IDENTITY if args.screen else None


def run(args):
    """Run ``ava align`` from parsed arguments."""
    if args.query is None and not args.self_mode:
        raise InputError("a QUERY is required unless --self is given")
    try:
        import numba
        numba.set_num_threads(min(args.threads or 1, numba.config.NUMBA_NUM_THREADS))
    except (ImportError, ValueError):
        pass
    scoring = _scoring(args)
    options = AlignOptions(strand=args.strand, unmask=args.unmask, seed=args.seed,
                           transition=not args.notransition, self_mode=args.self_mode, scoring=scoring,
                           preset="gecko" if args.preset == "gecko" else "lastz", traceback=args.traceback,
                           kmer=args.kmer, min_identity=args.min_identity,
                           seeding=args.seeding, seed_length=args.seed_length, mismatches=args.mismatches,
                           occ_cap=args.occ_cap, fm_index_path=args.fm_index, seed_filter=args.seed_filter,
                           screen_min_identity=_screen_identity(args))
    clock = time.perf_counter()
    target = read_fasta(args.target)
    query = target if args.query is None or (args.self_mode and args.query == args.target) \
        else read_fasta(args.query)
    stats = StageStats()
    gpu_mem = None if args.gpu_mem is None else int(args.gpu_mem * (1 << 30))
    alns = align(target, query, options, backend=args.backend, device=args.device, gpu_mem=gpu_mem,
                 stats=stats, threads=args.threads)
    command = "ava " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv else None
    write_alignments(alns, target, query, args.output, fmt=args.format, eqx=args.eqx, command=command)
    log.info("%d alignments written to %s in %.1f s (%d seed hits, %d HSPs, %.3g DP cells)",
             len(alns), args.output if args.output != "-" else "stdout", time.perf_counter() - clock,
             stats.seed_hits, stats.hsps, stats.dp_cells)
    return 0
