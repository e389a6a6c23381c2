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
    """Align ``query`` to ``target`` with the engine and write PAF to ``out_path``.

    ``engine`` is the workflow's ``engine`` config; ``gpu_mem`` is in GiB.
    """
    from gpukernels import align, write_alignments

    try:
        import numba
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    except (ImportError, ValueError):
        pass
    options = workunits.engine_options(engine, self_mode=self_mode)
    alns = align(target, query, options, backend=backend, device=device,
                 gpu_mem=None if gpu_mem is None else int(float(gpu_mem) * (1 << 30)), threads=int(threads))
    write_alignments(alns, target, query, out_path, fmt="paf")
    logging.info("%d alignments", len(alns))


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
