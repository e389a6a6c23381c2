"""Paired comparison of alternated timings (``bench/ab_settings.py``): each setting against the first.

The settings of an A/B run take turns, so the i-th pair of one setting ran
next to the i-th of each other: a drift of the host's speed (the lent
machines' hosts drift by 10 % and more within a call) moves both. The ratio of
such neighbours, not of the means, tells a setting's effect; its median with
a bootstrap interval tells whether a few percent are more than the noise.
"""

from __future__ import annotations

import numpy as np


def paired_ratios(base, other):
    """Ratios ``other[i] / base[i]`` of the timings run next to each other (the shorter list's length)."""
    n = min(len(base), len(other))
    return np.asarray(other[:n], dtype=float) / np.asarray(base[:n], dtype=float)


def median_interval(values, level=0.95, draws=2000, seed=0):
    """The median of ``values`` and a bootstrap interval of it at ``level`` (a fixed seed: the same text each run).

    Returns ``(median, low, high)``; with one value, the interval is that value.
    """
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return float("nan"), float("nan"), float("nan")
    med = float(np.median(values))
    if values.size == 1:
        return med, med, med
    rng = np.random.default_rng(seed)
    meds = np.median(rng.choice(values, size=(draws, values.size), replace=True), axis=1)
    tail = (1.0 - level) / 2.0
    return med, float(np.quantile(meds, tail)), float(np.quantile(meds, 1.0 - tail))


def summary_rows(times):
    """Rows ``(name, pairs, mean, median, min, max, against the first)`` for ``{name: [seconds, ...]}`` in order.

    The last column reads ``1.000`` for the first setting, and for the others
    the median ratio to it with its 95 % interval, e.g. ``0.982 [0.961, 1.004]``:
    an interval that holds 1 is within the noise.
    """
    names = list(times)
    rows = []
    for name in names:
        secs = np.asarray(times[name], dtype=float)
        if name == names[0]:
            against = "1.000"
        else:
            med, lo, hi = median_interval(paired_ratios(times[names[0]], times[name]))
            against = f"{med:.3f} [{lo:.3f}, {hi:.3f}]"
        rows.append((name, len(secs), float(secs.mean()), float(np.median(secs)), float(secs.min()),
                     float(secs.max()), against))
    return rows


def prev_summary(lines):
    """The line ``bench/device.sh``'s part ``prev`` ends with, from its log lines, or None.

    Each log line is a tree (``.carry/prev``, the session's start, or ``.``,
    this tree) and the last row of one ``ab_settings.py`` process
    (``| settings | pairs | mean | ...``); the trees alternate, so the i-th
    process of each ran next to the other's: the ratio of their means, over
    the rounds.
    """
    means = {}
    for line in lines:
        cols = [c.strip() for c in line.split("|")]
        if len(cols) > 4 and cols[2].isdigit():
            means.setdefault(cols[0], []).append(float(cols[3]))
    if ".carry/prev" not in means or "." not in means:
        return None
    med, lo, hi = median_interval(paired_ratios(means[".carry/prev"], means["."]))
    return f"this tree / the session's start: {med:.3f} [{lo:.3f}, {hi:.3f}] over {len(means['.'])} rounds"


if __name__ == "__main__":
    import sys

    with open(sys.argv[1]) as fh:
        print(prev_summary(fh) or "no rounds of both trees")
