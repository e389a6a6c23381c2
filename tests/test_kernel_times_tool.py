"""The sums of ``bench/kernel_times.py`` over ncu's raw CSV (its profiling needs a GPU and ncu)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from kernel_times import METRICS, kernel_rows, main  # noqa: E402

RAW = """profiled program's own line
"ID","Kernel Name","{}","{}","{}","{}","{}"
"","","nsecond","cycle","cycle","inst","%"
"0","ydrop16","2,000,000","900","1000","5000","50"
"1","exec16","1000000","100","1000","700","20"
"2","ydrop16","4000000","1000","1000","7000","25"
""".format(*METRICS)


def test_sums_by_kernel_longest_first():
    rows = kernel_rows(RAW.splitlines())
    assert [r[0] for r in rows] == ["ydrop16", "exec16"]
    name, n, ns, active, inst, occ = rows[0]
    assert (n, ns, inst) == (2, 6e6, 12000)
    assert active == pytest.approx(2e6 * 0.9 + 4e6)         # time x active / elapsed cycles
    assert occ == pytest.approx(2e6 * 0.5 + 4e6 * 0.25)
    assert rows[1][3] == pytest.approx(1e5)


def test_table_and_clear_errors(tmp_path, capsys):
    raw = tmp_path / "raw.csv"
    raw.write_text(RAW)
    main(["--sum", str(raw)])
    out = capsys.readouterr().out
    assert "| ydrop16 | 2 | 6.00 | 85.7 % |" in out and "total 7.0 ms over 3 launches" in out
    with pytest.raises(ValueError, match="no ncu raw table"):
        kernel_rows(["just text"])
    with pytest.raises(ValueError, match="lacks"):
        kernel_rows(['"ID","Kernel Name","gpu__time_duration.sum"', '"","",""'])
    with pytest.raises(SystemExit, match="missing.csv"):
        main(["--sum", str(tmp_path / "missing.csv")])
