"""Snakemake adapter: encode a genome once and write its manifest."""
import logging
import sys

from gpukernels.genome import read_fasta
from gpukernels.workunits import write_manifest

sys.stderr = open(snakemake.log[0], "w")
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")

genome = read_fasta(snakemake.input.fasta, name=snakemake.wildcards.genome)
genome.save(snakemake.output.npz)
write_manifest(genome, snakemake.output.manifest)
logging.info("%s: %d records, %d bp", genome.name, genome.n_records, int(genome.sizes.sum()))
