"""bench/gpu_timing.cuda_source: a kernel file's builds from another source, within a block (no GPU needed)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import gpukernels.cuda as kc  # noqa: E402
from gpu_timing import cuda_source  # noqa: E402


def test_the_variant_source_and_its_own_module_key_within_the_block(monkeypatch, tmp_path):
    variant = tmp_path / "gapped_variant.cu"
    variant.write_text("// a variant\n")
    calls = []

    def module(name, device_id, options):
        # as gpukernels.cuda._module: the source read through source_path at call time
        calls.append((name, options, kc.source_path(name)))
        return name
    monkeypatch.setattr(kc, "_module", module)
    landed = kc.source_path("gapped")
    with cuda_source("gapped", str(variant), 2):
        assert kc.source_path("gapped") == str(variant)
        assert kc.source_path("seeds").endswith("seeds.cu")
        kc._module("gapped", 0, ("-std=c++17",))
        kc._module("seeds", 0, ("-std=c++17",))
    assert calls == [("gapped", ("-std=c++17", "-DAVA_SOURCE=2"), str(variant)),
                     ("seeds", ("-std=c++17",), kc.source_path("seeds"))]
    # restored after the block, and a block of None changes nothing
    assert kc.source_path("gapped") == landed and kc._module is module
    with cuda_source("gapped", None, 3):
        assert kc.source_path("gapped") == landed and kc._module is module
