"""Print (or write into README.md) the table of pipx install lines, one per tool.

The lines come from ``check_pipx.pipx_line``, which ``check_pipx.py`` runs
for real, so the README cannot drift from the dependencies each owner
declares (it did: two owners gained rvault dependencies and kept their old
line). Arguments holding ``$PWD`` or extras brackets are double-quoted, as a
shell needs.

Usage: ``python tools/install_table.py [--write]``; ``--write`` replaces the
block between the ``install-table`` markers of the root README.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_pipx import pipx_line
from distributions import ROOT, owners
from readme_block import replace_block, table_main

README = ROOT / "README.md"
BLOCK = "install-table"


def _shell_word(word: str) -> str:
    return f'"{word}"' if "$" in word or "[" in word else word


def table() -> str:
    rows = ["| tool | install |", "| --- | --- |"]
    for dist in owners():
        line = " ".join(_shell_word(word) for word in pipx_line(dist.owner))
        rows.append(f"| `{dist.script}` | `{line}` |")
    return "\n".join(rows)


def render_readme(text: str) -> str:
    return replace_block(text, BLOCK, table())


def main(argv: list[str] | None = None) -> int:
    return table_main(__doc__.splitlines()[0], README, BLOCK, table, argv)


if __name__ == "__main__":
    raise SystemExit(main())
