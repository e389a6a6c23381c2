"""Snakemake adapter: dotplot of one genome pair."""
import logging
import sys

from gpukernels.merge import read_paf
from gpukernels.plots import dotplot
from gpukernels.workunits import read_manifest

sys.stderr = open(snakemake.log[0], "w")
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")

t_names, t_lens, _ = read_manifest(snakemake.input.target)
q_names, q_lens, _ = read_manifest(snakemake.input.query)
paf = read_paf(snakemake.input.paf)
dotplot(paf, t_names, t_lens, q_names, q_lens, snakemake.output[0],
        f"{snakemake.wildcards.query} (y) vs {snakemake.wildcards.target} (x)")
