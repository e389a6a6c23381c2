"""The workflow's record of the SeedHit pair screen: one JSON per work unit, one table of skips.

Each alignment job writes the verdict of its unit (:func:`write_unit_record`):
``"off"`` when the screen is not configured, else ``"pass"`` or ``"skip"``
with the counts and the reason (:class:`gpukernels.seedhit.ScreenVerdict`).
The aggregation gathers the skipped units of every genome pair into one
TSV (:func:`write_skipped_table`, columns :data:`SKIPPED_COLUMNS`).
"""

from __future__ import annotations

import json

from .io_utils import atomic_text_output

#: Columns of the table of skipped work units, in order.
SKIPPED_COLUMNS = ("target", "query", "unit", "target_chunk", "query_chunk", "target_bases",
                   "query_bases", "min_identity", "best_count", "bound", "reason")


def unit_record(verdict, target, query, unit, target_chunk, query_chunk):
    """The screen's record of one work unit, as a JSON-ready dict.

    Parameters
    ----------
    verdict : gpukernels.seedhit.ScreenVerdict or None
        The engine's ``StageStats.screen``; None when the screen did not run.
    target, query : str
        Genome labels.
    unit : str
        Work-unit name.
    target_chunk, query_chunk : gpukernels.workunits.Chunk
        The unit's pieces of the two genomes.

    Returns
    -------
    dict
        ``verdict`` is ``"off"``, ``"pass"`` or ``"skip"``; with the screen
        on, also ``min_identity``, ``best_count`` (the passing window's count,
        or the best count of a skipped unit), ``bound`` and ``reason``.
    """
    rec = {"target": target, "query": query, "unit": unit,
           "target_chunk": target_chunk.reason, "query_chunk": query_chunk.reason,
           "target_bases": target_chunk.size, "query_bases": query_chunk.size}
    if verdict is None:
        rec["verdict"] = "off"
        return rec
    rec.update(verdict=verdict.verdict, min_identity=verdict.min_identity, best_count=verdict.count,
               bound=verdict.need, reason=verdict.reason)
    return rec


def write_unit_record(path, record):
    """Write one unit's record (:func:`unit_record`) as JSON, atomically."""
    with atomic_text_output(path, compress=False) as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")


def read_unit_records(paths):
    """Records of :func:`write_unit_record`, in the order of ``paths``."""
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            out.append(json.load(fh))
    return out


def write_skipped_table(records, path):
    """Write the skipped units among ``records`` as a TSV (header always, one row per skip).

    Parameters
    ----------
    records : iterable of dict
        :func:`unit_record` dicts; those whose verdict is not ``"skip"`` are left out.
    path : str
        Output TSV.

    Returns
    -------
    int
        Number of rows written.
    """
    rows = [r for r in records if r["verdict"] == "skip"]
    with atomic_text_output(path, compress=False) as fh:
        fh.write("\t".join(SKIPPED_COLUMNS) + "\n")
        for r in rows:
            fh.write("\t".join(_cell(r[c]) for c in SKIPPED_COLUMNS) + "\n")
    return len(rows)


def _cell(value):
    if isinstance(value, float):
        return f"{value:g}"
    return str(value).replace("\t", " ").replace("\n", " ")
