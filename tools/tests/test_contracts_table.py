"""The README's contracts table is generated from the registry and kept in sync."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import contracts_table


def test_readme_table_matches_the_registry() -> None:
    text = contracts_table.README.read_text(encoding="utf-8")
    assert contracts_table.render_readme(text) == text, (
        "README contracts table is stale: run .venv/bin/python tools/contracts_table.py --write"
    )


def test_every_artifact_is_a_row() -> None:
    rows = contracts_table.table().splitlines()[2:]
    registry = contracts_table.json.loads(contracts_table.REGISTRY.read_text())["artifacts"]
    assert [row.split("`")[1] for row in rows] == sorted(registry)
