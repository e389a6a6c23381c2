"""Parity with the system LASTZ on the bundled real slices (skipped without lastz)."""

import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


@pytest.mark.skipif(shutil.which("lastz") is None, reason="lastz is not installed")
def test_bundled_pair_matches_lastz(tmp_path):
    from parity import compare, run_pair
    data = ROOT / "tests" / "data"
    _, _, ref, ours = run_pair(str(data / "hpylori_g27_40k.fa.gz"), str(data / "hpylori_sjm180_40k.fa.gz"),
                               str(tmp_path))
    sens, extra = compare(ref, ours)
    assert len(ref) > 0
    assert sens >= 0.99 and extra <= 0.02
