"""The README's pipx install lines are generated from the owners' declared dependencies."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import install_table
from distributions import local_dependencies, owners, preinstall_order


def test_readme_install_lines_match_the_declared_dependencies() -> None:
    text = install_table.README.read_text(encoding="utf-8")
    assert install_table.render_readme(text) == text, (
        "README install table is stale: run .venv/bin/python tools/install_table.py --write"
    )


def test_every_tool_has_a_line_preinstalling_each_rvault_dependency() -> None:
    rows = install_table.table().splitlines()[2:]
    assert len(rows) == len(owners())
    for dist, row in zip(owners(), rows, strict=True):
        assert row.startswith(f"| `{dist.script}` |")
        assert '--preinstall "$PWD/contracts"' in row
        for dependency in local_dependencies(dist.owner):
            assert f'--preinstall "$PWD/packages/{dependency}"' in row


def test_preinstalls_come_after_what_they_depend_on() -> None:
    """pipx installs each pre-install alone: its own rvault dependencies must be there first."""
    for dist in owners():
        order = preinstall_order(dist.owner)
        assert dist.owner not in order
        for position, name in enumerate(order):
            assert set(local_dependencies(name)) <= set(order[:position]), (dist.owner, order)
        assert set(local_dependencies(dist.owner)) <= set(order)
