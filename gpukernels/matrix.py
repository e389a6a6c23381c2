"""Coverage, identity and the matrices of a genome screen.

Definitions
-----------
Coverage of genome A by genome B
    The union of A's aligned intervals (all alignments of the pair) over A's
    non-N length; only A, C, G, T bases inside the union count.
Identity of A and B
    Matches over aligned columns (PAF columns 10 and 11: matches over
    alignment block length, gaps included), summed over the alignments kept
    by a one-to-one best filter, as pyani ANIm does with MUMmer's
    ``delta-filter -1``.
One-to-one best filter
    Alignments sorted by matches, best first; each is kept unless more than
    half of its span on A, or on B, is already claimed by a kept alignment.
    A kept alignment claims its spans on both genomes.

Both directions are reported (row = query, column = subject, as in
pyani-plus), and no value is assumed symmetric. The diagonal of a square
matrix is 1 (identity, coverage, hadamard) and the genome's non-N length
(aligned length) by definition; self-comparisons go into the long table.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from .io_utils import atomic_text_output
from .merge import cigar_ops

#: Columns of the long table, in order.
LONG_COLUMNS = ("query", "subject", "identity", "query_coverage", "subject_coverage",
                "query_aligned_length", "subject_aligned_length", "aligned_columns", "matches",
                "mismatches", "gap_columns", "gap_opens", "alignments", "query_length",
                "subject_length", "run")

#: Square matrices: file suffix and long-table column (pyani-plus names).
MATRICES = {"identity": "identity", "query_cov": "query_coverage",
            "aln_lengths": "query_aligned_length", "sim_errors": "sim_errors",
            "hadamard": "hadamard"}

#: Record-level (rectangular) matrices of a pair.
RECORD_MATRICES = ("identity", "query_cov", "subject_cov", "aln_lengths")


class _Claims:
    """Disjoint claimed intervals per record, for the one-to-one filter."""

    def __init__(self):
        self.starts, self.ends = {}, {}

    def overlap(self, name, start, end):
        s, e = self.starts.get(name, []), self.ends.get(name, [])
        j = bisect.bisect_right(s, start) - 1
        j = max(j, 0)
        total = 0
        while j < len(s) and s[j] < end:
            total += max(0, min(e[j], end) - max(s[j], start))
            j += 1
        return total

    def add(self, name, start, end):
        s = self.starts.setdefault(name, [])
        e = self.ends.setdefault(name, [])
        j = bisect.bisect_left(e, start)  # first interval ending at or after start
        k = j
        while k < len(s) and s[k] <= end:
            start, end = min(start, s[k]), max(end, e[k])
            k += 1
        s[j:k] = [start]
        e[j:k] = [end]


def one_to_one(paf, max_claimed=0.5):
    """Mask of the alignments kept by the one-to-one best filter.

    Parameters
    ----------
    paf : gpukernels.merge.Paf
    max_claimed : float
        Largest fraction of an alignment's span, on either genome, that
        better alignments may already hold for it to be kept.
    """
    order = sorted(range(len(paf)), key=lambda i: (-paf.matches[i], -paf.block[i], paf.tname[i],
                                                   paf.tstart[i], paf.qname[i], paf.qstart[i]))
    t_claims, q_claims = _Claims(), _Claims()
    keep = np.zeros(len(paf), dtype=bool)
    for i in order:
        t_span = paf.tend[i] - paf.tstart[i]
        q_span = paf.qend[i] - paf.qstart[i]
        if (t_claims.overlap(paf.tname[i], paf.tstart[i], paf.tend[i]) > max_claimed * t_span
                or q_claims.overlap(paf.qname[i], paf.qstart[i], paf.qend[i]) > max_claimed * q_span):
            continue
        keep[i] = True
        t_claims.add(paf.tname[i], int(paf.tstart[i]), int(paf.tend[i]))
        q_claims.add(paf.qname[i], int(paf.qstart[i]), int(paf.qend[i]))
    return keep


def cigar_columns(paf):
    """Per alignment: match/mismatch columns, gap columns and gap opens."""
    m = np.zeros(len(paf), dtype=np.int64)
    gaps = np.zeros(len(paf), dtype=np.int64)
    opens = np.zeros(len(paf), dtype=np.int64)
    for i in range(len(paf)):
        lens, ops = cigar_ops(paf.cigar[i])
        if len(lens) == 0:  # no CIGAR: take the block as ungapped
            m[i] = min(paf.block[i], paf.tend[i] - paf.tstart[i])
            gaps[i] = paf.block[i] - m[i]
            continue
        is_m = np.isin(ops, ("M", "=", "X"))
        is_g = np.isin(ops, ("I", "D"))
        m[i] = lens[is_m].sum()
        gaps[i] = lens[is_g].sum()
        opens[i] = is_g.sum()
    return m, gaps, opens


def non_n_masks(genome):
    """Record name to a boolean array, True on A, C, G, T bases.

    Parameters
    ----------
    genome : gpukernels.genome.Genome
        A whole genome (as prepared, not a piece).
    """
    out = {}
    for name, start, size in zip(genome.names, genome.starts, genome.sizes):
        out[name] = genome.codes[start:start + size] < 4
    return out


def covered_bases(names, starts, ends, masks):
    """Non-N bases inside the union of intervals, per record name.

    Parameters
    ----------
    names, starts, ends : array-like
        Intervals (0-based half-open) on records.
    masks : dict of str to ndarray of bool
        :func:`non_n_masks` of the genome.

    Returns
    -------
    dict of str to int
    """
    out = {}
    names = np.asarray(names, dtype=object)
    for name in set(names.tolist()):
        sel = names == name
        mask = masks[name]
        diff = np.zeros(len(mask) + 1, dtype=np.int32)
        np.add.at(diff, np.asarray(starts)[sel], 1)
        np.add.at(diff, np.asarray(ends)[sel], -1)
        inside = np.cumsum(diff[:-1]) > 0
        out[name] = int(np.count_nonzero(inside & mask))
    return out


def _stats(paf, sel, kept, m_cols, gap_cols, gap_opens, q_cov, t_cov, q_len, t_len):
    k = sel & kept
    block = int(paf.block[k].sum())
    matches = int(paf.matches[k].sum())
    mism = int(m_cols[k].sum()) - matches
    return {"identity": matches / block if block else math.nan,
            "query_coverage": q_cov / q_len if q_len else math.nan,
            "subject_coverage": t_cov / t_len if t_len else math.nan,
            "query_aligned_length": int((paf.qend[k] - paf.qstart[k]).sum()),
            "subject_aligned_length": int((paf.tend[k] - paf.tstart[k]).sum()),
            "aligned_columns": block, "matches": matches, "mismatches": mism,
            "gap_columns": int(gap_cols[k].sum()), "gap_opens": int(gap_opens[k].sum()),
            "alignments": int(k.sum()), "query_length": int(q_len), "subject_length": int(t_len)}


def _swap(row):
    out = dict(row)
    for a, b in (("query", "subject"), ("query_coverage", "subject_coverage"),
                 ("query_aligned_length", "subject_aligned_length"),
                 ("query_length", "subject_length")):
        out[a], out[b] = row[b], row[a]
    return out


def pair_tables(paf, target, query, target_genome, query_genome):
    """Genome-level and record-level statistics of one aligned pair.

    Parameters
    ----------
    paf : gpukernels.merge.Paf
        The pair's merged alignments (query columns first, as PAF has them).
    target, query : str
        Genome labels.
    target_genome, query_genome : gpukernels.genome.Genome
        The prepared genomes (for record lengths and N positions).

    Returns
    -------
    genome_rows : list of dict
        Two rows, query=query/subject=target and the swap (one row for a
        self pair), columns :data:`LONG_COLUMNS`.
    record_rows : list of dict
        One row per (query record, target record) pair that has at least
        one alignment, query record in ``query``, target record in ``subject``.
    """
    run = f"{target}:{query}"
    kept = one_to_one(paf) if len(paf) else np.zeros(0, dtype=bool)
    m_cols, gap_cols, opens = cigar_columns(paf)
    q_masks, t_masks = non_n_masks(query_genome), non_n_masks(target_genome)
    q_len_rec = {n: int(m.sum()) for n, m in q_masks.items()}
    t_len_rec = {n: int(m.sum()) for n, m in t_masks.items()}
    q_cov = covered_bases(paf.qname, paf.qstart, paf.qend, q_masks)
    t_cov = covered_bases(paf.tname, paf.tstart, paf.tend, t_masks)
    everything = np.ones(len(paf), dtype=bool)
    row = {"query": query, "subject": target}
    row.update(_stats(paf, everything, kept, m_cols, gap_cols, opens, sum(q_cov.values()),
                      sum(t_cov.values()), sum(q_len_rec.values()), sum(t_len_rec.values())))
    row["run"] = run
    genome_rows = [row] if target == query else [row, _swap(row)]
    record_rows = []
    present = set(zip(paf.qname.tolist(), paf.tname.tolist()))
    for qn in query_genome.names:
        for tn in target_genome.names:
            if (qn, tn) not in present:
                continue
            sel = (paf.qname == qn) & (paf.tname == tn)
            qc = covered_bases(paf.qname[sel], paf.qstart[sel], paf.qend[sel], q_masks).get(qn, 0)
            tc = covered_bases(paf.tname[sel], paf.tstart[sel], paf.tend[sel], t_masks).get(tn, 0)
            r = {"query": qn, "subject": tn}
            r.update(_stats(paf, sel, kept, m_cols, gap_cols, opens, qc, tc, q_len_rec[qn],
                            t_len_rec[tn]))
            r["run"] = run
            record_rows.append(r)
    return genome_rows, record_rows


def write_long_table(rows, path, columns=LONG_COLUMNS):
    """Write rows (dicts) as a TSV with a header line."""
    with atomic_text_output(path) as fh:
        fh.write("\t".join(columns) + "\n")
        for r in rows:
            fh.write("\t".join(_fmt(r[c]) for c in columns) + "\n")


def read_long_table(path):
    """Read a TSV written by :func:`write_long_table` into a list of dicts."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        for line in fh:
            vals = line.rstrip("\n").split("\t")
            rows.append({h: _parse(v) for h, v in zip(header, vals)})
    return rows


def _fmt(v):
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def _parse(v):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def choose_rows(rows, genomes):
    """One row per ordered (query, subject) of the screen.

    A row from the run in which the query genome was the query wins over the
    swapped row of the opposite run; self rows are left out.

    Returns
    -------
    dict of (str, str) to dict
    """
    chosen = {}
    for r in rows:
        if r["query"] == r["subject"]:
            continue
        key = (r["query"], r["subject"])
        direct = r["run"] == f"{r['subject']}:{r['query']}"
        if key not in chosen or direct:
            chosen[key] = r
    return chosen


def square_matrices(rows, genomes, lengths):
    """Square matrices (row = query, column = subject) from long-table rows.

    Parameters
    ----------
    rows : list of dict
        Genome-level long-table rows.
    genomes : list of str
        Genome labels, in the order of the matrices.
    lengths : dict of str to int
        Non-N length of each genome, for the diagonal of ``aln_lengths``.

    Returns
    -------
    dict of str to ndarray
        Keyed by the names of :data:`MATRICES`.
    """
    n = len(genomes)
    chosen = choose_rows(rows, genomes)
    mats = {k: np.full((n, n), np.nan) for k in MATRICES}
    for i, q in enumerate(genomes):
        for j, s in enumerate(genomes):
            if i == j:
                for k in ("identity", "query_cov", "hadamard"):
                    mats[k][i, j] = 1.0
                mats["aln_lengths"][i, j] = lengths[q]
                mats["sim_errors"][i, j] = 0
                continue
            r = chosen.get((q, s))
            if r is None:
                continue
            ident = float(r["identity"])
            mats["identity"][i, j] = ident
            mats["query_cov"][i, j] = float(r["query_coverage"])
            mats["aln_lengths"][i, j] = r["query_aligned_length"]
            mats["sim_errors"][i, j] = r["mismatches"] + r["gap_columns"]
            mats["hadamard"][i, j] = (0.0 if math.isnan(ident) else ident) * float(r["query_coverage"])
    return mats


def write_matrix(path, row_names, col_names, matrix):
    """Write a matrix as TSV: a header of column names after an empty cell,
    then one line per row name (the layout of pyani-plus's matrices)."""
    with atomic_text_output(path) as fh:
        fh.write("\t" + "\t".join(col_names) + "\n")
        for name, vals in zip(row_names, matrix):
            fh.write(name + "\t" + "\t".join(_fmt_num(v) for v in vals) + "\n")


def read_matrix(path):
    """Read a matrix written by :func:`write_matrix`: ``(rows, cols, array)``."""
    with open(path, encoding="utf-8") as fh:
        cols = fh.readline().rstrip("\n").split("\t")[1:]
        rows, vals = [], []
        for line in fh:
            f = line.rstrip("\n").split("\t")
            rows.append(f[0])
            vals.append([float(x) for x in f[1:]])
    return rows, cols, np.array(vals, dtype=float).reshape(len(rows), len(cols))


def _fmt_num(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    return str(int(v)) if v == int(v) and abs(v) >= 2 else f"{v:.6g}"


def distance_matrix(identity):
    """Symmetric distance ``1 - mean(identity[a, b], identity[b, a])``.

    The only symmetrised output, because distance-based tree programs need a
    symmetric matrix; a pair with no alignment is at distance 1.
    """
    ident = np.where(np.isnan(identity), 0.0, identity)
    d = 1.0 - (ident + ident.T) / 2.0
    np.fill_diagonal(d, 0.0)
    return np.clip(d, 0.0, 1.0)


def write_phylip(path, names, dist):
    """Write a square distance matrix in (relaxed) PHYLIP format."""
    with atomic_text_output(path) as fh:
        fh.write(f"{len(names)}\n")
        for name, row in zip(names, dist):
            fh.write(name + " " + " ".join(f"{v:.6f}" for v in row) + "\n")


def cluster_order(dist):
    """Leaf order of average-linkage (UPGMA) clustering of a distance matrix.

    Parameters
    ----------
    dist : ndarray, shape (n, n)
        Symmetric distances.

    Returns
    -------
    list of int
    """
    d = np.array(dist, dtype=float)
    n = len(d)
    if n <= 2:
        return list(range(n))
    clusters = {i: [i] for i in range(n)}
    sizes = {i: 1 for i in range(n)}
    dd = {(i, j): d[i, j] for i in range(n) for j in range(i + 1, n)}
    nxt = n
    while len(clusters) > 1:
        (a, b) = min(dd, key=lambda k: (dd[k], k))
        merged = clusters.pop(a) + clusters.pop(b)
        sa, sb = sizes.pop(a), sizes.pop(b)
        new = {}
        for c in clusters:
            da = dd.get((min(a, c), max(a, c)))
            db = dd.get((min(b, c), max(b, c)))
            new[(c, nxt)] = (da * sa + db * sb) / (sa + sb)
        dd = {k: v for k, v in dd.items() if a not in k and b not in k}
        dd.update(new)
        clusters[nxt] = merged
        sizes[nxt] = sa + sb
        nxt += 1
    return next(iter(clusters.values()))


def record_matrices(record_rows, query_names, target_names):
    """Rectangular record-level matrices of one pair (rows = query records).

    Returns
    -------
    dict of str to ndarray
        ``identity``, ``query_cov``, ``subject_cov``, ``aln_lengths``; NaN
        identity and zero coverage where two records share no alignment.
    """
    qi = {n: i for i, n in enumerate(query_names)}
    ti = {n: j for j, n in enumerate(target_names)}
    shape = (len(query_names), len(target_names))
    mats = {"identity": np.full(shape, np.nan), "query_cov": np.zeros(shape),
            "subject_cov": np.zeros(shape), "aln_lengths": np.zeros(shape)}
    for r in record_rows:
        i, j = qi[r["query"]], ti[r["subject"]]
        mats["identity"][i, j] = r["identity"]
        mats["query_cov"][i, j] = r["query_coverage"]
        mats["subject_cov"][i, j] = r["subject_coverage"]
        mats["aln_lengths"][i, j] = r["query_aligned_length"]
    return mats
