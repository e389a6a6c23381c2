"""bench/wave_kernel.variant_rows: builds of the inspector from other sources timed in turn (no GPU needed)."""

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import gpukernels.cuda as kc  # noqa: E402
import wave_kernel  # noqa: E402


class HostArray:
    """Stands in for a CuPy array: ``copy`` and ``get``."""

    def __init__(self, a):
        self.a = a

    def copy(self):
        return HostArray(self.a.copy())

    def get(self):
        return self.a.copy()


def test_each_build_in_turn_with_its_shape_and_its_results_checked(tmp_path, capsys):
    variant = tmp_path / "v.cu"
    variant.write_text("// v\n")
    order = []

    class Runner:
        _kernels = {}

        def _kernel(self, band, wide, name16):
            regs = 96 if kc.source_path("gapped") == str(variant) else 120
            return SimpleNamespace(num_regs=regs), 1, 32, 7424, 2000

    def timed_inspection(out):
        source = kc.source_path("gapped")
        order.append("v" if source == str(variant) else "landed")
        out.a[:] = 1
        if source == str(variant):
            out.a[3, 0] = 2          # one side differs
        return 10.0 + len(order)

    wave_kernel.variant_rows(Runner(), timed_inspection, HostArray(np.zeros((8, 13), dtype=np.int64)), 512,
                             [None, str(variant)], 2)
    assert order == ["landed", "v", "landed", "v"]
    assert kc.source_path("gapped").endswith("gapped.cu") and kc.source_path("gapped") != str(variant)
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "| landed | 120 | 1 warps a block, 2000 blocks to fill the device | 11.00, 13.00 | 12.00 | yes |"
    assert out[3] == f"| {variant} | 96 | 1 warps a block, 2000 blocks to fill the device | 12.00, 14.00 | 13.00 | NO |"
