"""The settings parser of ``bench/ab_settings.py`` (the A/B itself needs a GPU)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))

from ab_settings import parse_settings  # noqa: E402


def test_settings_name_module_level_values():
    from gpukernels.cpu import relay
    from gpukernels.gpu import gapped, runner
    got = parse_settings("gapped.WAVE=2048,runner.BANDS=512:2048,relay.CHUNK=1024,engine.SWITCH_S=1e-4")
    assert [(m.__name__, n, v) for m, n, v in got] == [
        (gapped.__name__, "WAVE", 2048), (runner.__name__, "BANDS", (512, 2048)), (relay.__name__, "CHUNK", 1024),
        ("gpukernels.engine", "SWITCH_S", 1e-4)]
    assert parse_settings("") == []


def test_an_unknown_setting_is_an_error():
    with pytest.raises(SystemExit, match="no setting NOPE"):
        parse_settings("gapped.NOPE=1")
