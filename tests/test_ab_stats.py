"""bench/ab_stats.py: the paired summary that bench/ab_settings.py prints."""

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
import ab_stats  # noqa: E402


def test_paired_ratios_follow_the_drift_that_means_hide():
    # the host slows down by half over the run; B is 5 % faster than A at every moment
    drift = np.linspace(1.0, 1.5, 8)
    a, b = list(0.5 * drift), list(0.475 * drift)
    assert np.allclose(ab_stats.paired_ratios(a, b), 0.95)
    med, lo, hi = ab_stats.median_interval(ab_stats.paired_ratios(a, b))
    assert med == pytest.approx(0.95) and lo == pytest.approx(0.95) and hi == pytest.approx(0.95)
    assert len(ab_stats.paired_ratios(a, b[:5])) == 5


def test_interval_holds_one_for_noise_and_is_reproducible():
    rng = np.random.default_rng(3)
    ratios = 1.0 + rng.normal(0.0, 0.03, 12)
    first = ab_stats.median_interval(ratios)
    assert first == ab_stats.median_interval(ratios)        # a fixed seed: the same text each run
    med, lo, hi = first
    assert lo <= med <= hi and lo < 1.0 < hi
    assert ab_stats.median_interval([1.2]) == (1.2, 1.2, 1.2)
    assert all(np.isnan(ab_stats.median_interval([])))


def test_summary_rows_against_the_first():
    rows = ab_stats.summary_rows({"": [0.50, 0.52, 0.60], "x=1": [0.40, 0.416, 0.48]})
    assert [r[0] for r in rows] == ["", "x=1"]
    name, n, mean, median, low, high, against = rows[1]
    assert n == 3 and median == pytest.approx(0.416) and low == pytest.approx(0.40) and high == pytest.approx(0.48)
    assert against == "0.800 [0.800, 0.800]" and rows[0][6] == "1.000"


def test_prev_summary_pairs_the_trees_round_by_round():
    log = [".carry/prev | defaults | 3 | 0.500 | 0.49 | 0.51 |",
           ".           | defaults | 3 | 0.450 | 0.44 | 0.46 | 1.000 |",
           ".carry/prev | defaults | 3 | 0.600 | 0.59 | 0.61 |",
           ".           | defaults | 3 | 0.540 | 0.53 | 0.55 | 1.000 |",
           "something else"]
    assert ab_stats.prev_summary(log) == "this tree / the session's start: 0.900 [0.900, 0.900] over 2 rounds"
    assert ab_stats.prev_summary(log[:1]) is None


def test_bench_shell_scripts_parse():
    """The device's scripts fail on the device only, at a cost of its time: bash -n checks them here."""
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[1]
    for script in sorted((root / "bench").glob("*.sh")):
        res = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert res.returncode == 0, (script.name, res.stderr)
