"""Snakemake adapter: align one work unit of a genome pair.

The unit's target and query chunks are cut from the encoded genomes with
``Genome.piece`` (alignments keep the source records' coordinates), a GPU is
leased for the job's life unless the backend is the CPU, and the engine
writes the unit's PAF. All engine calls go through :func:`run_engine`.
"""
import logging
import os
import sys

from gpukernels import lease, workunits
from gpukernels.genome import load_genome


def run_engine(target, query, engine, out_path, backend, device, gpu_mem, threads, self_mode):
    """Align ``query`` to ``target`` with the engine and write PAF to ``out_path``."""
    try:
        from gpukernels import AlignOptions, align, write_alignments
    except ImportError:  # TEMPORARY until the engine lands: minimap2 stand-in
        return _standin(target, query, out_path, self_mode)
    options = AlignOptions(**dict(engine, self_mode=self_mode))
    alns = align(target, query, options, backend=backend, device=device, gpu_mem=gpu_mem,
                 threads=threads)
    write_alignments(alns, target, query, out_path, fmt="paf")


def _standin(target, query, out_path, self_mode):
    import gzip
    import subprocess
    import tempfile
    from gpukernels.genome import BASES
    import numpy as np

    def fasta(g, path):
        with open(path, "w") as fh:
            for k, (s, n) in enumerate(zip(g.starts, g.sizes)):
                seq = np.frombuffer(b"ACGTN", dtype=np.uint8)[g.codes[s:s + n]].tobytes().decode()
                fh.write(f">{k}\n{seq}\n")
    with tempfile.TemporaryDirectory() as d:
        fasta(target, f"{d}/t.fa")
        fasta(query, f"{d}/q.fa")
        out = subprocess.run(["minimap2", "-x", "asm20", "-c", "-t", "1", f"{d}/t.fa", f"{d}/q.fa"],
                             capture_output=True, text=True, check=True).stdout
    lines = []
    for line in out.splitlines():
        f = line.split("\t")
        qi, ti = int(f[0]), int(f[5])
        f[0], f[1] = query.names[qi], str(query.lengths[qi])
        f[2], f[3] = str(int(f[2]) + query.offsets[qi]), str(int(f[3]) + query.offsets[qi])
        f[5], f[6] = target.names[ti], str(target.lengths[ti])
        f[7], f[8] = str(int(f[7]) + target.offsets[ti]), str(int(f[8]) + target.offsets[ti])
        lines.append("\t".join(f[:12] + [t for t in f[12:] if t[:2] in ("NM", "AS", "cg", "tp")]))
    with gzip.open(out_path, "wt") as fh:
        fh.write("".join(l + "\n" for l in lines))


def main(smk):
    """Run the unit described by the ``snakemake`` object ``smk``."""
    plan = workunits.read_plan(smk.input.plan)
    t_chunk, q_chunk = workunits.unit_chunks(plan, smk.wildcards.unit)
    target = load_genome(smk.input.target).piece(t_chunk.intervals)
    query = load_genome(smk.input.query).piece(q_chunk.intervals)
    self_mode = plan["target"] == plan["query"] and t_chunk.index == q_chunk.index
    logging.info("unit %s: target %s, query %s", smk.wildcards.unit, t_chunk.reason, q_chunk.reason)
    backend = smk.params.backend
    pool = [] if backend == "cpu" else lease.device_pool()
    if backend == "gpu" and not pool:
        sys.exit("backend 'gpu' asked for, but no GPU is visible (CUDA_VISIBLE_DEVICES, nvidia-smi)")
    with lease.acquire(pool=pool, lock_dir=smk.params.lock_dir) as held:
        run_backend = "cpu" if held.ordinal is None else "gpu"
        logging.info("backend %s, device %s (CUDA_VISIBLE_DEVICES=%s), threads %d", run_backend,
                     held.device, os.environ.get("CUDA_VISIBLE_DEVICES", "unset"), smk.threads)
        run_engine(target, query, dict(smk.params.engine), smk.output[0], run_backend,
                   held.ordinal, smk.params.gpu_mem, smk.threads, self_mode)


if __name__ == "__main__" or "snakemake" in globals():
    sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
    main(snakemake)  # noqa: F821
