# One alignment job per work unit, holding a GPU lease (a GPU or a slot of one), else on the CPU.


rule align:
    """Align one work unit of a genome pair; record its pair-screen verdict."""
    input:
        target=f"{OUT}/genomes/{{target}}.npz",
        query=f"{OUT}/genomes/{{query}}.npz",
        plan=f"{OUT}/plans/{{target}}/{{query}}.json",
    output:
        paf=temp(f"{OUT}/units/{{target}}/{{query}}/{{unit}}.paf.gz"),
        screen=temp(f"{OUT}/units/{{target}}/{{query}}/{{unit}}.screen.json"),
    params:
        engine=config["engine"],
        backend=config["backend"],
        gpu_mem=config["gpu_mem"],
        lock_dir=config["gpu_lock_dir"],
        jobs_per_gpu=config["jobs_per_gpu"],
    threads: config["threads"]
    resources:
        gpu=gpu_per_job(),
    log:
        f"{OUT}/logs/align/{{target}}/{{query}}/{{unit}}.log",
    benchmark:
        f"{OUT}/benchmarks/align/{{target}}/{{query}}/{{unit}}.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/align_unit.py"
