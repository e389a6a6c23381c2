"""bench/sass_pipes.py: a SASS listing's opcodes, cut into steps and counted by pipe (no GPU or nvcc needed)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import sass_pipes  # noqa: E402

LISTING = """
        /*3d00*/                   VIADDMNMX.S16x2 R31, R30, R2, R75, !PT ;   /* 0x000000021e1f7246 */
        /*3d10*/                   IMAD.MOV.U32 R89, RZ, RZ, R30 ;             /* 0x000000ffff597224 */
        /*3d20*/                   VIMNMX3.S16x2 R84, R32, R29, R89, !PT ;     /* 0x0000001d2054720f */
        /*3d30*/                   LEA R34, R4, 0x84, 0x1 ;                    /* 0x0000008404227811 */
        /*3d40*/               @P1 BRA 0x3ef0 ;                                /* 0x00000000005c1947 */
        /*3d50*/              @!P0 LDS R51, [R34] ;                            /* 0x0000000022337984 */
        /*3d60*/                   VIADD R29, R28, 0x40 ;                      /* 0x000000401c1d7836 */
        /*3d70*/                   VIMNMX3.S16x2 R90, R30, R86, R87, !PT ;     /* 0x000000431e597246 */
        /*3d80*/                   IMAD.IADD R31, R30, 0x1, R31 ;              /* 0x000000011e1f7824 */
"""


def test_opcodes_drop_predicates_and_keep_modifiers():
    ops = sass_pipes.opcodes(LISTING)
    assert ops[:3] == ["VIADDMNMX.S16x2", "IMAD.MOV.U32", "VIMNMX3.S16x2"]
    assert ops[4:6] == ["BRA", "LDS"]
    assert len(ops) == 9


def test_each_opcode_goes_to_its_pipe():
    assert sass_pipes.pipe_of("IMAD.IADD") == "fma"
    assert sass_pipes.pipe_of("LEA.HI.X.SX32") == "integer"
    assert sass_pipes.pipe_of("VIMNMX3.S16x2") == "integer"
    assert sass_pipes.pipe_of("LDG.E.U8.CONSTANT") == "memory"
    assert sass_pipes.pipe_of("BSSY") == "control"
    assert sass_pipes.pipe_of("VIADD") == "viadd"
    assert sass_pipes.pipe_of("S2R") == "other"


def test_a_step_runs_from_one_marker_to_the_next():
    steps = sass_pipes.segments(sass_pipes.opcodes(LISTING), "VIMNMX3")
    assert steps == [["LEA", "BRA", "LDS", "VIADD", "VIMNMX3.S16x2"]]
    c = sass_pipes.count(steps[0])
    assert (c["all"], c["integer"], c["control"], c["memory"], c["viadd"], c["fma"]) == (5, 2, 1, 1, 1, 0)


PTXAS_LOG = """
ptxas info    : Compiling entry function 'exec16' for 'sm_90'
ptxas info    : Function properties for exec16
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 110 registers, used 1 barriers
ptxas info    : Compile time = 65.556 ms
ptxas info    : Compiling entry function 'ydrop16' for 'sm_90'
ptxas info    : Function properties for ydrop16
    24 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 128 registers, used 1 barriers
"""


def test_registers_and_spills_of_each_kernel_from_the_ptxas_log():
    assert sass_pipes.register_usage(PTXAS_LOG) == {"exec16": (110, 0, 0), "ydrop16": (128, 16, 8)}
    assert sass_pipes.register_usage("") == {}
