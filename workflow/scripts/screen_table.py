"""Snakemake adapter: the table of work units skipped by the SeedHit pair screen."""
import logging
import sys

from gpukernels import screen_records

sys.stderr = open(snakemake.log[0], "w")  # noqa: F821
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")

records = screen_records.read_unit_records(snakemake.params.screens)  # noqa: F821
skipped = screen_records.write_skipped_table(records, snakemake.output[0])  # noqa: F821
logging.info("pair screen: %d of %d work units skipped", skipped, len(records))
