"""A document refused by its contract schema, with this package's codes.

Plan shapes (closed field sets, enums, patterns, versions) are stated once,
in the registered JSON Schema; Python keeps only the rules that compare a
plan with the database. This module turns the first schema violation into
the refusal a user sees: the same codes the hand-written decoders used
(``unknown_field``, ``missing_field``, ``wrong_type``, ``invalid_value``,
``unsupported_schema_version``) and the JSON path of the offending member.
python-jsonschema is imported only when a document is refused (a valid plan is
accepted by jsonschema-rs, :func:`rvault_contracts.schemas.validation_errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rvault_contracts.cli import Refusal
from rvault_contracts.schemas import load_schema, validation_errors
from rvault_contracts.strict_json import json_path

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

_CODES = {
    "additionalProperties": "unknown_field",
    "required": "missing_field",
    "type": "wrong_type",
    "minItems": "invalid_value",
}


def _deepest(error: ValidationError) -> ValidationError:
    """The most specific cause under ``if/then``/``allOf``/``$ref`` wrappers."""
    from jsonschema.exceptions import best_match

    while error.context:
        error = best_match(error.context) or error
        if not error.context:
            break
    return error


def check_document(artifact: str, version: int, document: Any, *, what: str) -> None:
    """Raise a :class:`Refusal` for the first schema violation (in path order)."""
    errors = sorted(
        validation_errors(artifact, version, document),
        key=lambda e: (len(e.absolute_path), json_path("$", *e.absolute_path)),
    )
    if not errors:
        return
    from jsonschema.exceptions import best_match

    error = _deepest(best_match(errors) or errors[0])
    path = list(error.absolute_path)
    where = json_path("$", *path)
    if path == ["schema_version"]:
        raise Refusal(
            "unsupported_schema_version",
            f"{what} schema_version must be the integer {version}",
            where,
        )
    code = _CODES.get(str(error.validator), "invalid_value")
    if error.validator == "additionalProperties":
        extra = _extra_keys(error)
        if extra:
            where = json_path("$", *path, extra[0])
    elif error.validator == "required":
        missing = _missing_key(error)
        if missing is not None:
            where = json_path("$", *path, missing)
    described = error.schema.get("description") if isinstance(error.schema, dict) else None
    context = {"hint": f"expected: {described}"} if isinstance(described, str) else {}
    raise Refusal(code, f"{what}: {error.message}", where, **context)


def _extra_keys(error: ValidationError) -> list[str]:
    allowed = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
    instance = error.instance if isinstance(error.instance, dict) else {}
    return sorted(key for key in instance if key not in allowed)


def _missing_key(error: ValidationError) -> str | None:
    required = error.validator_value if isinstance(error.validator_value, list) else []
    instance = error.instance if isinstance(error.instance, dict) else {}
    return next((key for key in required if key not in instance), None)


def kinds_of(artifact: str, version: int) -> list[str]:
    """The plan kinds a schema admits (``mutations.items.properties.kind.enum``)."""
    schema = load_schema(artifact, version)  # the validator's own schema, without building it
    return list(schema["properties"]["mutations"]["items"]["properties"]["kind"]["enum"])
