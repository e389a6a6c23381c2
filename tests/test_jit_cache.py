"""The first run's note that numba compiles the host code (gpukernels.jit_cache)."""

import logging
import os
import subprocess
import sys
import types

from gpukernels import jit_cache


def _dispatcher(index_path):
    """A stand-in for a cached numba dispatcher whose index lies at ``index_path``."""
    return types.SimpleNamespace(_cache=types.SimpleNamespace(_cache_file=types.SimpleNamespace(
        _index_path=str(index_path))))


def test_index_paths_name_numba_index_files():
    (path,) = jit_cache.index_paths(jit_cache._heavy_functions("cpu"))
    assert path.endswith(".nbi") and "extend_side" in os.path.basename(path)
    assert jit_cache.index_paths([object()]) == [None]      # another numba's internals: no guess


def test_note_only_where_an_index_is_missing(tmp_path, monkeypatch, caplog):
    present = tmp_path / "present.nbi"
    present.write_bytes(b"")
    monkeypatch.setattr(jit_cache, "_heavy_functions", lambda backend: [_dispatcher(present)])
    with caplog.at_level(logging.INFO, logger="gpukernels"):
        jit_cache.note_first_compile("cpu")
    assert "compiles" not in caplog.text
    monkeypatch.setattr(jit_cache, "_heavy_functions",
                        lambda backend: [_dispatcher(present), _dispatcher(tmp_path / "missing.nbi")])
    with caplog.at_level(logging.INFO, logger="gpukernels"):
        jit_cache.note_first_compile("gpu")
    assert "first run of this installation: numba compiles the host code once (about 70 s" in caplog.text
    assert str(tmp_path) in caplog.text


def test_an_empty_cache_folder_is_cold(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "from gpukernels import jit_cache; print(jit_cache.cold('cpu'))"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
