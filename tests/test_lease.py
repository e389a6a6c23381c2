"""GPU leases with simulated GPUs: no CUDA needed."""

import multiprocessing as mp
import time

import pytest

from gpukernels import lease


def _job(lock_dir, pool, hold, queue, slots=1):
    with lease.acquire(pool=pool, lock_dir=lock_dir, env={}, slots=slots) as got:
        t0 = time.monotonic()
        time.sleep(hold)
        queue.put((got.device, t0, time.monotonic()))


def _run_jobs(tmp_path, n_jobs, pool, hold=0.5, slots=1):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_job, args=(str(tmp_path), pool, hold, queue, slots)) for _ in range(n_jobs)]
    for p in procs:
        p.start()
    out = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return out


def test_three_jobs_three_gpus_never_share(tmp_path):
    out = _run_jobs(tmp_path, 3, ["0", "1", "2"])
    assert sorted(d for d, _, _ in out) == ["0", "1", "2"]


def test_more_jobs_than_gpus_wait_their_turn(tmp_path):
    out = _run_jobs(tmp_path, 6, ["0", "1", "2"], hold=0.3)
    for dev in "012":
        spans = sorted((a, b) for d, a, b in out if d == dev)
        for (a0, b0), (a1, b1) in zip(spans, spans[1:]):
            assert a1 >= b0              # no two holders of one device at once


def test_slots_share_a_device_at_most_slots_at_once(tmp_path):
    out = _run_jobs(tmp_path, 6, ["0", "1"], hold=0.4, slots=2)
    for dev in "01":
        spans = [(a, b) for d, a, b in out if d == dev]
        for a, _ in spans:
            assert sum(a0 <= a < b0 for a0, b0 in spans) <= 2     # at most 2 holders at any start


def test_slots_spread_over_devices_first(tmp_path):
    with lease.acquire(pool=["0", "1"], lock_dir=str(tmp_path), env={}, slots=2) as a, \
            lease.acquire(pool=["0", "1"], lock_dir=str(tmp_path), env={}, slots=2) as b, \
            lease.acquire(pool=["0", "1"], lock_dir=str(tmp_path), env={}, slots=2) as c:
        assert [(x.device, x.slot) for x in (a, b, c)] == [("0", 0), ("1", 0), ("0", 1)]
        with pytest.raises(TimeoutError):
            with lease.acquire(pool=["0", "1"], lock_dir=str(tmp_path), env={}, slots=2):
                lease.acquire(pool=["0", "1"], lock_dir=str(tmp_path), env={}, slots=2, timeout=0.3, poll=0.05)


def test_pool_from_environment():
    assert lease.device_pool(env={"CUDA_VISIBLE_DEVICES": "2,3"}) == ["2", "3"]
    assert lease.device_pool(env={"CUDA_VISIBLE_DEVICES": ""}) == []
    assert lease.device_pool(env={"CUDA_VISIBLE_DEVICES": "1,-1,2"}) == ["1"]
    assert lease.device_pool(count=2, env={}) == ["0", "1"]


def test_ordinal_is_position_in_visible_list(tmp_path):
    env = {"CUDA_VISIBLE_DEVICES": "5,7"}
    with lease.acquire(lock_dir=str(tmp_path), env=env) as a, \
            lease.acquire(lock_dir=str(tmp_path), env=env) as b:
        assert (a.device, a.ordinal) == ("5", 0)
        assert (b.device, b.ordinal) == ("7", 1)
    with pytest.raises(TimeoutError):
        with lease.acquire(pool=["0"], lock_dir=str(tmp_path), env={}):
            lease.acquire(pool=["0"], lock_dir=str(tmp_path), env={}, timeout=0.3, poll=0.05)


def test_slurm_device_taken_without_lock(tmp_path):
    env = {"SLURM_JOB_ID": "1", "CUDA_VISIBLE_DEVICES": "0"}
    a = lease.acquire(lock_dir=str(tmp_path), env=env)
    b = lease.acquire(lock_dir=str(tmp_path), env=env)
    assert a.ordinal == b.ordinal == 0 and a.path is None


def test_no_gpu_means_cpu():
    got = lease.acquire(pool=[], env={})
    assert got.ordinal is None
