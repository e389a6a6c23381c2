"""The relay's pool of pinned host blocks (gpu/runner._HostBlocks), with a stand-in for CuPy."""
from types import SimpleNamespace

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
