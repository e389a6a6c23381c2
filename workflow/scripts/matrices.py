"""Snakemake adapter: long table, square matrices and PHYLIP distances of the screen."""
import logging
import sys

from gpukernels import matrix
from gpukernels.workunits import read_manifest

sys.stderr = open(snakemake.log[0], "w")
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")

genomes = list(snakemake.params.genomes)
rows = [r for path in snakemake.input.rows for r in matrix.read_long_table(path)]
lengths = {g: sum(read_manifest(p)[2]) for g, p in zip(genomes, snakemake.input.manifests)}
matrix.write_long_table(rows, snakemake.output.long)
mats = matrix.square_matrices(rows, genomes, lengths)
for name, path in zip(matrix.MATRICES, snakemake.output.matrices):
    matrix.write_matrix(path, genomes, genomes, mats[name])
matrix.write_phylip(snakemake.output.phylip, genomes, matrix.distance_matrix(mats["identity"]))
logging.info("%d genomes, %d rows", len(genomes), len(rows))
