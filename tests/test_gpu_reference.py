"""``tests/gpu_reference.py``: the CPU reference PAFs of the GPU parity tests, cached by content (CPU only)."""

import gzip

import gpu_reference as ref
from conftest import DATA


def test_a_reference_is_computed_once_and_only_its_compressed_paf_stays(tmp_path, monkeypatch):
    """The cache is carried to the device: no uncompressed PAF or scratch file may be left in it."""
    cache = tmp_path / "cache"
    monkeypatch.setattr(ref, "CACHE", cache)
    t, q = DATA / "hpylori_g27_40k.fa.gz", DATA / "hpylori_sjm180_40k.fa.gz"
    first = ref.cpu_paf(t, q)
    assert first.count(b"\n") > 3
    key = ref.cache_key(t, q, ())
    assert [p.name for p in cache.iterdir()] == [f"{key}.paf.gz"]
    with gzip.open(cache / f"{key}.paf.gz", "rb") as fh:
        assert fh.read() == first
    monkeypatch.setattr(ref, "run_ava", None)       # a second call must not run ava
    assert ref.cpu_paf(t, q) == first
