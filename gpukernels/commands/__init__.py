"""Subcommands of ``ava``: each module has ``add_parser(subparsers)``; the parser's ``func`` runs it."""
