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
from rvault_testkit.tracking_db.root import root_database

CONFORMANCE_DIR = Path(__file__).resolve().parent
CASES_DIR = CONFORMANCE_DIR / "cases"
SCHEMAS_DIR = Path(str(resources.files("rvault_contracts") / "schemas"))


def module_literals(name: str) -> dict[str, Any]:
    """The module-level literal ``name`` of every conformance test module, read without
    importing it (so a registry check never depends on a module importing cleanly)."""
    found: dict[str, Any] = {}
    for module in sorted(CONFORMANCE_DIR.glob("test_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in tree.body:
            targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                targets.append(node.target.id)
            if name in targets and node.value is not None:
                found[module.name] = ast.literal_eval(node.value)
    return found


def declared_covers() -> dict[str, set[tuple[str, str, str]]]:
    """The COVERS literal of every conformance test module, read without importing it."""
    return {
        module: {tuple(edge) for edge in covers}
        for module, covers in module_literals("COVERS").items()
    }


def declared_refusals() -> dict[str, dict[tuple[str, str, str], list[tuple[Any, ...]]]]:
    """The REFUSALS literal of every conformance test module, read without importing it.

    ``{(artifact, producer, consumer): [(code, path, value[, defect]), ...]}``: the
    consumer must refuse real producer output whose one field at ``path`` is set to
    ``value`` with the stable ``code``; see :mod:`_refusals`.
    """
    return {
        module: {tuple(edge): [tuple(case) for case in cases] for edge, cases in refusals.items()}
        for module, refusals in module_literals("REFUSALS").items()
    }


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
    database = root_database(talks)
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


def refusal_test_runners(module_name: str) -> list[str]:
    """Test functions of a module that run its REFUSALS literal case by case.

    Such a function is parametrized with ``refusal_cases(REFUSALS)`` (one test per
    declared case) and calls ``assert_refused`` in its body: the structural rule
    that makes every declared code an asserted one.
    """
    tree = ast.parse((CONFORMANCE_DIR / module_name).read_text(encoding="utf-8"))

    def calls(node: ast.AST, name: str) -> list[ast.Call]:
        return [
            n
            for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
        ]

    runners = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        parametrized = any(
            isinstance(arg, ast.Name) and arg.id == "REFUSALS"
            for decorator in node.decorator_list
            for call in calls(decorator, "refusal_cases")
            for arg in call.args
        )
        asserted = any(calls(statement, "assert_refused") for statement in node.body)
        if parametrized and asserted:
            runners.append(node.name)
    return runners
