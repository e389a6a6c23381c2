"""The relay's pool of pinned host blocks (gpu/runner._HostBlocks) and the walls' pool (_PinnedArrays),
with stand-ins for CuPy."""
from types import SimpleNamespace

import numpy as np
import pytest

from gpukernels.gpu import runner as gg


class _Block:
    def __init__(self, n):
        self.n = n

    def size(self):
        return self.n


def _fake_cupy(allocated):
    def memory(n):
        allocated.append(n)
        return n
    return SimpleNamespace(cuda=SimpleNamespace(Device=lambda *a: SimpleNamespace(id=0), PinnedMemory=memory,
                                                PinnedMemoryPointer=lambda n, offset: _Block(n - offset)))


def test_blocks_come_in_powers_of_two_and_are_taken_again():
    allocated = []
    cp = _fake_cupy(allocated)
    pool = gg._HostBlocks()
    a = pool.take(cp, 3 << 20)
    b = pool.take(cp, 10)
    assert (a.size(), b.size()) == (4 << 20, 1 << 20)
    pool.give(cp, [a, b])
    assert pool.take(cp, (3 << 20) + 5) is a      # the same size class: no new allocation
    assert pool.take(cp, 1) is b
    assert allocated == [4 << 20, 1 << 20]


def test_a_block_is_taken_from_its_own_size_class_only():
    allocated = []
    cp = _fake_cupy(allocated)
    pool = gg._HostBlocks()
    big, small = pool.take(cp, 64 << 20), pool.take(cp, 8 << 20)
    pool.give(cp, [big, small])
    assert pool.take(cp, 5 << 20) is small
    assert pool.take(cp, 5 << 20) not in (big, small)   # a new 8 MiB block: the 64 MiB one stays free
    assert pool.take(cp, 40 << 20) is big
    assert allocated == [64 << 20, 8 << 20, 8 << 20]


def test_free_bytes_beyond_the_limit_are_let_go(monkeypatch):
    monkeypatch.setattr(gg, "HOST_BLOCKS_KEEP", 16 << 20)
    allocated = []
    cp = _fake_cupy(allocated)
    pool = gg._HostBlocks()
    blocks = [pool.take(cp, n) for n in (4 << 20, 8 << 20, 32 << 20)]
    pool.give(cp, blocks)
    assert pool.take(cp, 20 << 20) is not blocks[2]   # the 32 MiB block was let go
    assert pool.take(cp, 8 << 20) is blocks[1]
    assert pool.take(cp, 3 << 20) is blocks[0]


def _fake_pinned():
    return SimpleNamespace(cuda=SimpleNamespace(PinnedMemory=bytearray, PinnedMemoryPointer=lambda m, offset: m))


@pytest.mark.parametrize("beside", [True, False])
def test_walls_given_back_come_back_zero_and_the_same(beside, monkeypatch):
    """An array of the zero pool given back with the rows written comes back all zero (zeroed on the pool's
    thread, or at once), and it is the same memory."""
    monkeypatch.setattr(gg, "ZERO_BESIDE", beside)
    cp = _fake_pinned()
    pool = gg._PinnedArrays(1 << 30, zero=True)
    walls = pool.take(cp, (5000, 4, 2))
    assert pool.owns(walls) and not walls.any()
    spans = np.array([[10, 2000], [3000, 3001], [4990, 5000]], dtype=np.int64)
    for a, b in spans:
        walls[a:b] = 7
    pool.give(walls, spans)
    again = pool.take(cp, (5000, 4, 2))
    assert again is walls and not again.any()
    pool.give(again, np.zeros((0, 2), np.int64))
    assert pool.take(cp, (5000, 4, 2)) is walls


def test_wall_spans_join_only_across_short_gaps():
    spans = np.array([[0, 5], [7, 9], [40, 50], [59, 60], [100, 101]])
    assert gg._joined_spans(spans, 10) == [[0, 9], [40, 60], [100, 101]]
    assert gg._joined_spans(spans, 1) == [[0, 5], [7, 9], [40, 50], [59, 60], [100, 101]]
    assert gg._joined_spans(spans[:0], 10) == []
