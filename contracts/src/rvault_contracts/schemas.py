"""The contract registry and schema validation.

``registry.json`` names, for every artifact that crosses a package boundary,
its versions, the schema file of each version, the producing package and the
consuming packages. Schemas are JSON Schema Draft 2020-12, shipped as package
data, and refer to each other by ``$id`` (``urn:rvault:<artifact>:v<N>``), so
consumers never reach for files by relative path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from rvault_contracts.ecma_regex import ecma_to_python
from rvault_contracts.issues import Issue
from rvault_contracts.strict_json import json_path

SCHEMA_ID_PREFIX = "urn:rvault:"


def schema_id(artifact: str, version: int) -> str:
    return f"{SCHEMA_ID_PREFIX}{artifact}:v{version}"


@dataclass(frozen=True)
class ArtifactEntry:
    id: str
    producer: str
    consumers: tuple[str, ...]
    versions: dict[int, str]
    description: str


def _package_files() -> Any:
    return resources.files("rvault_contracts")


@cache
def registry() -> dict[str, ArtifactEntry]:
    """The parsed registry, keyed by artifact id."""
    raw = json.loads((_package_files() / "registry.json").read_text(encoding="utf-8"))
    entries: dict[str, ArtifactEntry] = {}
    for artifact_id, body in raw["artifacts"].items():
        entries[artifact_id] = ArtifactEntry(
            id=artifact_id,
            producer=body["producer"],
            consumers=tuple(body["consumers"]),
            versions={int(v): path for v, path in body["versions"].items()},
            description=body.get("description", ""),
        )
    return entries


def schema_path(artifact: str, version: int) -> str:
    """The schema file of one version, relative to ``rvault_contracts/schemas``."""
    try:
        return registry()[artifact].versions[version]
    except KeyError:
        raise KeyError(f"no schema registered for {artifact} v{version}") from None


@cache
def load_schema(artifact: str, version: int) -> dict[str, Any]:
    text = (_package_files() / "schemas" / schema_path(artifact, version)).read_text(
        encoding="utf-8"
    )
    return json.loads(text)


@cache
def _resource_registry() -> Registry:
    resources_list = []
    for entry in registry().values():
        for version in entry.versions:
            schema = load_schema(entry.id, version)
            resources_list.append(
                (schema["$id"], Resource(contents=schema, specification=DRAFT202012))
            )
    return Registry().with_resources(resources_list)


@cache
def _compiled_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(ecma_to_python(pattern))


def _pattern_keyword(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _compiled_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# Draft 2020-12 with ``pattern`` evaluated as ECMA-262 (see ecma_to_python).
_Validator = validators.extend(Draft202012Validator, {"pattern": _pattern_keyword})


@cache
def validator(artifact: str, version: int) -> Draft202012Validator:
    """A Draft 2020-12 validator with every registered schema resolvable by ``$id``."""
    return _Validator(
        load_schema(artifact, version),
        registry=_resource_registry(),
        format_checker=_Validator.FORMAT_CHECKER,
    )


# The code of every schema issue, and the keys a list of them has always been
# reported with as refusal context (``Issue.to_dict(SCHEMA_ISSUE_KEYS)``).
SCHEMA_VIOLATION = "schema_violation"
SCHEMA_ISSUE_KEYS = ("message", "path", "validator")


def _json_path(error: ValidationError) -> str:
    return json_path("$", *error.absolute_path)


def schema_issues(artifact: str, version: int, document: Any) -> list[Issue]:
    """Every schema violation, sorted by path, for field-by-field reports.

    Each is the one shared :class:`~rvault_contracts.issues.Issue` (code
    ``schema_violation``, ``validator`` the failed keyword), so an owner adds
    schema findings to its own checks' collector unchanged.
    """
    errors = sorted(
        validator(artifact, version).iter_errors(document),
        key=lambda e: (_json_path(e), e.validator, e.message),
    )
    return [
        Issue(SCHEMA_VIOLATION, _json_path(e), e.message, validator=str(e.validator))
        for e in errors
    ]


def is_valid(artifact: str, version: int, document: Any) -> bool:
    return validator(artifact, version).is_valid(document)
