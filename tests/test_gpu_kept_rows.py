"""The device packs the rows kept at the best as the host's reference does (GPU only, ``gpu`` mark)."""

from __future__ import annotations

import numpy as np
import pytest

from test_kept_rows import random_dumps

pytestmark = [pytest.mark.gpu]


def test_device_packing_equals_host_packing():
    import cupy as cp
    from gpukernels.gpu import runner as gg
    from gpukernels.scoring import lastz_scoring
    sc = lastz_scoring()
    rng = np.random.default_rng(11)
    t = rng.integers(0, 4, 1000).astype(np.uint8)
    runner = gg.DeviceRunner(t, t, sc.matrix, sc.gap_open, sc.gap_extend, sc.ydrop, 4, 1 << 30)
    dumps = random_dumps(rng, 300)
    runner._arena = cp.asarray(dumps.ravel())
    runner.keep_slots = 300
    slots = rng.permutation(300)[:200]
    flat, at = runner.kept_rows(slots)
    want_flat, want_at = gg._pack_dumps(dumps[slots])
    assert np.array_equal(at, want_at)
    assert np.array_equal(flat, want_flat)
