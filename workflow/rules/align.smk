# One alignment job per batch of work units (units_per_job), holding a GPU lease (a GPU or a slot
# of one) for the batch, else on the CPU.


rule align:
    """Align a batch of work units in one process; record each unit's pair-screen verdict."""
    input:
        batch_inputs,
    output:
        temp(directory(batch_dir("{batch}"))),
    params:
        units=batch_units,
        engine=config["engine"],
        backend=config["backend"],
        gpu_mem=config["gpu_mem"],
        lock_dir=config["gpu_lock_dir"],
        jobs_per_gpu=config["jobs_per_gpu"],
    threads: align_threads()
    resources:
        gpu=gpu_per_job(),
    log:
        f"{OUT}/logs/align/{{batch}}.log",
    benchmark:
        f"{OUT}/benchmarks/align/{{batch}}.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/align_batch.py"
