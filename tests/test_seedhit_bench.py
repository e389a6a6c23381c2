"""bench/screen_false_rejects.py on two H. pylori genomes and a random control (needs ../shared/data)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.shared
@pytest.mark.slow
def test_false_reject_bench_small(shared_data):
    if not (shared_data / "bacteria" / "H.Pylori_G27.fa.gz").exists():
        pytest.skip("H. pylori genomes absent from ../shared/data/bacteria")
    res = subprocess.run([sys.executable, str(ROOT / "bench" / "screen_false_rejects.py"), "--genomes",
                          "H.Pylori_G27", "H.Pylori_SJM180", "--no-extra"],
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, AVA_SHARED_DATA=str(shared_data)))
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout
    assert "| H.Pylori_G27 | H.Pylori_SJM180 | within | PASS |" in out
    assert "| H.Pylori_SJM180 | H.Pylori_G27 | within | PASS |" in out
    # the random control is skipped in both orders; its alignments cover nothing
    assert "| H.Pylori_G27 | random(H.Pylori_G27) | control | SKIP | " in out
    assert "| random(H.Pylori_G27) | H.Pylori_G27 | control | SKIP | " in out
    assert "| H.Pylori_G27 x random(H.Pylori_G27) | control |" in out
    assert "cannot be false rejects" in out
    assert out.rstrip().endswith("skipped_pairs=1 false_rejects=0")
