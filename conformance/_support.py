"""Helpers shared by the conformance tests (not a test module)."""

from __future__ import annotations

import ast
import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

from rvault_contracts.schemas import registry, schema_issues
from rvault_contracts.strict_json import loads_strict

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


def pending_talk(vault: Path, filename: str, transcript: str) -> dict[str, Any]:
    """A current pending talk whose transcript file exists under ``vault``."""
    (vault / "transcripts").mkdir(parents=True, exist_ok=True)
    (vault / "transcripts" / f"{filename}.txt").write_text(transcript, encoding="utf-8")
    return {
        "schema_version": 5,
        "filename": filename,
        "status": "pending",
        "transcript_path": f"transcripts/{filename}.txt",
    }


def write_current_database(vault: Path, talks: list[dict[str, Any]]) -> Path:
    """Write a schema-1 database (config v2, every owned array present) with ``talks``."""
    database = {
        "schema_version": 1,
        "config": {"schema_version": 2, "pptx_directory_exclusions": []},
        "talks": talks,
        "pptx_catalog": [],
        "qr_codes": [],
        "resources": [],
        "thumbnails": [],
        "confirmed_intents": [],
        "improvement_goals": [],
    }
    path = vault / "tracking-database.json"
    path.write_text(json.dumps(database, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def catalog_fingerprint(directory: Path) -> tuple[str, set[str]]:
    """The pattern catalog's fingerprint and entry ids, recomputed from the documented rule.

    Independent of the producer's code: files sorted by UTF-8 name; per file:
    name, NUL, decimal size, NUL, bytes; SHA-256. Every entry is read strictly
    and must pass the registered ``pattern-catalog-entry`` schema.
    """
    digest = hashlib.sha256()
    ids = set()
    for path in sorted(directory.glob("*.json"), key=lambda p: p.name.encode("utf-8")):
        data = path.read_bytes()
        entry = loads_strict(data)
        assert schema_issues("pattern-catalog-entry", 1, entry) == [], path.name
        ids.add(entry["id"])
        digest.update(
            path.name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0" + data
        )
    return digest.hexdigest(), ids
