# All-vs-all genome alignment on GPU or CPU: a table of contents.
#
#   snakemake -c 2                      run the default screen (config/config.yaml)
#   snakemake -c 8 --resources gpu=4    four GPU jobs at once, on four distinct GPUs
#   snakemake --report report.html      the HTML report
#
# See README.md ("The workflow") for the configuration, the outputs and their definitions.
from snakemake.utils import min_version

min_version("8.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


wildcard_constraints:
    genome=r"[^/]+",
    target=r"[^/]+",
    query=r"[^/]+",
    unit=r"t\d+-q\d+",
    batch=r"b\d+",


include: "workflow/rules/common.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/align.smk"
include: "workflow/rules/merge.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/plots.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
