"""Print (or write into README.md) the table of registered contracts.

Usage: ``python tools/contracts_table.py [--write]``; ``--write`` replaces the
block between the ``contracts-table`` markers of the root README.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "contracts/src/rvault_contracts/registry.json"
README = ROOT / "README.md"
START, END = "<!-- contracts-table:start -->", "<!-- contracts-table:end -->"


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
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    return f"{before}{START}\n{table()}\n{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update README.md in place")
    args = parser.parse_args(argv)
    if args.write:
        README.write_text(render_readme(README.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        sys.stdout.write(table() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
