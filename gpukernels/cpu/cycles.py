"""The processor's cycle counter inside compiled code, for clocking the parts of a numba loop.

``time.perf_counter`` cannot be called from nopython code; the counter
(``rdtsc`` on x86-64) costs a few dozen cycles, so the host's sequential
walk can keep per-part sums on every anchor without changing its speed.
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic


@intrinsic
def cycles(typingctx):
    """The cycle counter now (``llvm.readcyclecounter``), as an int64."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        import llvmlite.ir as ir
        fn = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=ir.FunctionType(ir.IntType(64), []))
        return builder.call(fn, [])
    return sig, codegen
