"""Helpers shared by the conformance tests (not a test module)."""

from __future__ import annotations

import ast
import json
from importlib import resources
from pathlib import Path
from typing import Any

from rvault_contracts.schemas import registry

CONFORMANCE_DIR = Path(__file__).resolve().parent
CASES_DIR = CONFORMANCE_DIR / "cases"
SCHEMAS_DIR = Path(str(resources.files("rvault_contracts") / "schemas"))


def declared_covers() -> dict[str, set[tuple[str, str, str]]]:
    """The COVERS literal of every conformance test module, read without importing it."""
    covers: dict[str, set[tuple[str, str, str]]] = {}
    for module in sorted(CONFORMANCE_DIR.glob("test_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in tree.body:
            targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                targets.append(node.target.id)
            if "COVERS" in targets and node.value is not None:
                covers[module.name] = {tuple(edge) for edge in ast.literal_eval(node.value)}
    return covers


def registry_edges() -> set[tuple[str, str, str]]:
    return {
        (entry.id, entry.producer, consumer)
        for entry in registry().values()
        for consumer in entry.consumers
        if consumer != "external"
    }


def case_files() -> list[Path]:
    return sorted(CASES_DIR.glob("*/v*.json"))


def load_cases(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))
