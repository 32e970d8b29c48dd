"""``python -m shared.store where``: the folder of the study store in use (``python -m shared.real.build``
fills it with what the real models' notebooks read)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .keys import default_directory


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shared.store", description="The course's study store.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("where", help="print the directory of the store in use")
    parser.parse_args(argv)
    print(default_directory())
    return 0


if __name__ == "__main__":
    sys.exit(main())
