"""Output writers, one module per format, behind :func:`write_alignments`."""

from __future__ import annotations

from ..errors import InputError
from ..io_utils import atomic_text_output

FORMATS = ("paf", "general", "maf", "blast6", "gecko")


def write_alignments(alns, target, query, path, fmt="paf", eqx=False, command=None):
    """Write canonical alignments to ``path`` (``-`` for stdout) atomically.

    Parameters
    ----------
    alns : Alignments
        Canonically sorted (see :meth:`Alignments.canonical`).
    target, query : Genome
    path : str
        Output file; ``.gz`` compresses.
    fmt : {"paf", "general", "maf", "blast6"}
    eqx : bool
        PAF only: ``=``/``X`` instead of ``M`` in ``cg:Z``.
    command : str, optional
        Command line recorded in MAF and general headers.
    """
    from . import blast6, gecko, general, maf, paf
    writers = {"paf": paf.write, "general": general.write, "maf": maf.write, "blast6": blast6.write,
               "gecko": gecko.write}
    if fmt not in writers:
        raise InputError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}")
    with atomic_text_output(path) as fh:
        writers[fmt](fh, alns, target, query, eqx=eqx, command=command)
