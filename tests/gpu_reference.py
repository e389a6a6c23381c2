"""CPU reference PAFs for the GPU parity tests, cached by content.

The device has little time: the CPU twin's PAF for a pair can be computed
beforehand (on any machine) and carried. A cached PAF is used only when its
key matches: the key hashes the input files' bytes, the ``ava align``
arguments and :data:`REF_VERSION`. The CPU twin's code is not in the key
(others refine it while the cache travels; a change of its *output* would be
a change of the engine's rules): bump :data:`REF_VERSION` and refill the
cache (``python tests/gpu_reference.py``) when the rules change.

Environment
-----------
AVA_SHARED_DATA
    Folder of the genomes (default ``../shared/data`` beside the checkout).
AVA_CPU_PAF_CACHE
    Folder of cached CPU PAFs (default ``.carry/cpu_paf`` in the checkout).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(os.environ.get("AVA_SHARED_DATA", ROOT.parent / "shared" / "data"))
CACHE = pathlib.Path(os.environ.get("AVA_CPU_PAF_CACHE", ROOT / ".carry" / "cpu_paf"))

#: bump when the engine's rules (and so the CPU PAFs) change
REF_VERSION = "2026-11-21"

#: sources that decide the CPU PAF (see code_digest)
_SOURCES = ["cpu/seeds.py", "cpu/ungapped.py", "cpu/gapped.py", "scoring.py", "genome.py", "alignments.py",
            "formats/paf.py", "formats/common.py"]

#: the parity pairs of issue 3 (target, query), relative to the data folder
PAIRS = {
    "saureus": ("bacteria/S.Aureus_COL.fa.gz", "bacteria/S.Aureus_N315.fa.gz"),
    "hpylori": ("bacteria/H.Pylori_G27.fa.gz", "bacteria/H.Pylori_SJM180.fa.gz"),
    "ecoli": ("bacteria/E.Coli_MG1655-K12.fa.gz", "bacteria/E.Coli_DH1.fa.gz"),
    "vcholerae": ("bacteria/V.Cholerae_H1.fa.gz", "bacteria/V.Cholerae_O395.fa.gz"),
}
#: the Zymoseptoria chromosome pair: (file, record, start, end) for target and query. A26b is
#: in scaffolds: scaffold536 (676 kb) is homologous to chr_2:2.22-2.92 Mb of IPO323 (minimap2
#: asm20), so the target is that stretch of chr_2 cut with Genome.piece
ZYMO = (("fungi/Ztritici_IPO323.fa.gz", "chr_2", 2_200_000, 2_950_000),
        ("fungi/Ztritici_A26b.fa.gz", "scaffold536", 0, None))


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def code_digest(read=None):
    """Hash of the sources that decide the CPU output (``read(rel)`` gives a source's bytes)."""
    h = hashlib.sha256()
    for rel in _SOURCES:
        if read is None:
            p = ROOT / "gpukernels" / rel
            data = p.read_bytes() if p.exists() else None
        else:
            data = read(rel)
        if data is not None:
            h.update(rel.encode())
            h.update(data)
    return h.hexdigest()


def cache_key(target, query, args, digest=None):
    """Key of one CPU run: inputs' bytes, arguments, code."""
    h = hashlib.sha256()
    h.update(_digest(target).encode())
    h.update(_digest(query).encode())
    h.update(" ".join(args).encode())
    h.update((digest or REF_VERSION).encode())
    return h.hexdigest()[:24]


def run_ava(target, query, out, backend, args=(), env=None):
    """Run ``ava align`` in a fresh process; return its stderr."""
    cmd = [sys.executable, "-m", "gpukernels.cli", "-v", "align", str(target), str(query), "-o", str(out),
           "--backend", backend, *args]
    e = dict(os.environ, **(env or {}))
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    res = subprocess.run(cmd, capture_output=True, text=True, env=e, cwd=str(ROOT))
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr[-4000:]}")
    return res.stderr


def cpu_paf(target, query, args=()):
    """Bytes of the CPU twin's PAF for a pair, from the cache or computed (and cached)."""
    key = cache_key(target, query, args)
    cached = CACHE / f"{key}.paf.gz"
    if cached.exists():
        with gzip.open(cached, "rb") as fh:
            return fh.read()
    with tempfile.TemporaryDirectory() as scratch:    # only the compressed PAF stays (it is carried)
        out = pathlib.Path(scratch) / f"{key}.cpu.paf"
        run_ava(target, query, out, "cpu", args)
        data = out.read_bytes()
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        with gzip.open(cached, "wb") as fh:
            fh.write(data)
    except OSError:
        pass
    return data


def write_record(src, record, dst, start=0, end=None):
    """Write ``record[start:end]`` of ``src`` (soft-mask kept, other IUPAC codes as N) to FASTA ``dst``."""
    from gpukernels.genome import read_fasta
    g = read_fasta(src)
    k = g.names.index(record)
    end = int(g.sizes[k]) if end is None else end
    piece = g.piece([(k, start, end)])
    if (start, end) != (0, int(g.sizes[k])):
        record = f"{record}:{start}-{end}"
    codes, mask = piece.codes, piece.softmask
    up = np.frombuffer(b"ACGTN", dtype=np.uint8)[codes]
    low = np.frombuffer(b"acgtn", dtype=np.uint8)[codes]
    seq = np.where(mask, low, up).tobytes()
    with open(dst, "wb") as fh:
        fh.write(f">{record}\n".encode())
        for i in range(0, len(seq), 80):
            fh.write(seq[i:i + 80] + b"\n")
    return dst


def zymo_files(workdir):
    """The Zymoseptoria chromosome pair as two FASTA files in ``workdir``."""
    (tf, tr, ts, te), (qf, qr, qs, qe) = ZYMO
    t = write_record(DATA / tf, tr, pathlib.Path(workdir) / f"{tr}.fa", ts, te)
    q = write_record(DATA / qf, qr, pathlib.Path(workdir) / f"{qr}.fa", qs, qe)
    return t, q


if __name__ == "__main__":
    # fill the cache: python tests/gpu_reference.py [names...]
    names = sys.argv[1:] or list(PAIRS) + ["zymo"]
    for name in names:
        with tempfile.TemporaryDirectory() as work:
            t, q = zymo_files(work) if name == "zymo" else (DATA / p for p in PAIRS[name])
            data = cpu_paf(t, q)
        print(name, len(data.splitlines()), "lines", flush=True)
