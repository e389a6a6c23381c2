"""Snakemake adapter: the work units of a genome pair, with the reason of each chunk."""
import logging
import sys

from gpukernels import workunits

sys.stderr = open(snakemake.log[0], "w")
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")

t, q = snakemake.wildcards.target, snakemake.wildcards.query
t_names, t_lens, _ = workunits.read_manifest(snakemake.input.target)
q_names, q_lens, _ = workunits.read_manifest(snakemake.input.query)
t_chunks = workunits.plan_genome(t, t_names, t_lens, **snakemake.params.split)
q_chunks = workunits.plan_genome(q, q_names, q_lens, **snakemake.params.split)
settings = dict(snakemake.params.split, target_records=t_names, target_lengths=t_lens,
                query_records=q_names, query_lengths=q_lens)
doc = workunits.write_plan(snakemake.output[0], t, q, t_chunks, q_chunks, settings)
units = [u["unit"] for u in doc["units"]]
if units != list(snakemake.params.units):
    sys.exit(f"plan of {t} vs {q} differs from the one the DAG was built with "
             "(a FASTA file changed?); run snakemake again")
for c in t_chunks + q_chunks:
    logging.info("%s chunk %d: %s", c.genome, c.index, c.reason)
logging.info("%d work units", len(units))
