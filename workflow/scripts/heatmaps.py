"""Snakemake adapter: heatmaps of identity and query coverage."""
import logging
import sys

from gpukernels.matrix import read_matrix, distance_matrix
from gpukernels.plots import heatmap

sys.stderr = open(snakemake.log[0], "w")
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")

names, _, ident = read_matrix(snakemake.input.identity)
_, _, cov = read_matrix(snakemake.input.query_cov)
order_by = distance_matrix(ident)  # both heatmaps in the order of identity clustering
heatmap(ident, names, snakemake.output.identity, "Identity (one-to-one alignments)",
        "identity", order_by=order_by)
heatmap(cov, names, snakemake.output.query_cov, "Coverage of the query genome",
        "query coverage", order_by=order_by, vmin=0.0)
