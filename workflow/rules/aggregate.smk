# Square matrices over all genomes.


rule matrices:
    """Long table, square matrices (pyani-plus names) and a PHYLIP distance matrix."""
    input:
        rows=pair_paths(f"{OUT}/records/{{target}}/{{query}}/{PREFIX}_genome.tsv"),
        manifests=expand(f"{OUT}/genomes/{{genome}}.manifest.tsv", genome=list(GENOMES)),
    output:
        long=report(
            f"{OUT}/matrices/{PREFIX}_long.tsv",
            caption="../report/long.rst",
            category="Tables",
        ),
        matrices=expand(f"{OUT}/matrices/{PREFIX}_{{m}}.tsv", m=MATRIX_NAMES),
        phylip=f"{OUT}/matrices/{PREFIX}_distance.phylip",
    params:
        genomes=list(GENOMES),
    log:
        f"{OUT}/logs/matrices.log",
    benchmark:
        f"{OUT}/benchmarks/matrices.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/matrices.py"


rule screen_table:
    """Work units that the SeedHit pair screen skipped, with the reason (screen configured only)."""
    input:
        lambda wildcards: sorted(batch_dir(name) for name in batches()),
    params:
        screens=lambda wildcards: unit_screens(),
    output:
        report(
            f"{OUT}/matrices/{PREFIX}_screen_skipped.tsv",
            caption="../report/screen_skipped.rst",
            category="Tables",
        ),
    log:
        f"{OUT}/logs/screen_table.log",
    benchmark:
        f"{OUT}/benchmarks/screen_table.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/screen_table.py"
