# Heatmaps of the screen and a dotplot per pair.


rule heatmaps:
    """Clustered, labelled heatmaps of identity and query coverage."""
    input:
        identity=f"{OUT}/matrices/{PREFIX}_identity.tsv",
        query_cov=f"{OUT}/matrices/{PREFIX}_query_cov.tsv",
    output:
        identity=report(
            f"{OUT}/plots/{PREFIX}_identity_heatmap.png",
            caption="../report/heatmap_identity.rst",
            category="Heatmaps",
        ),
        query_cov=report(
            f"{OUT}/plots/{PREFIX}_query_cov_heatmap.png",
            caption="../report/heatmap_coverage.rst",
            category="Heatmaps",
        ),
    log:
        f"{OUT}/logs/heatmaps.log",
    benchmark:
        f"{OUT}/benchmarks/heatmaps.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/heatmaps.py"


rule dotplot:
    """Dotplot of a pair: target on x, query on y, coloured by identity."""
    input:
        paf=f"{OUT}/alignments/{{target}}/{{query}}.paf.gz",
        target=f"{OUT}/genomes/{{target}}.manifest.tsv",
        query=f"{OUT}/genomes/{{query}}.manifest.tsv",
    output:
        report(
            f"{OUT}/plots/dotplots/{{target}}/{{query}}.png",
            caption="../report/dotplot.rst",
            category="Dotplots",
            labels={"target": "{target}", "query": "{query}"},
        ),
    log:
        f"{OUT}/logs/dotplot/{{target}}/{{query}}.log",
    benchmark:
        f"{OUT}/benchmarks/dotplot/{{target}}/{{query}}.tsv"
    conda:
        "../envs/gpukernels.yaml"
    script:
        "../scripts/dotplot.py"
