"""Merging the PAF files of a pair's work units into one PAF.

Work units of a split record overlap, so an alignment near a split may be
found by two units, whole in one and clipped at the window edge in the other.
The merge keeps each alignment once:

1. exact duplicates (same line) are dropped;
2. for a self pair, the trivial identity alignment (a record against the
   same stretch of itself, ``+`` strand) is dropped;
3. among alignments that touch an overlap zone, an alignment whose target and
   query spans lie inside a kept alignment of the same record pair and strand,
   on the same diagonal, is dropped. Whole alignments are kept before clipped
   ones, and higher scores before lower;
4. an alignment longer than the overlap is clipped in every unit; its pieces
   share aligned columns in the overlap zone, and are stitched into one at a
   shared column near the middle of the zone. Matches, ``NM`` and ``AS`` of a
   stitched alignment are recounted from the sequences (``AS`` with the given
   scoring, LASTZ's default unless told).

Alignments are read from PAF with a ``cg:Z`` CIGAR, so the merge needs no
engine internals. The output is sorted canonically, so the same set of
alignments gives the same bytes whatever the split.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass

import numpy as np

from .io_utils import atomic_text_output

_CIGAR = re.compile(r"(\d+)([MIDNSHP=X])")
#: Bases of slack when comparing alignment ends across units.
SLACK = 32


@dataclass
class Paf:
    """Alignments of one PAF file, as arrays (one row per line).

    Attributes
    ----------
    lines : ndarray of object
        The original lines (without newline), written back unchanged.
    qname, tname : ndarray of object
    qlen, qstart, qend, tlen, tstart, tend, matches, block, score : ndarray of int64
    strand : ndarray of int8
        +1 or -1.
    cigar : ndarray of object
        The ``cg:Z`` CIGAR ("" when absent).
    """

    lines: np.ndarray
    qname: np.ndarray
    qlen: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    strand: np.ndarray
    tname: np.ndarray
    tlen: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    matches: np.ndarray
    block: np.ndarray
    score: np.ndarray
    cigar: np.ndarray

    def __len__(self):
        return len(self.lines)

    def take(self, index):
        """A new :class:`Paf` with the rows ``index`` (mask or indices)."""
        return Paf(**{k: getattr(self, k)[index] for k in self.__dataclass_fields__})

    @classmethod
    def concat(cls, parts):
        """Rows of several :class:`Paf` one after the other."""
        parts = list(parts)
        if not parts:
            return parse_paf_lines([])
        return cls(**{k: np.concatenate([getattr(p, k) for p in parts])
                      for k in cls.__dataclass_fields__})


def parse_paf_lines(lines):
    """Parse PAF lines into a :class:`Paf`.

    Parameters
    ----------
    lines : iterable of str
        PAF lines; blank lines and lines starting with ``#`` are skipped.
    """
    rows = []
    for line in lines:
        line = line.rstrip("\r\n")
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) < 12:
            raise ValueError(f"PAF line with {len(f)} columns (12 needed): {line[:80]}")
        cigar, score = "", 0
        for tag in f[12:]:
            if tag.startswith("cg:Z:"):
                cigar = tag[5:]
            elif tag.startswith("AS:i:"):
                score = int(tag[5:])
        rows.append((line, f[0], int(f[1]), int(f[2]), int(f[3]), 1 if f[4] == "+" else -1,
                     f[5], int(f[6]), int(f[7]), int(f[8]), int(f[9]), int(f[10]), score, cigar))
    cols = list(zip(*rows)) if rows else [()] * 14
    obj = lambda c: np.array(c, dtype=object)  # noqa: E731
    i64 = lambda c: np.array(c, dtype=np.int64)  # noqa: E731
    return Paf(lines=obj(cols[0]), qname=obj(cols[1]), qlen=i64(cols[2]), qstart=i64(cols[3]),
               qend=i64(cols[4]), strand=np.array(cols[5], dtype=np.int8), tname=obj(cols[6]),
               tlen=i64(cols[7]), tstart=i64(cols[8]), tend=i64(cols[9]), matches=i64(cols[10]),
               block=i64(cols[11]), score=i64(cols[12]), cigar=obj(cols[13]))


def read_paf(path):
    """Read a PAF file (plain or gzipped) into a :class:`Paf`."""
    path = str(path)
    opener = gzip.open if _is_gzip(path) else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return parse_paf_lines(fh)


def _is_gzip(path):
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def canonical_order(paf):
    """Indices that sort alignments canonically (target, query, coordinates, line)."""
    if len(paf) == 0:
        return np.zeros(0, dtype=np.int64)
    keys = sorted(range(len(paf)), key=lambda i: (paf.tname[i], paf.tstart[i], paf.tend[i],
                                                  paf.qname[i], paf.qstart[i], paf.qend[i],
                                                  -paf.strand[i], paf.lines[i]))
    return np.array(keys, dtype=np.int64)


def write_paf(paf, path):
    """Write alignments in canonical order; gzipped when ``path`` ends in ``.gz``."""
    order = canonical_order(paf)
    with atomic_text_output(path) as fh:
        for i in order:
            fh.write(paf.lines[i])
            fh.write("\n")


def cigar_ops(cigar):
    """``(lengths, ops)`` arrays of a CIGAR string."""
    parts = _CIGAR.findall(cigar)
    return (np.array([int(n) for n, _ in parts], dtype=np.int64),
            np.array([op for _, op in parts], dtype="<U1"))


def _project(paf, k, t):
    """Query position (forward coordinates) that alignment ``k`` pairs with target ``t``."""
    lens, ops = cigar_ops(paf.cigar[k])
    if len(lens) == 0:  # no CIGAR: assume the main diagonal of the block
        frac = (t - paf.tstart[k]) / max(paf.tend[k] - paf.tstart[k], 1)
        span = paf.qend[k] - paf.qstart[k]
        off = int(round(frac * span))
        return paf.qstart[k] + off if paf.strand[k] > 0 else paf.qend[k] - off
    t_step = np.where(np.isin(ops, ("M", "D", "=", "X", "N")), lens, 0)
    q_step = np.where(np.isin(ops, ("M", "I", "=", "X")), lens, 0)
    t_cum = paf.tstart[k] + np.concatenate([[0], np.cumsum(t_step)])
    q_cum = np.concatenate([[0], np.cumsum(q_step)])
    j = int(np.clip(np.searchsorted(t_cum, t, side="right") - 1, 0, len(lens) - 1))
    inside = t - t_cum[j]
    q_off = q_cum[j] + (min(inside, lens[j]) if q_step[j] else 0)
    return paf.qstart[k] + q_off if paf.strand[k] > 0 else paf.qend[k] - q_off


def overlap_zones(chunks, record_names):
    """Per record name, the intervals shared by two windows of a split record.

    Parameters
    ----------
    chunks : list of gpukernels.workunits.Chunk
    record_names : list of str
        Names of the genome's records, by record index.

    Returns
    -------
    dict of str to list of (int, int)
    """
    by_record = {}
    for c in chunks:
        for rec, start, end in c.intervals:
            by_record.setdefault(rec, []).append((start, end))
    zones = {}
    for rec, wins in by_record.items():
        wins.sort()
        z = [(s1, e0) for (s0, e0), (s1, e1) in zip(wins, wins[1:]) if s1 < e0]
        if z:
            zones[record_names[rec]] = z
    return zones


def _touches(names, starts, ends, zones):
    hit = np.zeros(len(names), dtype=bool)
    for i in range(len(names)):
        for zs, ze in zones.get(names[i], ()):
            if starts[i] < ze + SLACK and ends[i] > zs - SLACK:
                hit[i] = True
                break
    return hit


def _clipped(paf, edges_t, edges_q):
    """True where an alignment ends on an interior window edge of its unit."""
    out = np.zeros(len(paf), dtype=bool)
    for i in range(len(paf)):
        for name, start, end, edges in ((paf.tname[i], paf.tstart[i], paf.tend[i], edges_t[i]),
                                        (paf.qname[i], paf.qstart[i], paf.qend[i], edges_q[i])):
            for e in edges.get(name, ()):
                if abs(start - e) <= SLACK or abs(end - e) <= SLACK:
                    out[i] = True
    return out


def _columns(paf, i):
    """Per-column arrays of alignment ``i``: op, target position, query position."""
    lens, ops = cigar_ops(paf.cigar[i])
    op = np.repeat(ops, lens)
    t_adv = np.isin(op, ("M", "D", "=", "X"))
    q_adv = np.isin(op, ("M", "I", "=", "X"))
    t_pos = paf.tstart[i] + np.cumsum(t_adv) - t_adv
    q_off = np.cumsum(q_adv) - q_adv
    q_pos = paf.qstart[i] + q_off if paf.strand[i] > 0 else paf.qend[i] - 1 - q_off
    return op, t_pos, q_pos


def _rle(op):
    if len(op) == 0:
        return ""
    change = np.flatnonzero(op[1:] != op[:-1]) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(op)]])
    return "".join(f"{e - s}{op[s]}" for s, e in zip(starts, ends))


class Sequences:
    """Codes of the records of a pair, and the scoring, for stitching.

    Parameters
    ----------
    target, query : gpukernels.genome.Genome
        Whole prepared genomes.
    scoring : gpukernels.scoring.Scoring, optional
        LASTZ's defaults unless given.
    """

    def __init__(self, target, query, scoring=None):
        if scoring is None:
            from .scoring import Scoring
            scoring = Scoring()
        self.scoring = scoring
        self.t = {n: target.codes[s:s + z] for n, s, z in zip(target.names, target.starts, target.sizes)}
        self.q = {n: query.codes[s:s + z] for n, s, z in zip(query.names, query.starts, query.sizes)}

    def recount(self, tname, qname, strand, op, t_pos, q_pos):
        """Matches, NM and score of an alignment given by its columns."""
        from .genome import _COMPLEMENT
        m = op == "M"
        tc = self.t[tname][t_pos[m]]
        qc = self.q[qname][q_pos[m]]
        if strand < 0:
            qc = _COMPLEMENT[qc]
        matches = int(np.count_nonzero((tc == qc) & (tc < 4)))
        gaps = int(np.count_nonzero(~m))
        nm = int(m.sum()) - matches + gaps
        sc = self.scoring
        score = int(np.asarray(sc.matrix)[tc, qc].sum())
        is_gap = ~m
        starts = is_gap & np.concatenate([[True], op[1:] != op[:-1]])
        runs = int(np.count_nonzero(starts))
        score -= sc.gap_open * runs + sc.gap_extend * gaps
        return matches, nm, score


def _stitch(paf, a, b, seqs):
    """One PAF line joining alignments ``a`` (left on target) and ``b``, or None."""
    op_a, ta, qa = _columns(paf, a)
    op_b, tb, qb = _columns(paf, b)
    q_total = int(max(paf.qlen[a], 1))
    ma, mb = op_a == "M", op_b == "M"
    key_a = ta[ma] * q_total + qa[ma]
    key_b = tb[mb] * q_total + qb[mb]
    shared = np.intersect1d(key_a, key_b)
    if not len(shared):
        return None
    lo, hi = paf.tstart[b], paf.tend[a]
    mid = (lo + hi) / 2
    t_shared = shared // q_total
    pick = shared[np.argmin(np.abs(t_shared - mid))]
    ia = np.flatnonzero(ma)[np.flatnonzero(key_a == pick)[0]]
    ib = np.flatnonzero(mb)[np.flatnonzero(key_b == pick)[0]]
    op = np.concatenate([op_a[:ia], op_b[ib:]])
    t_pos = np.concatenate([ta[:ia], tb[ib:]])
    q_pos = np.concatenate([qa[:ia], qb[ib:]])
    strand = int(paf.strand[a])
    matches, nm, score = seqs.recount(paf.tname[a], paf.qname[a], strand, op, t_pos, q_pos)
    if strand > 0:
        qs, qe = paf.qstart[a], paf.qend[b]
    else:
        qs, qe = paf.qstart[b], paf.qend[a]
    f = paf.lines[a].split("\t")
    f[2], f[3], f[7], f[8] = str(qs), str(qe), str(paf.tstart[a]), str(paf.tend[b])
    f[9], f[10] = str(matches), str(len(op))
    tags = []
    for tag in f[12:]:
        if tag.startswith("NM:i:"):
            tag = f"NM:i:{nm}"
        elif tag.startswith("AS:i:"):
            tag = f"AS:i:{score}"
        elif tag.startswith("cg:Z:"):
            tag = "cg:Z:" + _rle(op)
        tags.append(tag)
    return "\t".join(f[:12] + tags)


def _stitch_pieces(paf, idx, clipped, seqs, stats):
    """Stitch overlapping pieces among rows ``idx``; returns (rows dropped, new lines).

    Rows are taken by target start; each joins the first open chain (same
    records and strand) that it overlaps and shares an aligned column with,
    when the chain's end or the row is clipped at a window edge.
    """
    groups = {}
    for i in idx:
        groups.setdefault((paf.tname[i], paf.qname[i], int(paf.strand[i])), []).append(i)
    dropped, new_lines = [], []
    for rows in groups.values():
        rows.sort(key=lambda i: (paf.tstart[i], paf.tend[i], paf.lines[i]))
        chains = []  # [line or None, one-row Paf, member rows, clipped]
        for i in rows:
            nxt = paf.take([i])
            for chain in chains:
                line, cur, members, cur_clip = chain
                if not ((cur_clip or clipped[i]) and cur.tstart[0] < nxt.tstart[0] < cur.tend[0]
                        < nxt.tend[0] and _q_overlap(cur, nxt)):
                    continue
                joined = _stitch(Paf.concat([cur, nxt]), 0, 1, seqs)
                if joined is None:
                    continue
                stats["stitched"] += 1
                chain[:] = [joined, parse_paf_lines([joined]), members + [i], True]
                break
            else:
                chains.append([None, nxt, [i], clipped[i]])
        for line, _, members, _ in chains:
            if line is not None:
                new_lines.append(line)
                dropped += members
    return dropped, new_lines


def _q_overlap(a, b):
    return a.qstart[0] < b.qend[0] and b.qstart[0] < a.qend[0]


def merge_units(units, self_pair=False, target_zones=None, query_zones=None, sequences=None):
    """Merge the alignments of a pair's work units.

    Parameters
    ----------
    units : list of (Paf, dict, dict)
        Each unit's alignments with the interior window edges of its target
        and query chunk (record name to positions), see :func:`unit_edges`.
    self_pair : bool
        Drop the trivial identity alignment of a genome against itself.
    target_zones, query_zones : dict, optional
        :func:`overlap_zones` of the target and query; alignments touching
        none of them are found by one unit only and skip the containment test.
    sequences : Sequences, optional
        The pair's sequences; without them, pieces are not stitched.

    Returns
    -------
    paf : Paf
        The merged alignments (in no particular order; :func:`write_paf` sorts).
    stats : dict
        Counts of what was dropped and why.
    """
    target_zones = target_zones or {}
    query_zones = query_zones or {}
    parts, edges_t, edges_q = [], [], []
    for paf, et, eq in units:
        parts.append(paf)
        edges_t += [et] * len(paf)
        edges_q += [eq] * len(paf)
    paf = Paf.concat(parts)
    stats = {"alignments_in": len(paf), "exact_duplicates": 0, "trivial_self": 0,
             "contained_duplicates": 0, "stitched": 0}
    keep = np.ones(len(paf), dtype=bool)
    _, first = np.unique(paf.lines.astype(str), return_index=True) if len(paf) else (None, [])
    uniq = np.zeros(len(paf), dtype=bool)
    uniq[np.asarray(first, dtype=np.int64)] = True
    stats["exact_duplicates"] = int(len(paf) - uniq.sum())
    keep &= uniq
    if self_pair and len(paf):
        trivial = ((paf.tname == paf.qname) & (paf.strand > 0) & (paf.tstart == paf.qstart)
                   & (paf.tend == paf.qend))
        stats["trivial_self"] = int((trivial & keep).sum())
        keep &= ~trivial
    zone = (_touches(paf.tname, paf.tstart, paf.tend, target_zones)
            | _touches(paf.qname, paf.qstart, paf.qend, query_zones)) & keep
    if zone.any():
        clipped = _clipped(paf, edges_t, edges_q)
        cand = np.flatnonzero(zone)
        order = sorted(cand, key=lambda i: (clipped[i], -paf.score[i], -paf.matches[i],
                                            paf.lines[i]))
        kept_by_group = {}
        for i in order:
            group = (paf.tname[i], paf.qname[i], int(paf.strand[i]))
            kept = kept_by_group.setdefault(group, [])
            if any(_contains(paf, k, i) for k in kept):
                keep[i] = False
                stats["contained_duplicates"] += 1
            else:
                kept.append(i)
        if sequences is not None:
            rows = [i for i in cand if keep[i]]
            dropped, new_lines = _stitch_pieces(paf, rows, clipped, sequences, stats)
            keep[dropped] = False
            if new_lines:
                out = Paf.concat([paf.take(keep), parse_paf_lines(new_lines)])
                stats["alignments_out"] = len(out)
                return out, stats
    out = paf.take(keep)
    stats["alignments_out"] = len(out)
    return out, stats


def _contains(paf, k, i):
    if not (paf.tstart[k] - SLACK <= paf.tstart[i] and paf.tend[i] <= paf.tend[k] + SLACK
            and paf.qstart[k] - SLACK <= paf.qstart[i] and paf.qend[i] <= paf.qend[k] + SLACK):
        return False
    t = max(paf.tstart[i], paf.tstart[k])
    q_k = _project(paf, k, t)
    q_i = _project(paf, i, t)
    return abs(q_k - q_i) <= SLACK


def unit_edges(chunk, record_names, record_lengths):
    """Interior window edges of a chunk: record name to the positions where the
    chunk cuts a record (not the record's own ends)."""
    edges = {}
    for rec, start, end in chunk.intervals:
        name = record_names[rec]
        if start > 0:
            edges.setdefault(name, []).append(start)
        if end < record_lengths[rec]:
            edges.setdefault(name, []).append(end)
    return edges


def merge_pair(plan, unit_paths, out_path, target_records, query_records, self_pair=False,
               sequences=None):
    """Merge the unit PAFs of one pair as planned and write the pair's PAF.

    Parameters
    ----------
    plan : dict
        From :func:`gpukernels.workunits.read_plan`.
    unit_paths : dict of str to path
        Unit name to its PAF file.
    out_path : str
        Merged PAF (``.gz`` for gzip).
    target_records, query_records : (list of str, list of int)
        Record names and lengths of the target and query genomes.
    self_pair : bool
        Whether target and query are the same genome.
    sequences : Sequences, optional
        For stitching alignments longer than the split overlap.

    Returns
    -------
    dict
        The merge statistics.
    """
    t_names, t_lens = target_records
    q_names, q_lens = query_records
    units = []
    for u in plan["units"]:
        tc = plan["target_chunks"][u["target"]]
        qc = plan["query_chunks"][u["query"]]
        units.append((read_paf(unit_paths[u["unit"]]), unit_edges(tc, t_names, t_lens),
                      unit_edges(qc, q_names, q_lens)))
    merged, stats = merge_units(units, self_pair=self_pair,
                                target_zones=overlap_zones(plan["target_chunks"], t_names),
                                query_zones=overlap_zones(plan["query_chunks"], q_names),
                                sequences=sequences)
    write_paf(merged, out_path)
    stats["units"] = len(units)
    return stats


def _offsets(pafs):
    t_len, q_len = {}, {}
    for paf in pafs:
        t_len.update(zip(paf.tname, paf.tlen.tolist()))
        q_len.update(zip(paf.qname, paf.qlen.tolist()))
    t_off, q_off = {}, {}
    acc = 0
    for n in sorted(t_len):
        t_off[n] = acc
        acc += t_len[n]
    q_total = 0
    for n in sorted(q_len):
        q_off[n] = q_total
        q_total += q_len[n]
    return t_off, q_off, max(q_total, 1)


def aligned_pairs(paf, offsets=None):
    """Every aligned base pair (``M``, ``=``, ``X`` columns) as one int64 key.

    The key packs target position, query position (each offset by its record
    in name order) and strand, so two alignment sets can be compared by set
    operations; pass the same ``offsets`` (from both sets) to compare two.
    """
    t_off, q_off, q_total = offsets or _offsets([paf])
    keys = []
    for i in range(len(paf)):
        lens, ops = cigar_ops(paf.cigar[i])
        t = paf.tstart[i]
        q = 0
        for n, op in zip(lens.tolist(), ops.tolist()):
            if op in "M=X":
                tt = t_off[paf.tname[i]] + t + np.arange(n, dtype=np.int64)
                if paf.strand[i] > 0:
                    qq = paf.qstart[i] + q + np.arange(n, dtype=np.int64)
                else:
                    qq = paf.qend[i] - 1 - q - np.arange(n, dtype=np.int64)
                qq = qq + q_off[paf.qname[i]]
                keys.append((tt * q_total + qq) * 2 + int(paf.strand[i] < 0))
                t += n
                q += n
            elif op in "DN":
                t += n
            elif op == "I":
                q += n
    return np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)


def compare_alignments(a, b):
    """How far two alignment sets agree, base pair by base pair.

    Returns
    -------
    dict
        ``pairs_a``, ``pairs_b`` (distinct aligned pairs), ``shared``,
        ``fraction_same`` (shared over the larger set), ``duplicates_a`` and
        ``duplicates_b`` (aligned pairs reported more than once).
    """
    offsets = _offsets([a, b])
    ka, kb = aligned_pairs(a, offsets), aligned_pairs(b, offsets)
    ua, ub = np.unique(ka), np.unique(kb)
    shared = len(np.intersect1d(ua, ub, assume_unique=True))
    big = max(len(ua), len(ub), 1)
    return {"pairs_a": len(ua), "pairs_b": len(ub), "shared": shared,
            "fraction_same": shared / big, "duplicates_a": len(ka) - len(ua),
            "duplicates_b": len(kb) - len(ub)}
