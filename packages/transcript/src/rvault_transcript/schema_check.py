"""Validation against this owner's registered schemas.

The schemas are loaded from ``rvault_contracts`` (the single source), but
validated with a validator built from the one schema document: the
transcript schemas are self-contained, so a reader of receipts does not
depend on every other artifact of the registry loading cleanly.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from rvault_contracts.schemas import SchemaIssue, load_schema


@cache
def _validator(artifact: str, version: int) -> Draft202012Validator:
    return Draft202012Validator(
        load_schema(artifact, version), format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def _path(error: Any) -> str:
    parts = ["$"]
    for item in error.absolute_path:
        parts.append(f"[{item}]" if isinstance(item, int) else f"[{json.dumps(item)}]")
    return "".join(parts)


def schema_issues(artifact: str, version: int, document: Any) -> list[SchemaIssue]:
    """Every violation of one registered transcript schema, sorted by path."""
    errors = sorted(
        _validator(artifact, version).iter_errors(document),
        key=lambda e: (_path(e), e.validator, e.message),
    )
    return [SchemaIssue(_path(e), e.message, str(e.validator)) for e in errors]
