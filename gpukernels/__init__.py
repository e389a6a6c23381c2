"""gpukernels: all-vs-all genome alignment with GPU (CuPy) and CPU (numba) backends.

The public face:

* :func:`read_fasta` / :func:`load_genome`: genomes in;
* :func:`align` with :class:`AlignOptions`: the LASTZ-class pipeline;
* :func:`write_alignments`: PAF, LASTZ general, MAF or BLAST tabular out.
"""

from . import cpu_target

cpu_target.choose()  # before numba is imported: it reads NUMBA_CPU_NAME once

from .engine import AlignOptions, StageStats, align  # noqa: E402
from .errors import InputError  # noqa: E402
from .formats import write_alignments  # noqa: E402
from .genome import Genome, load_genome, read_fasta  # noqa: E402
from .scoring import Scoring, lastz_scoring  # noqa: E402

__all__ = ["AlignOptions", "Genome", "InputError", "Scoring", "StageStats", "align", "lastz_scoring",
           "load_genome", "read_fasta", "write_alignments"]
__version__ = "0.1.0"
