# Merge a pair's work units into one PAF, then measure the pair.


rule merge:
    """Merge the unit PAFs of a pair; alignments across a split are kept once."""
    input:
        batches=pair_batches,
        plan=f"{OUT}/plans/{{target}}/{{query}}.json",
        target=f"{OUT}/genomes/{{target}}.manifest.tsv",
        query=f"{OUT}/genomes/{{query}}.manifest.tsv",
        target_npz=f"{OUT}/genomes/{{target}}.npz",
        query_npz=f"{OUT}/genomes/{{query}}.npz",
    output:
        paf=f"{OUT}/alignments/{{target}}/{{query}}.paf.gz",
        stats=f"{OUT}/alignments/{{target}}/{{query}}.merge.json",
    params:
        pafs=unit_pafs,
        engine=config["engine"],
    log:
        f"{OUT}/logs/merge/{{target}}/{{query}}.log",
    benchmark:
        f"{OUT}/benchmarks/merge/{{target}}/{{query}}.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/merge_pair.py"


rule pair_stats:
    """Identity and coverage of a pair, for the genomes and for each record pair."""
    input:
        paf=f"{OUT}/alignments/{{target}}/{{query}}.paf.gz",
        target=f"{OUT}/genomes/{{target}}.npz",
        query=f"{OUT}/genomes/{{query}}.npz",
    output:
        genome=f"{OUT}/records/{{target}}/{{query}}/{PREFIX}_genome.tsv",
        records=report(
            f"{OUT}/records/{{target}}/{{query}}/{PREFIX}_records.tsv",
            caption="../report/records.rst",
            category="Record level",
            subcategory="{target} vs {query}",
        ),
        matrices=expand(
            f"{OUT}/records/{{{{target}}}}/{{{{query}}}}/{PREFIX}_{{m}}.tsv",
            m=RECORD_MATRIX_NAMES,
        ),
    log:
        f"{OUT}/logs/pair_stats/{{target}}/{{query}}.log",
    benchmark:
        f"{OUT}/benchmarks/pair_stats/{{target}}/{{query}}.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/pair_stats.py"
