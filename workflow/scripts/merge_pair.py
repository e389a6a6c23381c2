"""Snakemake adapter: merge the unit PAFs of a genome pair into one gzipped PAF."""
import json
import logging
import os
import sys

from gpukernels import workunits
from gpukernels.genome import load_genome
from gpukernels.merge import Sequences, merge_pair

sys.stderr = open(snakemake.log[0], "w")
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")

plan = workunits.read_plan(snakemake.input.plan)
paths = {os.path.basename(p).split(".")[0]: p for p in snakemake.params.pafs}
t_names, t_lens, _ = workunits.read_manifest(snakemake.input.target)
q_names, q_lens, _ = workunits.read_manifest(snakemake.input.query)
stats = merge_pair(plan, paths, snakemake.output.paf, (t_names, t_lens), (q_names, q_lens),
                   self_pair=snakemake.wildcards.target == snakemake.wildcards.query,
                   sequences=Sequences(load_genome(snakemake.input.target_npz),
                                       load_genome(snakemake.input.query_npz),
                                       workunits.engine_options(snakemake.params.engine).scoring))
with open(snakemake.output.stats, "w") as fh:
    json.dump(stats, fh, indent=1)
logging.info("merge: %s", stats)
