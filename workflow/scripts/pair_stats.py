"""Snakemake adapter: identity and coverage of one pair, genome and record level."""
import logging
import sys

from gpukernels import matrix
from gpukernels.genome import load_genome
from gpukernels.merge import read_paf

sys.stderr = open(snakemake.log[0], "w")
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")

t, q = snakemake.wildcards.target, snakemake.wildcards.query
tg, qg = load_genome(snakemake.input.target), load_genome(snakemake.input.query)
paf = read_paf(snakemake.input.paf)
genome_rows, record_rows = matrix.pair_tables(paf, t, q, tg, qg)
matrix.write_long_table(genome_rows, snakemake.output.genome)
matrix.write_long_table(record_rows, snakemake.output.records)
mats = matrix.record_matrices(record_rows, qg.names, tg.names)
for name, path in zip(matrix.RECORD_MATRICES, snakemake.output.matrices):
    matrix.write_matrix(path, qg.names, tg.names, mats[name])
logging.info("%s vs %s: %d alignments, %d record pairs", t, q, len(paf), len(record_rows))
