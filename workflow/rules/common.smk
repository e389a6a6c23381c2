# Configuration, sample sheet and the plan of work units, read when the DAG is built.
import csv
import os

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from gpukernels import workunits
from gpukernels.matrix import MATRICES, RECORD_MATRICES
from gpukernels.errors import InputError


validate(config, "../schemas/config.schema.yaml")


def read_sample_sheet(path):
    """Rows of the sample sheet, validated, as a dict name -> fasta path."""
    if not os.path.exists(path):
        raise WorkflowError(f"sample sheet {path} does not exist (config key 'genomes')")
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader((line for line in fh if line.strip() and not line.startswith("#")),
                                   delimiter="\t"))
    if not rows:
        raise WorkflowError(f"sample sheet {path} lists no genomes")
    sheet = {}
    for k, row in enumerate(rows, start=2):
        row = {key: (val or "").strip() for key, val in row.items() if key}
        try:
            validate(row, "../schemas/genomes.schema.yaml")
        except WorkflowError as exc:
            raise WorkflowError(f"sample sheet {path}, line {k}: {exc}") from None
        if row["name"] in sheet:
            raise WorkflowError(f"sample sheet {path}, line {k}: genome name {row['name']!r} repeated")
        if not os.path.exists(row["fasta"]):
            raise WorkflowError(f"sample sheet {path}, line {k}: FASTA file {row['fasta']} does not exist")
        sheet[row["name"]] = row["fasta"]
    return sheet


GENOMES = read_sample_sheet(config["genomes"])
OUT = config["outdir"].rstrip("/")
PREFIX = config["prefix"]
SPLIT = {"split_size": config["split"]["size"], "overlap": config["split"]["overlap"],
         "unit_size": config["unit_size"]}
try:
    workunits.check_split(**SPLIT)
except InputError as exc:
    raise WorkflowError(f"config: {exc}") from None
try:
    PAIRS = workunits.genome_pairs(list(GENOMES), config["pairs"], config["self"])
except InputError as exc:
    raise WorkflowError(f"config: {exc}") from None
if not PAIRS:
    raise WorkflowError("config: no genome pairs to align (give two genomes, or set self: true)")


def _chunks(genome):
    if genome not in _CHUNKS:
        try:
            names, lengths = workunits.fasta_lengths(GENOMES[genome])
        except InputError as exc:
            raise WorkflowError(f"genome {genome}: {exc}") from None
        _CHUNKS[genome] = workunits.plan_genome(genome, names, lengths, **SPLIT)
    return _CHUNKS[genome]


_CHUNKS = {}


def units_of(target, query):
    """Work-unit names of one genome pair."""
    return [u["unit"] for u in workunits.plan_pair(_chunks(target), _chunks(query))]


def units_per_job(n_units):
    """Work units per alignment job: ``units_per_job``, or where it is null the default of
    :func:`gpukernels.workunits.default_units_per_job` for ``n_units`` units (up to 8 on the GPU
    backend, fewer where the GPU's ``jobs_per_gpu`` slots would otherwise go without a batch; 1 on
    the others). It depends on the config and the units alone, not on the host: a DAG built where
    no GPU is visible must cut the same batches, or Snakemake would see the merges' inputs changed
    and align everything again."""
    per_job = config.get("units_per_job")
    if per_job is None:
        per_job = workunits.default_units_per_job(n_units, config["backend"], config["jobs_per_gpu"])
    return int(per_job)


def batches():
    """Batch name -> the work units ``(target, query, unit)`` one alignment job runs, in order."""
    if not _BATCHES:
        units = [(t, q, u) for t, q in PAIRS for u in units_of(t, q)]
        for k, batch in enumerate(workunits.align_batches(units, units_per_job(len(units)))):
            name = f"b{k:05d}"
            _BATCHES[name] = batch
            _BATCH_OF.update((unit, name) for unit in batch)
    return _BATCHES


_BATCHES = {}
_BATCH_OF = {}


def batch_dir(name):
    """The folder of a batch's outputs (the alignment job's output)."""
    return f"{OUT}/units/{name}"


def batch_of(target, query, unit):
    """The name of the batch that holds a work unit."""
    batches()
    return _BATCH_OF[(target, query, unit)]


def unit_file(target, query, unit, suffix):
    """A work unit's output (``suffix`` ``.paf.gz`` or ``.screen.json``) inside its batch's folder."""
    return f"{batch_dir(batch_of(target, query, unit))}/{target}/{query}/{unit}{suffix}"


def batch_units(wildcards):
    """What the alignment job of a batch needs per unit: names, inputs and outputs (JSON-ready)."""
    return [{"target": t, "query": q, "unit": u, "plan": f"{OUT}/plans/{t}/{q}.json",
             "target_npz": f"{OUT}/genomes/{t}.npz", "query_npz": f"{OUT}/genomes/{q}.npz",
             "paf": unit_file(t, q, u, ".paf.gz"), "screen": unit_file(t, q, u, ".screen.json")}
            for t, q, u in batches()[wildcards.batch]]


def batch_inputs(wildcards):
    """The encoded genomes and pair plans of a batch's units."""
    units = batch_units(wildcards)
    return sorted({path for u in units for path in (u["plan"], u["target_npz"], u["query_npz"])})


def pair_batches(wildcards):
    """The folders of the batches that hold a pair's units (the merge's inputs)."""
    return sorted({batch_dir(batch_of(wildcards.target, wildcards.query, u))
                   for u in units_of(wildcards.target, wildcards.query)})


def unit_pafs(wildcards):
    """The unit PAF files of a pair, inside their batches' folders."""
    return [unit_file(wildcards.target, wildcards.query, u, ".paf.gz")
            for u in units_of(wildcards.target, wildcards.query)]


def unit_screens():
    """The pair-screen record (JSON) of every work unit of every pair."""
    return [unit_file(t, q, u, ".screen.json") for t, q in PAIRS for u in units_of(t, q)]


def screen_on():
    """Whether the SeedHit pair screen is configured (``engine.screen_min_identity``)."""
    return config["engine"].get("screen_min_identity") is not None


def pair_paths(pattern):
    """``pattern`` with {target} and {query} filled for every pair."""
    return [pattern.format(target=t, query=q) for t, q in PAIRS]


def _global_resource(name):
    """The value of a resource given to Snakemake (``--cores``: ``_cores``; ``--resources``), or None."""
    try:
        value = workflow.global_resources.get(name)
    except (AttributeError, KeyError, TypeError):
        return None
    value = getattr(value, "value", value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def align_threads():
    """CPU threads of an alignment job: ``threads``, or where it is null, on the GPU backend the
    cores Snakemake was given shared among the jobs that hold a GPU at once
    (:func:`gpukernels.workunits.gpu_job_threads`), and 1 on the others (CPU jobs run side by side).
    Threads never change the output (so they may depend on the host), and Snakemake caps them at
    ``--cores``."""
    threads = config.get("threads")
    if threads is not None:
        return int(threads)
    if config["backend"] != "gpu":
        return 1
    return workunits.gpu_job_threads(_global_resource("_cores"), _global_resource("gpu"))


def gpu_per_job():
    """The ``gpu`` resource of an alignment job: none on the CPU backend."""
    return 0 if config["backend"] == "cpu" else 1


MATRIX_NAMES = list(MATRICES)
RECORD_MATRIX_NAMES = list(RECORD_MATRICES)


def all_outputs():
    """Every final output of the workflow."""
    out = expand(f"{OUT}/matrices/{PREFIX}_{{m}}.tsv", m=MATRIX_NAMES + ["long"])
    out += [f"{OUT}/matrices/{PREFIX}_distance.phylip"]
    if screen_on():
        out += [f"{OUT}/matrices/{PREFIX}_screen_skipped.tsv"]
    out += pair_paths(f"{OUT}/records/{{target}}/{{query}}/{PREFIX}_records.tsv")
    if config["plots"]:
        out += expand(f"{OUT}/plots/{PREFIX}_{{m}}_heatmap.png", m=["identity", "query_cov"])
        out += pair_paths(f"{OUT}/plots/dotplots/{{target}}/{{query}}.png")
    return out
