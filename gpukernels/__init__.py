"""gpukernels: all-vs-all genome alignment with GPU (CuPy) and CPU (numba) backends.

The public face:

* :func:`read_fasta` / :func:`load_genome`: genomes in;
* :func:`align` with :class:`AlignOptions`: the LASTZ-class pipeline;
* :func:`write_alignments`: PAF, LASTZ general, MAF or BLAST tabular out.
"""

from .engine import AlignOptions, StageStats, align
from .errors import InputError
from .formats import write_alignments
from .genome import Genome, load_genome, read_fasta
from .scoring import Scoring, lastz_scoring

__all__ = ["AlignOptions", "Genome", "InputError", "Scoring", "StageStats", "align", "lastz_scoring",
           "load_genome", "read_fasta", "write_alignments"]
__version__ = "0.1.0"
