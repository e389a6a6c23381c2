"""``bench/cold_start.py``: the table of numba's compiles and cache loads of one ``ava align`` run."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"


def test_cold_start_clocks_numba_and_writes_the_alignments(tmp_path):
    out = tmp_path / "x.paf"
    res = subprocess.run([sys.executable, str(ROOT / "bench" / "cold_start.py"), "--top", "3", "--",
                          str(DATA / "hpylori_g27_40k.fa.gz"), str(DATA / "hpylori_sjm180_40k.fa.gz"),
                          "--backend", "cpu", "-o", str(out)],
                         capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = res.stdout.splitlines()
    assert lines[0].startswith("ava align: rc 0, ")
    counts = {line.split(":")[0]: int(line.split(": ")[1].split()[0]) for line in lines[1:4]}
    # the numba functions the run calls (those over a millisecond) are compiled or loaded from the cache
    assert set(counts) == {"numba compile", "numba cache", "cuda kernel"}
    assert counts["numba compile"] + counts["numba cache"] >= 5 and counts["cuda kernel"] == 0
    assert lines[4] == "| s | kind | function | signature or options |"
    assert len(lines) == 4 + 2 + 3 and "gpukernels." in lines[6]
    assert len(out.read_text().splitlines()) == 7
