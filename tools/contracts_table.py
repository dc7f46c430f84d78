"""Print (or write into README.md) the table of registered contracts.

Usage: ``python tools/contracts_table.py [--write]``; ``--write`` replaces the
block between the ``contracts-table`` markers of the root README.
"""

from __future__ import annotations

import json
from pathlib import Path

from readme_block import replace_block, table_main

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "contracts/src/rvault_contracts/registry.json"
README = ROOT / "README.md"
BLOCK = "contracts-table"


def table() -> str:
    artifacts = json.loads(REGISTRY.read_text(encoding="utf-8"))["artifacts"]
    rows = ["| artifact | versions | producer | consumers |", "| --- | --- | --- | --- |"]
    for artifact_id in sorted(artifacts):
        entry = artifacts[artifact_id]
        versions = ", ".join(f"v{v}" for v in sorted(entry["versions"], key=int))
        consumers = ", ".join(entry["consumers"])
        rows.append(f"| `{artifact_id}` | {versions} | {entry['producer']} | {consumers} |")
    return "\n".join(rows)


def render_readme(text: str) -> str:
    return replace_block(text, BLOCK, table())


def main(argv: list[str] | None = None) -> int:
    return table_main(__doc__.splitlines()[0], README, BLOCK, table, argv)


if __name__ == "__main__":
    raise SystemExit(main())
