#!/usr/bin/env python3
"""The SASS of one kernel cut into steps, each step's instructions counted by the pipe that runs them.

Usage::

    python3 bench/sass_pipes.py [--cu gpukernels/cuda/gapped.cu] [--kernel ydrop16] [--marker VIMNMX3]
        [--cuobjdump PATH] [--arch sm_90]

Compiles the ``.cu`` file with ``nvcc -cubin`` for ``--arch``, disassembles
``--kernel`` with ``cuobjdump -sass`` (any copy works, such as the one in
Triton's wheel), and cuts the instructions at each ``--marker`` opcode: for
``ydrop16`` a cut falls at each pair's last DP instruction. Since the
thirty-eighth session a loop turn computes two pairs before writing either,
and ptxas interleaves them: two markers fall together, and the segment after
them holds a turn's instructions (the lone last step apart). One row per
segment: all its instructions, then those of the integer pipe (LEA, LOP3,
ISETP, SEL, PRMT, IADD3, the DPX min and max...), the FMA pipe (IMAD and its
forms), memory (LDS, STS, LDG, SHFL...), control (branches), and VIADD (its
pipe is not documented). On Hopper each integer or FMA warp instruction takes
its pipe two cycles. Moving the inspector's addresses from LEAs to IMADs made
it 4 % faster (``bench/RESULTS.md``, thirty-seventh session), but fewer
integer-pipe instructions did not pay again in the thirty-eighth, nor a fifth
fewer instructions in the fifty-third (1 %): read the counts beside a timing,
not as one. First it prints each kernel's registers and spills as ptxas
reports them (``-Xptxas -v``; the runtime's NVRTC build may differ by a few):
a warp kernel's registers set the warps a multiprocessor holds (65,536
registers), and the inspector's pace follows its warps' chains, so a build
that adds registers can cost more than its instructions. Runs on any machine
with nvcc.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

#: opcodes (before the first dot) by the pipe that issues them
PIPES = {
    "integer": {"IADD3", "LEA", "LOP3", "ISETP", "SEL", "SHF", "PRMT", "VIADDMNMX", "VIMNMX", "VIMNMX3",
                "IMNMX", "IABS", "FLO", "POPC", "PLOP3", "BMSK", "SGXT", "LOP", "ICMP", "P2R", "R2P"},
    "fma": {"IMAD", "IMUL", "FFMA", "FMUL", "FADD", "HFMA2", "HADD2", "HMUL2"},
    "memory": {"LDS", "STS", "LDG", "STG", "LD", "ST", "SHFL", "ATOMS", "ATOMG", "ATOM", "RED", "REDUX",
               "LDC", "ULDC"},
    "control": {"BRA", "BSSY", "BSYNC", "EXIT", "WARPSYNC", "BAR", "CALL", "RET", "NOP", "YIELD", "BREAK"},
    "viadd": {"VIADD"},
}
_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_USED = re.compile(r"Used (\d+) registers")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_LINE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Za-z0-9_.]+)")


def opcodes(sass):
    """The opcodes of a ``cuobjdump -sass`` listing, in order (predicates dropped, modifiers kept)."""
    return [m.group(1) for m in map(_LINE.search, sass.splitlines()) if m]


def pipe_of(opcode):
    """The pipe of an opcode (``IMAD.IADD`` -> ``fma``), ``other`` where none of :data:`PIPES` holds it."""
    base = opcode.split(".")[0]
    for pipe, names in PIPES.items():
        if base in names:
            return pipe
    return "other"


def segments(ops, marker):
    """The opcodes after each ``marker`` up to and including the next one: a step each, in order."""
    at = [i for i, op in enumerate(ops) if op.split(".")[0] == marker]
    return [ops[a + 1:b + 1] for a, b in zip(at, at[1:])]


def count(segment):
    """Instructions of a segment by pipe, with ``all`` the total."""
    c = collections.Counter(pipe_of(op) for op in segment)
    c["all"] = len(segment)
    return c


def register_usage(ptxas_log):
    """Each entry function's ``(registers, spill store bytes, spill load bytes)`` from ``ptxas -v``'s log, in order."""
    usage, kernel, spills = {}, None, (0, 0)
    for line in ptxas_log.splitlines():
        entry = _ENTRY.search(line)
        if entry:
            kernel, spills = entry.group(1), (0, 0)
            continue
        spill = _SPILLS.search(line)
        if spill and kernel:
            spills = (int(spill.group(1)), int(spill.group(2)))
        used = _USED.search(line)
        if used and kernel:
            usage[kernel] = (int(used.group(1)),) + spills
            kernel = None
    return usage


def compile_cubin(cu, arch, cubin):
    """nvcc ``cu`` for ``arch`` into ``cubin``; returns :func:`register_usage` of its kernels."""
    out = subprocess.run(["nvcc", f"-arch={arch}", "-std=c++17", "-cubin", "-Xptxas", "-v", "-o", cubin, cu],
                         check=True, capture_output=True, text=True)
    return register_usage(out.stdout + out.stderr)


def disassemble(cubin, kernel, cuobjdump):
    """``cuobjdump -sass`` of ``kernel`` from ``cubin``."""
    return subprocess.run([cuobjdump, "-sass", "-fun", kernel, cubin], check=True, capture_output=True,
                          text=True).stdout


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cu", default=os.path.join(os.path.dirname(HERE), "gpukernels", "cuda", "gapped.cu"))
    p.add_argument("--kernel", default="ydrop16")
    p.add_argument("--marker", default="VIMNMX3", help="opcode that ends a step")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--cuobjdump", default=shutil.which("cuobjdump") or "cuobjdump")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        try:
            usage = compile_cubin(args.cu, args.arch, cubin)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"sass_pipes: could not compile {args.cu} ({e})")
        print("registers (spill stores / loads, bytes): " +
              ", ".join(f"{k} {r} ({st} / {ld})" for k, (r, st, ld) in usage.items()))
        try:
            sass = disassemble(cubin, args.kernel, args.cuobjdump)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"sass_pipes: could not disassemble {args.cu} ({e}); give --cuobjdump")
    ops = opcodes(sass)
    steps = segments(ops, args.marker)
    if not steps:
        sys.exit(f"sass_pipes: no two {args.marker} in {args.kernel} ({len(ops)} instructions)")
    cols = ("all", "integer", "fma", "memory", "control", "viadd", "other")
    print(f"{args.kernel}: {len(ops)} instructions, {len(steps)} segments between {args.marker}")
    print("| segment | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for i, seg in enumerate(steps):
        c = count(seg)
        print(f"| {i} | " + " | ".join(str(c[k]) for k in cols) + " |")


if __name__ == "__main__":
    main()
