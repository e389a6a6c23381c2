"""Atomic output: write to a temporary file beside the target, then rename."""

from __future__ import annotations

import contextlib
import gzip
import os
import sys
import tempfile


@contextlib.contextmanager
def atomic_text_output(path, compress=None):
    """Open ``path`` for text writing so that it appears only when complete.

    Parameters
    ----------
    path : str or None
        Output path; ``None`` or ``"-"`` writes to standard output.
    compress : bool, optional
        Gzip the output; default: when ``path`` ends with ``.gz``.

    Yields
    ------
    file
        A text file object. On an exception the temporary file is removed and
        ``path`` is left as it was.
    """
    if path in (None, "-"):
        yield sys.stdout
        sys.stdout.flush()
        return
    path = os.fspath(path)
    if compress is None:
        compress = path.endswith(".gz")
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", dir=directory)
    os.close(fd)
    try:
        if compress:
            # mtime=0 keeps gzip output byte-identical between runs
            raw = open(tmp, "wb")
            with raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                import io
                with io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as fh:
                    yield fh
        else:
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
