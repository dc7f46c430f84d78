"""Config v1/v2 assessment.

Config is the user's record, so unknown keys are preserved and allowed; the
fields the toolkit interprets are type-checked. Version 2 adds the
owner-controlled ``pptx_directory_exclusions`` boundary and requires it.
"""

from __future__ import annotations

from typing import Any

from rvault_contracts.issues import Collector

from rvault_tracking_db.assessment import checks, shapes
from rvault_tracking_db.assessment.model import child
from rvault_tracking_db.assessment.storage_path import storage_path_form_error

CONFIG = "db-config"
CONFIG_VERSIONS = shapes.versions(CONFIG)
CURRENT_CONFIG_VERSION = max(CONFIG_VERSIONS)

# The owner default discovery boundary: tool caches and VCS/OS metadata that
# never hold a speaker's own decks.
DEFAULT_PPTX_DIRECTORY_EXCLUSIONS: tuple[str, ...] = (
    ".Trash",
    ".git",
    ".venv",
    "__pycache__",
    "node_modules",
)

_SOURCE = ("properties", "shownotes", "anyOf", 1, "properties", "source", "anyOf", 1)
SHOWNOTES_SOURCE_TYPES = tuple(
    shapes.node(CONFIG, CURRENT_CONFIG_VERSION, *_SOURCE, "properties", "type", "enum")
)

_NULLABLE_STRINGS = shapes.typed(CONFIG, CURRENT_CONFIG_VERSION, "string", "null")


def assess_config(
    config: Any,
    path: str,
    issues: Collector,
    *,
    missing_version: int | None,
    database_parent: str | None,
) -> int | None:
    if not checks.require_object(config, path, issues, "config"):
        return None
    version = checks.version_of(
        config, path, CONFIG_VERSIONS, issues, missing=missing_version, what="config"
    )
    if version is None:
        return None
    for key in _NULLABLE_STRINGS:
        checks.check_type(config, key, path, issues, ("string", "null"))
    checks.check_string_list(config, "template_skip_patterns", path, issues)
    checks.check_count(config, "clarification_sessions_completed", path, issues)
    if version == 2 and "pptx_directory_exclusions" not in config:
        issues.add(
            checks.MISSING_FIELD,
            child(path, "pptx_directory_exclusions"),
            "config v2 requires pptx_directory_exclusions",
        )
    checks.check_string_list(config, "pptx_directory_exclusions", path, issues, unique=True)
    _assess_shownotes(config, path, issues)
    _assess_storage_path(config, path, issues, database_parent)
    return version


def _assess_shownotes(config: dict[str, Any], path: str, issues: Collector) -> None:
    if not checks.check_type(config, "shownotes", path, issues, ("object", "null")):
        return
    shownotes = config.get("shownotes")
    if not isinstance(shownotes, dict):
        return
    spath = child(path, "shownotes")
    checks.check_type(shownotes, "enabled", spath, issues, ("boolean",))
    if not checks.check_type(shownotes, "source", spath, issues, ("object", "null")):
        return
    source = shownotes.get("source")
    if isinstance(source, dict):
        srcpath = child(spath, "source")
        checks.check_enum(source, "type", srcpath, issues, SHOWNOTES_SOURCE_TYPES)
        checks.check_type(source, "path_or_url", srcpath, issues, ("string", "null"))
        checks.check_type(source, "talks_subdir", srcpath, issues, ("string", "null"))


def _assess_storage_path(
    config: dict[str, Any], path: str, issues: Collector, database_parent: str | None
) -> None:
    if "vault_storage_path" not in config or config["vault_storage_path"] is None:
        return
    value = config["vault_storage_path"]
    vpath = child(path, "vault_storage_path")
    problem = storage_path_form_error(value)
    if problem is not None:
        issues.add("invalid_vault_storage_path", vpath, problem)
        return
    if database_parent is not None and value != database_parent:
        issues.add(
            "vault_storage_path_mismatch",
            vpath,
            f"vault_storage_path {value!r} is not lexically the database parent "
            f"{database_parent!r}",
        )
