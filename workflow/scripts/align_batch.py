"""Snakemake adapter: align a batch of work units, one genome pair's chunks each, in one process.

Each unit's target and query chunks are cut from the encoded genomes with
``Genome.piece`` (alignments keep the source records' coordinates), and the
engine writes the unit's PAF into the batch's folder. A GPU is leased once
for the whole batch unless the backend is the CPU, so the process's start
(imports, numba's cache, the GPU's context and kernels) is paid once a batch.
All engine calls go through :func:`run_engine`. Each unit's pair-screen
verdict (``"off"`` when ``engine.screen_min_identity`` is null) goes beside
its PAF for the table of skipped units.
"""
import logging
import os
import sys
import time

from gpukernels import lease, screen_records, workunits
from gpukernels.genome import load_genome


def run_engine(target, query, engine, out_path, backend, device, gpu_mem, threads, self_mode, jobs_per_gpu=1):
    """Align ``query`` to ``target`` with the engine and write PAF to ``out_path``.

    ``engine`` is the workflow's ``engine`` config; ``gpu_mem`` is in GiB.
    Without ``gpu_mem``, a job sharing its GPU with others (``jobs_per_gpu``
    > 1) budgets its share of the engine's default share of the device's
    memory, so that the jobs together stay within it.
    Returns the engine's :class:`gpukernels.engine.StageStats` (its
    ``screen`` is the pair screen's verdict, None when the screen is off).
    """
    from gpukernels import align, write_alignments
    from gpukernels.engine import StageStats

    try:
        import numba
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    except (ImportError, ValueError):
        pass
    options = workunits.engine_options(engine, self_mode=self_mode)
    stats = StageStats()
    mem = None if gpu_mem is None else int(float(gpu_mem) * (1 << 30))
    if mem is None and backend == "gpu" and int(jobs_per_gpu) > 1:
        import cupy
        from gpukernels.gpu import DEFAULT_SHARE
        with cupy.cuda.Device(device):
            mem = int(DEFAULT_SHARE * cupy.cuda.runtime.memGetInfo()[1] / int(jobs_per_gpu))
        logging.info("GPU shared by up to %d jobs: memory budget %.1f GiB", int(jobs_per_gpu), mem / (1 << 30))
    alns = align(target, query, options, backend=backend, device=device, gpu_mem=mem, stats=stats,
                 threads=int(threads))
    write_alignments(alns, target, query, out_path, fmt="paf")
    logging.info("%d alignments", len(alns))
    return stats


def _loaded(cache, path, load):
    """``load(path)``, read once while consecutive units use it (the batch's units go pair by pair)."""
    if path not in cache:
        cache[path] = load(path)
    return cache[path]


def align_unit(unit, loaded, params, backend, device, threads):
    """Align one unit of the batch (a dict of :func:`batch_units` in ``common.smk``); ``loaded`` holds
    the plan and genomes the unit before read, and keeps this unit's."""
    mine = (unit["plan"], unit["target_npz"], unit["query_npz"])
    for path in [p for p in loaded if p not in mine]:
        del loaded[path]
    plan = _loaded(loaded, unit["plan"], workunits.read_plan)
    t_chunk, q_chunk = workunits.unit_chunks(plan, unit["unit"])
    target = _loaded(loaded, unit["target_npz"], load_genome).piece(t_chunk.intervals)
    query = _loaded(loaded, unit["query_npz"], load_genome).piece(q_chunk.intervals)
    self_mode = plan["target"] == plan["query"] and t_chunk.index == q_chunk.index
    logging.info("unit %s/%s/%s: target %s, query %s", unit["target"], unit["query"], unit["unit"],
                 t_chunk.reason, q_chunk.reason)
    os.makedirs(os.path.dirname(unit["paf"]), exist_ok=True)
    stats = run_engine(target, query, dict(params.engine), unit["paf"], backend, device, params.gpu_mem,
                       threads, self_mode, int(params.jobs_per_gpu))
    record = screen_records.unit_record(stats.screen, plan["target"], plan["query"], unit["unit"],
                                        t_chunk, q_chunk)
    screen_records.write_unit_record(unit["screen"], record)


def main(smk):
    """Run the batch described by the ``snakemake`` object ``smk``."""
    backend = smk.params.backend
    pool = [] if backend == "cpu" else lease.device_pool()
    if backend == "gpu" and not pool:
        sys.exit("backend 'gpu' asked for, but no GPU is visible (CUDA_VISIBLE_DEVICES, nvidia-smi)")
    units = smk.params.units
    os.makedirs(smk.output[0], exist_ok=True)
    loaded = {}
    with lease.acquire(pool=pool, lock_dir=smk.params.lock_dir, slots=int(smk.params.jobs_per_gpu)) as held:
        run_backend = "cpu" if held.ordinal is None else "gpu"
        logging.info("backend %s, device %s (CUDA_VISIBLE_DEVICES=%s), threads %d; %d work units", run_backend,
                     held.device, os.environ.get("CUDA_VISIBLE_DEVICES", "unset"), smk.threads, len(units))
        for k, unit in enumerate(units, start=1):
            start = time.perf_counter()
            align_unit(unit, loaded, smk.params, run_backend, held.ordinal, smk.threads)
            logging.info("unit %d of %d done in %.1f s", k, len(units), time.perf_counter() - start)


if __name__ == "__main__" or "snakemake" in globals():
    sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
    main(snakemake)  # noqa: F821
