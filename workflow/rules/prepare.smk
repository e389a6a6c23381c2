# Encode each genome once, and plan the work units of each pair.


rule prepare:
    """Encode a genome to .npz and list its records in a manifest."""
    input:
        fasta=lambda wildcards: GENOMES[wildcards.genome],
    output:
        npz=f"{OUT}/genomes/{{genome}}.npz",
        manifest=f"{OUT}/genomes/{{genome}}.manifest.tsv",
    log:
        f"{OUT}/logs/prepare/{{genome}}.log",
    benchmark:
        f"{OUT}/benchmarks/prepare/{{genome}}.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/prepare.py"


rule plan:
    """Cut a genome pair into work units (splits and batches, with reasons)."""
    input:
        target=f"{OUT}/genomes/{{target}}.manifest.tsv",
        query=f"{OUT}/genomes/{{query}}.manifest.tsv",
    output:
        f"{OUT}/plans/{{target}}/{{query}}.json",
    params:
        split=SPLIT,
        units=lambda wildcards: units_of(wildcards.target, wildcards.query),
    log:
        f"{OUT}/logs/plan/{{target}}/{{query}}.log",
    benchmark:
        f"{OUT}/benchmarks/plan/{{target}}/{{query}}.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/plan.py"
