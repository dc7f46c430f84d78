"""Generated blocks in Markdown files: the text between two HTML comment markers.

The root README's contracts and install tables and every package README's
refusal-code table are generated from the tree, and their tests compare the
committed text with a fresh rendering. All of them mark their block the same
way (``<!-- NAME:start -->`` ... ``<!-- NAME:end -->``), so one function
replaces it and the generators only say what goes inside.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def replace_block(text: str, name: str, body: str, *, append_under: str | None = None) -> str:
    """``text`` with the block ``name`` holding exactly ``body``.

    A text without the block gets it appended under the heading
    ``append_under`` when one is given; otherwise that is an error, because a
    README that lost its markers would silently stop being checked.
    """
    start, end = markers(name)
    block = f"{start}\n{body}\n{end}"
    if start not in text:
        if append_under is None:
            raise ValueError(f"no {start} marker")
        return f"{text.rstrip()}\n\n{append_under}\n\n{block}\n"
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    return f"{before}{block}{after}"


def table_main(
    description: str, readme: Path, name: str, table: Callable[[], str], argv: list[str] | None
) -> int:
    """Print the table, or with ``--write`` put it into ``readme``'s block ``name``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--write", action="store_true", help=f"update {readme.name} in place")
    args = parser.parse_args(argv)
    if args.write:
        text = readme.read_text(encoding="utf-8")
        readme.write_text(replace_block(text, name, table()), encoding="utf-8")
    else:
        sys.stdout.write(table() + "\n")
    return 0
