#!/usr/bin/env python3
"""A/B of the GPU engine's settings on one genome pair, alternated in one process (GPU only).

Usage::

    python3 bench/ab_settings.py TARGET QUERY [--repeats N] [--rounds R] [SETTINGS ...]

Each ``SETTINGS`` is a comma-separated list of ``MODULE.NAME=VALUE`` for
module-level settings of ``gpukernels.gpu.gapped`` (``gapped.``),
``gpukernels.gpu.runner`` (``runner.``), ``gpukernels.cpu.relay``
(``relay.``), ``gpukernels.engine`` (``engine.``), ``gpukernels.gpu`` (``gpu.``) or ``gpukernels.gpu.stripes``
(``stripes.``), ``sys.switchinterval`` (the interpreter's), or ``align.threads`` (the host threads
:func:`gpukernels.engine.align` is given, ``--threads`` otherwise); ``VALUE`` is an int, a
float, ints joined by ``:`` for a tuple, or a string where the setting is one. An empty string is the defaults.
After one warm-up pair, the settings are run in turn ``--rounds`` times,
``--repeats`` pairs each, so that a drift of the machine's host spreads over
all of them (compare only within one call). Every pair is checked against
the warm-up's alignments. Prints one row per pair: the settings, the wall
time of :func:`gpukernels.engine.align`, and per strand the gapped stage's
time, walk, long sides, rounds, inspector and executor seconds; then per
settings the mean, median and extremes, and the median ratio of its pairs to
the first settings' pairs run next to them, with a bootstrap 95 % interval
(:mod:`ab_stats`: an interval that holds 1 is within the host's drift).

Example: ``python3 bench/ab_settings.py T.fa.gz Q.fa.gz "" "gapped.WAVE=2048"``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

MODULES = {"gapped": "gpukernels.gpu.gapped", "runner": "gpukernels.gpu.runner", "relay": "gpukernels.cpu.relay",
           "engine": "gpukernels.engine", "gpu": "gpukernels.gpu", "stripes": "gpukernels.gpu.stripes"}


class _Interpreter:
    """``sys.switchinterval``: the interpreter's thread switch interval (``sys.setswitchinterval``) as a setting."""

    @property
    def switchinterval(self):
        return sys.getswitchinterval()

    @switchinterval.setter
    def switchinterval(self, value):
        sys.setswitchinterval(value)


class _Align:
    """``align.threads``: the host threads of each timed pair, a setting like the modules' (None: ``--threads``)."""

    threads = None


_ALIGN = _Align()


def parse_settings(text):
    """``[(module, name, value)]`` from ``"MODULE.NAME=VALUE,..."``."""
    import importlib
    out = []
    for item in filter(None, text.split(",")):
        key, value = item.split("=")
        prefix, name = key.split(".")
        if prefix not in MODULES and prefix not in ("sys", "align"):
            raise SystemExit(f"unknown setting {key}: its prefix is one of {', '.join([*MODULES, 'sys', 'align'])}")
        module = (_Interpreter() if prefix == "sys" else _ALIGN if prefix == "align"
                  else importlib.import_module(MODULES[prefix]))
        if not hasattr(module, name):
            raise SystemExit(f"{MODULES.get(prefix, prefix)} has no setting {name}")
        if value in ("True", "False"):
            value = value == "True"
        elif ":" in value:
            value = tuple(int(v) for v in value.split(":"))
        elif isinstance(getattr(module, name), str):
            pass
        else:
            value = float(value) if "." in value or "e" in value else int(value)
        out.append((module, name, value))
    return out


def apply_settings(text):
    """Set each of ``"MODULE.NAME=VALUE,..."`` (:func:`parse_settings`) now, for the rest of the process."""
    for module, name, value in parse_settings(text):
        setattr(module, name, value)


def recorded(extend, module, query, strands):
    """``extend`` (a module's ``extend_anchors``) that puts each call's ``last_stats()`` into ``strands``.

    The strand is ``"+"`` when the call's query is ``query.codes`` (else the
    reverse complement, ``"-"``); ``total_s`` is the call's wall time.
    """
    def timed(*a, **k):
        c = time.perf_counter()
        out = extend(*a, **k)
        s = dict(module.last_stats())
        s["total_s"] = time.perf_counter() - c
        strands["+" if a[1] is query.codes else "-"] = s
        return out
    return timed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("query")
    p.add_argument("settings", nargs="*", default=[""])
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--show", default="", help="comma-separated counts of last_stats() to print per strand too")
    args = p.parse_intermixed_args(argv)

    import cupy as cp
    from gpukernels.engine import AlignOptions, align
    from gpukernels.genome import read_fasta
    from gpukernels.gpu import gapped as gg
    from ab_stats import summary_rows
    from gpu_timing import same_alignments

    t, q = read_fasta(args.target), read_fasta(args.query)
    ref = align(t, q, AlignOptions(), backend="gpu", threads=args.threads)
    strands = {}
    gg.extend_anchors = recorded(gg.extend_anchors, gg, q, strands)
    keys = ("total_s", "walk_s", "long_s", "round_s", "inspect_s", "execute_s")
    keys += tuple(filter(None, args.show.split(",")))

    def value(strand, key):
        v = strands.get(strand, {}).get(key, 0)
        if isinstance(v, dict):
            return "/".join(str(x) for x in v.values())
        return f"{v:.3f}" if isinstance(v, float) else str(v)
    print("| settings | per pair (s) | same | " + " | ".join(f"{s} {k.removesuffix('_s')}" for s in "+-" for k in keys)
          + " |")
    print("|---" * (3 + 2 * len(keys)) + "|")
    times = {text: [] for text in args.settings}
    for _ in range(args.rounds):
        for text in args.settings:
            changes = parse_settings(text)
            saved = [(m, n, getattr(m, n)) for m, n, _ in changes]
            for m, n, v in changes:
                setattr(m, n, v)
            try:
                for _ in range(args.repeats):
                    cp.cuda.Device().synchronize()
                    c = time.perf_counter()
                    alns = align(t, q, AlignOptions(), backend="gpu", threads=_ALIGN.threads or args.threads)
                    cp.cuda.Device().synchronize()
                    sec = time.perf_counter() - c
                    times[text].append(sec)
                    same = same_alignments(alns, ref)
                    cells = " | ".join(value(s, k) for s in "+-" for k in keys)
                    print(f"| {text or 'defaults'} | {sec:.3f} | {'yes' if same else 'NO'} | {cells} |")
            finally:
                for m, n, v in reversed(saved):
                    setattr(m, n, v)
    print()
    print("| settings | pairs | mean per pair (s) | median | min | max "
          "| against the first (median ratio, 95 % interval) |")
    print("|---|---|---|---|---|---|---|")
    for text, n, mean, median, low, high, against in summary_rows(times):
        print(f"| {text or 'defaults'} | {n} | {mean:.3f} | {median:.3f} | {low:.3f} | {high:.3f} | {against} |")


if __name__ == "__main__":
    main()
