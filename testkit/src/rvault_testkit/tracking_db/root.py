"""The current empty root database, written once for every suite.

Tests, conformance, the reliability suite and the benchmarks all need a
schema-1 ``tracking-database.json`` (config v2, every owned array present)
around the talks they care about. Before this builder each suite spelled the
literal out itself, so a new owned array had to be added in six places; the
owner's reader refuses a root missing one, which made a forgotten copy fail
far from its cause.
"""

from __future__ import annotations

from typing import Any

OWNED_ARRAYS = (
    "pptx_catalog",
    "qr_codes",
    "resources",
    "thumbnails",
    "confirmed_intents",
    "improvement_goals",
)
"""The root arrays besides ``talks`` that a current database always carries."""


def minimal_config(**extra: Any) -> dict[str, Any]:
    """Config v2 with only what the reader requires (no exclusions), plus ``extra``."""
    return {"schema_version": 2, "pptx_directory_exclusions": [], **extra}


def root_database(
    talks: list[dict[str, Any]],
    *,
    config: dict[str, Any] | None = None,
    pptx_catalog: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A schema-1 root holding ``talks`` (the same list object, so callers may keep
    appending), ``config`` (default :func:`minimal_config`) and ``pptx_catalog``;
    every other owned array empty."""
    document: dict[str, Any] = {
        "schema_version": 1,
        "config": minimal_config() if config is None else config,
        "talks": talks,
    }
    for name in OWNED_ARRAYS:
        document[name] = []
    if pptx_catalog:
        document["pptx_catalog"] = pptx_catalog
    return document
