"""The ``ava`` command: one subcommand per engine entry point.

Each subcommand lives in ``gpukernels/commands/<name>.py`` with two functions,
``add_parser(subparsers)`` and ``run(args)``. This module only dispatches and
turns input errors into one clear line and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from .errors import InputError

SUBCOMMANDS = ("align", "wfa")


def build_parser():
    """The argparse parser of ``ava`` with every subcommand."""
    parser = argparse.ArgumentParser(prog="ava", description="All-vs-all genome alignment on GPU or CPU.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress and backend choice")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"gpukernels.commands.{name}")
        except ModuleNotFoundError as exc:  # a subcommand not installed in this build
            if exc.name != f"gpukernels.commands.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv=None):
    """Entry point of the ``ava`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING if args.quiet else (logging.DEBUG if args.verbose else logging.INFO)
    # other libraries' messages from warnings on only: numba's compiler debugging filled -v's output
    logging.basicConfig(level=logging.WARNING, format="ava: %(message)s", stream=sys.stderr)
    logging.getLogger("gpukernels").setLevel(level)
    try:
        return args.func(args) or 0
    except InputError as exc:
        print(f"ava {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ava: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
