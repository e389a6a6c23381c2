"""Work units: which pieces of which genomes one alignment job takes.

A genome is cut into *chunks*:

- a record longer than ``split_size`` is split into windows of
  ``split_size`` bases that overlap by ``overlap`` bases, so that every
  alignment shorter than ``overlap`` lies whole inside at least one window;
- records no longer than ``split_size`` are batched, in file order, into
  chunks of at most ``unit_size`` bases (a record longer than ``unit_size``
  stays alone), so a 1,000-scaffold genome makes a handful of chunks.

A *work unit* of a genome pair is one target chunk against one query chunk.
One alignment job runs a *batch* of units in one process (:func:`align_batches`),
so that a screen of many small pairs pays the process's start (imports,
numba's cache, the GPU's context) once a batch rather than once a pair.
Every chunk carries the reason it was made,
and the plan of a pair is written as JSON for the merge step, which needs the
chunk edges to recognise alignments clipped by a split.

Nothing here reads sequence beyond record lengths, and nothing needs a GPU.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, asdict

from .errors import InputError

#: Default window length: bacterial chromosomes (up to ~10 Mb) stay whole.
DEFAULT_SPLIT_SIZE = 10_000_000
#: Default overlap. With LASTZ's y-drop the engine's alignments between
#: ~98%-identical bacteria can run the whole genome (0.79 Mb between the
#: bundled Blochmannia), so no overlap covers every alignment; 200 kb covers
#: most between less similar genomes, and :mod:`gpukernels.merge` stitches
#: the pieces of longer ones back together.
DEFAULT_OVERLAP = 200_000
#: Default batch size for small records.
DEFAULT_UNIT_SIZE = 10_000_000
#: Work units of one alignment job on the workflow's GPU backend unless configured: a process's
#: start costs about 3 s there (bench/RESULTS.md), a bacterial pair's alignment 0.5-4 s.
GPU_UNITS_PER_JOB = 8


#: CPU threads of a GPU alignment job where neither the config nor Snakemake's ``--cores`` says
#: (a cluster executor): the walk's stripes take half of them per strand
GPU_JOB_THREADS = 8


def gpu_job_threads(cores, gpu_slots):
    """CPU threads of one GPU alignment job where the config leaves ``threads`` null.

    The cores Snakemake was given (``--cores``) are shared among the jobs
    that hold a GPU at once (``--resources gpu=``: GPUs times
    ``jobs_per_gpu``). The GPU engine spends them on the host's part of the
    gapped stage: half of them per strand walk the anchors in target
    stripes, and the relay's long extensions take the others, so one
    thread a job (the old default) walked every anchor in turn. Threads
    never change the output.

    Parameters
    ----------
    cores : int or None
        ``--cores``; None where not given (:data:`GPU_JOB_THREADS` then).
    gpu_slots : int or None
        The ``gpu`` resource; None where not given (one slot).

    Returns
    -------
    int
        At least 1.
    """
    if not cores:
        return GPU_JOB_THREADS
    return max(1, int(cores) // max(1, int(gpu_slots or 1)))


def default_units_per_job(n_units, backend, jobs_per_gpu=1):
    """Work units per alignment job where the config leaves ``units_per_job`` null.

    On the CPU backend (and ``auto``) a job a unit: CPU jobs gain more from
    running side by side on many cores. On the GPU backend up to
    :data:`GPU_UNITS_PER_JOB`, but fewer where that would leave some of a
    GPU's ``jobs_per_gpu`` slots without a batch: a small screen is then cut
    into ``jobs_per_gpu`` batches that share the GPU (the jobs' host work
    overlaps; bench/RESULTS.md). It depends on the config and the units alone,
    not on the host, so that a DAG built where no GPU is visible cuts the
    same batches.

    Parameters
    ----------
    n_units : int
        Work units of the whole run.
    backend : str
        The config's ``backend``.
    jobs_per_gpu : int
        The config's ``jobs_per_gpu``.

    Returns
    -------
    int
        At least 1.
    """
    if backend != "gpu":
        return 1
    return max(1, min(GPU_UNITS_PER_JOB, math.ceil(int(n_units) / max(1, int(jobs_per_gpu)))))


@dataclass(frozen=True)
class Chunk:
    """One piece of a genome that an alignment job takes.

    Attributes
    ----------
    genome : str
        Genome label.
    index : int
        Position of the chunk in the genome's plan.
    intervals : tuple of (int, int, int)
        ``(record_index, start, end)``, 0-based half-open, in record
        coordinates; the argument of :meth:`gpukernels.genome.Genome.piece`.
    reason : str
        Why the chunk looks as it does, in words.
    """

    genome: str
    index: int
    intervals: tuple
    reason: str

    @property
    def size(self):
        """Number of bases in the chunk."""
        return sum(end - start for _, start, end in self.intervals)

    def to_dict(self):
        """A JSON-ready dict."""
        d = asdict(self)
        d["intervals"] = [list(iv) for iv in self.intervals]
        return d

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict`."""
        return cls(genome=d["genome"], index=int(d["index"]),
                   intervals=tuple(tuple(int(x) for x in iv) for iv in d["intervals"]),
                   reason=d["reason"])


def fasta_lengths(path):
    """Record names and lengths of a FASTA(.gz) file, without encoding it.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    names : list of str
    lengths : list of int
        Number of sequence characters (whitespace excluded) per record.
    """
    from .genome import _read_bytes  # one reader for plain and gzipped files

    data = _read_bytes(str(path))
    names, lengths = [], []
    pos = data.find(b">")
    if pos == -1 or data[:pos].strip():
        raise InputError("no FASTA records: expected '>' at the start of a record", str(path))
    while pos != -1:
        eol = data.find(b"\n", pos)
        eol = len(data) if eol == -1 else eol
        nxt = data.find(b"\n>", eol)
        end = len(data) if nxt == -1 else nxt
        words = data[pos + 1:eol].split()
        if not words:
            raise InputError("record header has no name", str(path))
        body = data[eol:end]
        n = len(body) - sum(body.count(ws) for ws in (b"\n", b"\r", b" ", b"\t"))
        names.append(words[0].decode("utf-8", "replace"))
        lengths.append(n)
        pos = -1 if nxt == -1 else nxt + 1
    return names, lengths


def split_windows(length, split_size, overlap):
    """Windows ``[start, end)`` covering ``length`` bases.

    Parameters
    ----------
    length : int
        Record length.
    split_size : int
        Window length; a record no longer than this is one window.
    overlap : int
        Bases shared by neighbouring windows; ``0 <= overlap < split_size``.

    Returns
    -------
    list of (int, int)
    """
    check_split(split_size, overlap)
    if length <= split_size:
        return [(0, length)]
    step = split_size - overlap
    count = math.ceil((length - overlap) / step)
    step = math.ceil((length - overlap) / count)  # even out the windows
    windows = []
    for k in range(count):
        start = k * step
        end = min(start + step + overlap, length)
        windows.append((start, end))
    windows[-1] = (windows[-1][0], length)
    return windows


def check_split(split_size, overlap, unit_size=None):
    """Raise :class:`InputError` for split settings that cannot work."""
    if split_size <= 0:
        raise InputError(f"split size must be positive, not {split_size}")
    if not 0 <= overlap < split_size:
        raise InputError(f"split overlap ({overlap}) must be >= 0 and smaller than the split size "
                         f"({split_size})")
    if unit_size is not None and unit_size <= 0:
        raise InputError(f"unit size must be positive, not {unit_size}")


def plan_genome(genome, names, lengths, split_size=DEFAULT_SPLIT_SIZE, overlap=DEFAULT_OVERLAP,
                unit_size=DEFAULT_UNIT_SIZE):
    """Cut one genome into chunks.

    Parameters
    ----------
    genome : str
        Genome label.
    names, lengths : sequence
        Records in file order.
    split_size, overlap, unit_size : int
        See the module docstring.

    Returns
    -------
    list of Chunk
    """
    check_split(split_size, overlap, unit_size)
    chunks = []
    batch, batch_size = [], 0

    def flush():
        nonlocal batch, batch_size
        if not batch:
            return
        if len(batch) == 1:
            rec = batch[0][0]
            reason = f"record {names[rec]} whole ({lengths[rec]} bp <= split size {split_size})"
        else:
            reason = (f"batch of {len(batch)} records ({batch_size} bp, up to unit size {unit_size}): "
                      f"{names[batch[0][0]]} .. {names[batch[-1][0]]}")
        chunks.append(Chunk(genome, len(chunks), tuple(batch), reason))
        batch, batch_size = [], 0

    for rec, length in enumerate(lengths):
        length = int(length)
        if length == 0:
            continue
        if length > split_size:
            flush()
            windows = split_windows(length, split_size, overlap)
            for k, (start, end) in enumerate(windows):
                reason = (f"record {names[rec]} ({length} bp > split size {split_size}): "
                          f"window {k + 1} of {len(windows)}, overlap {overlap} bp")
                chunks.append(Chunk(genome, len(chunks), ((rec, start, end),), reason))
            continue
        if batch and batch_size + length > unit_size:
            flush()
        batch.append((rec, 0, length))
        batch_size += length
    flush()
    return chunks


def genome_pairs(genomes, mode="unordered", self_pairs=False):
    """Pairs ``(target, query)`` of a screen.

    Parameters
    ----------
    genomes : sequence of str
        Labels in sample-sheet order.
    mode : {"unordered", "ordered"}
        ``unordered``: one run per pair, the earlier genome is the target;
        ``ordered``: both orders.
    self_pairs : bool
        Add each genome against itself.

    Returns
    -------
    list of (str, str)
    """
    if mode not in ("unordered", "ordered"):
        raise InputError(f"pairs must be 'unordered' or 'ordered', not {mode!r}")
    out = []
    for i, t in enumerate(genomes):
        for j, q in enumerate(genomes):
            if i == j:
                if self_pairs:
                    out.append((t, q))
            elif i < j or mode == "ordered":
                out.append((t, q))
    return out


def unit_name(t_index, q_index):
    """The label of a work unit: ``t<target chunk>-q<query chunk>``."""
    return f"t{t_index:04d}-q{q_index:04d}"


def plan_pair(target_chunks, query_chunks):
    """Work units of one genome pair: every target chunk against every query chunk.

    Returns
    -------
    list of dict
        ``{"unit": name, "target": chunk index, "query": chunk index}``.
    """
    return [{"unit": unit_name(t.index, q.index), "target": t.index, "query": q.index}
            for t in target_chunks for q in query_chunks]


def align_batches(units, per_job):
    """Cut ``units``, in their order, into consecutive batches of at most ``per_job``.

    The batches differ in size by one unit at most (ten units at four a job
    make batches of 3, 3 and 4), so that no job is left with a short tail.
    Consecutive units of a pair stay together, and the merge of a pair waits
    only for the few batches that hold its units.

    Parameters
    ----------
    units : sequence
        Work units in a fixed order (the workflow's ``(target, query, unit)``).
    per_job : int
        Most units in one batch, at least 1.

    Returns
    -------
    list of list
    """
    if int(per_job) < 1:
        raise InputError(f"units per job must be at least 1, not {per_job}")
    units = list(units)
    count = math.ceil(len(units) / int(per_job))
    return [units[len(units) * k // count:len(units) * (k + 1) // count] for k in range(count)]


def write_plan(path, target, query, target_chunks, query_chunks, settings):
    """Write the plan of a pair (chunks, units, reasons, settings) as JSON."""
    doc = {"target": target, "query": query, "settings": settings,
           "target_chunks": [c.to_dict() for c in target_chunks],
           "query_chunks": [c.to_dict() for c in query_chunks],
           "units": plan_pair(target_chunks, query_chunks)}
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)
    return doc


def read_plan(path):
    """Read a plan written by :func:`write_plan`; chunks become :class:`Chunk`."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    doc["target_chunks"] = [Chunk.from_dict(c) for c in doc["target_chunks"]]
    doc["query_chunks"] = [Chunk.from_dict(c) for c in doc["query_chunks"]]
    return doc


def unit_chunks(plan, unit):
    """The ``(target chunk, query chunk)`` of a unit name in a plan."""
    for u in plan["units"]:
        if u["unit"] == unit:
            return plan["target_chunks"][u["target"]], plan["query_chunks"][u["query"]]
    raise InputError(f"unit {unit!r} is not in the plan of {plan['target']} vs {plan['query']}")


def write_manifest(genome, path):
    """Write the record table of an encoded genome as TSV.

    Columns: ``record``, ``length`` and ``non_n`` (A, C, G, T bases).
    """
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("record\tlength\tnon_n\n")
        for name, start, size in zip(genome.names, genome.starts, genome.sizes):
            non_n = int((genome.codes[start:start + size] < 4).sum())
            fh.write(f"{name}\t{int(size)}\t{non_n}\n")
    os.replace(tmp, path)


def read_manifest(path):
    """Read a manifest: ``(names, lengths, non_n)`` lists."""
    names, lengths, non_n = [], [], []
    with open(path, encoding="utf-8") as fh:
        fh.readline()
        for line in fh:
            f = line.rstrip("\n").split("\t")
            names.append(f[0])
            lengths.append(int(f[1]))
            non_n.append(int(f[2]))
    return names, lengths, non_n


def engine_options(engine, self_mode=False):
    """:class:`gpukernels.AlignOptions` from the workflow's ``engine`` config.

    Parameters
    ----------
    engine : dict
        ``strand``, ``unmask``, ``seed``, ``transition`` and ``scoring`` (the
        keyword arguments of :func:`gpukernels.scoring.lastz_scoring`).
    self_mode : bool
        The unit aligns a chunk against itself.
    """
    from .engine import AlignOptions
    from .scoring import lastz_scoring

    engine = dict(engine or {})
    scoring = lastz_scoring(**(engine.pop("scoring", None) or {}))
    try:
        return AlignOptions(**engine, self_mode=self_mode, scoring=scoring)
    except TypeError as exc:
        raise InputError(f"engine options: {exc}") from None
