"""GPU leases: one job per GPU (or per GPU slot), by a lock file per device.

Snakemake counts GPUs (``--resources gpu=4``) but does not say *which* GPU a
job should take. A job therefore takes a lease: it walks the pool of devices
and holds an exclusive ``fcntl`` lock on the first free device's lock file
for as long as it runs. The kernel drops the lock when the process ends, even
on a crash, so a lease can never go stale.

With ``slots`` > 1 each device has that many lock files (slot 0 is the
plain one), so that many jobs may share it: the GPU engine spends much of a
job on the host, which other jobs can fill. Slots are taken slot by slot
across the pool, so jobs spread over the devices before they share one.

The pool
--------
- ``CUDA_VISIBLE_DEVICES`` set (by the user, or by SLURM for the job): the
  devices listed there; the lease's ``ordinal`` is the position in that list,
  which is what CUDA calls the device inside the process.
- Under SLURM (``SLURM_JOB_ID`` set) with ``CUDA_VISIBLE_DEVICES`` set, the
  scheduler has already given the job its own device(s): the job takes the
  first one without a lock (jobs on one node may all see "device 0").
- Otherwise the pool is ``range(count)`` where ``count`` comes from the
  caller, from ``AVA_GPU_COUNT``, or from ``nvidia-smi -L``.

Nothing here imports CUDA, so the logic can be tested with simulated GPUs.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from .errors import InputError

log = logging.getLogger("gpukernels")


@dataclass
class Lease:
    """A device held by this process.

    Attributes
    ----------
    ordinal : int or None
        CUDA device ordinal to use inside this process; ``None`` for no GPU.
    device : str or None
        The device's id in the pool (as written in ``CUDA_VISIBLE_DEVICES``).
    path : str or None
        The lock file held, if any.
    slot : int
        Which of the device's slots (0 unless jobs share devices).
    """

    ordinal: int | None
    device: str | None
    path: str | None = None
    _fd: int | None = None
    slot: int = 0

    def release(self):
        """Give the device back (also happens when the process ends)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def default_lock_dir():
    """``$AVA_GPU_LOCK_DIR``, else ``<tmp>/ava-gpu-locks-<uid>`` (node-local)."""
    return os.environ.get("AVA_GPU_LOCK_DIR") or os.path.join(
        tempfile.gettempdir(), f"ava-gpu-locks-{os.getuid()}")


def count_gpus():
    """Number of GPUs ``nvidia-smi -L`` lists; 0 without a driver."""
    if os.environ.get("AVA_GPU_COUNT"):
        return int(os.environ["AVA_GPU_COUNT"])
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return 0
    try:
        out = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


def device_pool(count=None, env=None):
    """The devices a job may lease, as ids.

    Parameters
    ----------
    count : int, optional
        Number of GPUs when ``CUDA_VISIBLE_DEVICES`` is unset; found by
        :func:`count_gpus` by default.
    env : mapping, optional
        Environment to read (``os.environ`` by default).

    Returns
    -------
    list of str
    """
    env = os.environ if env is None else env
    visible = env.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        ids = [v.strip() for v in visible.split(",") if v.strip()]
        # CUDA stops at the first invalid entry such as -1 or NoDevFiles
        out = []
        for v in ids:
            if v.startswith("-") or v.lower() == "nodevfiles":
                break
            out.append(v)
        return out
    if count is None:
        count = count_gpus()
    return [str(i) for i in range(int(count))]


def acquire(pool=None, lock_dir=None, timeout=None, poll=0.25, env=None, slots=1):
    """Take a device (or a slot of one) from the pool, waiting until one is free.

    Parameters
    ----------
    pool : list of str, optional
        Device ids; :func:`device_pool` by default.
    lock_dir : str, optional
        Where the lock files live; :func:`default_lock_dir` by default. It
        must be local to the node (not a shared file system).
    timeout : float, optional
        Give up after this many seconds (wait forever by default).
    poll : float
        Seconds between tries while all devices are taken.
    env : mapping, optional
        Environment to read (``os.environ`` by default).
    slots : int
        Jobs that may hold one device at once (default 1).

    Returns
    -------
    Lease
        ``Lease(None, None)`` when the pool is empty (run on the CPU).

    Raises
    ------
    TimeoutError
        When no device came free in ``timeout`` seconds.
    """
    env = os.environ if env is None else env
    if pool is None:
        pool = device_pool(env=env)
    if not pool:
        return Lease(None, None)
    if env.get("SLURM_JOB_ID") and env.get("CUDA_VISIBLE_DEVICES") is not None:
        log.info("GPU lease: device %s given by SLURM job %s", pool[0], env["SLURM_JOB_ID"])
        return Lease(0, pool[0])
    lock_dir = lock_dir or default_lock_dir()
    os.makedirs(lock_dir, exist_ok=True)
    deadline = None if timeout is None else time.monotonic() + timeout
    waited = False
    if int(slots) < 1:
        raise InputError(f"GPU slots per device must be at least 1, not {slots}")
    while True:
        for slot in range(int(slots)):
            for ordinal, dev in enumerate(pool):
                name = f"gpu-{_safe(dev)}.lock" if slot == 0 else f"gpu-{_safe(dev)}.slot{slot}.lock"
                path = os.path.join(lock_dir, name)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                log.info("GPU lease: device %s (ordinal %d), slot %d, lock %s", dev, ordinal, slot, path)
                return Lease(ordinal, dev, path, fd, slot)
        if deadline is not None and time.monotonic() >= deadline:
            raise TimeoutError(f"no GPU of {pool} came free in {timeout} s (locks in {lock_dir})")
        if not waited:
            log.info("GPU lease: all of %s taken; waiting", pool)
            waited = True
        time.sleep(poll)


def _safe(dev):
    out = "".join(c if c.isalnum() or c in "-_." else "_" for c in dev)
    if not out:
        raise InputError(f"bad device id {dev!r}")
    return out
