"""YAML (``---``), TOML (``+++``) and JSON (``{...}`` or ``---json``) frontmatter.

A page with frontmatter that does not decode to a mapping is reported as
``frontmatter_malformed`` and never guessed at. JSON frontmatter is decoded
with the toolkit's strict decoder (duplicate keys refused); YAML/TOML dates
become ISO strings so the rest of the scanner sees only JSON values.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml
from rvault_contracts.strict_json import StrictJSONError, loads_strict

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Parsed:
    data: dict[str, Any]
    body: str
    format: str | None  # "yaml" | "toml" | "json" | None
    error: str | None = None


MAX_FRONTMATTER_VALUES = 100_000
MAX_FRONTMATTER_DEPTH = 200


def _jsonable(value: Any, budget: list[int], depth: int = 0) -> Any:
    """A plain JSON tree of bounded size and depth.

    YAML aliases share one object many times over (a "billion laughs" page
    expands exponentially), so the copy counts every value it produces and
    gives up, as malformed frontmatter, past a generous budget.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"frontmatter expands to more than {MAX_FRONTMATTER_VALUES} values")
    if depth > MAX_FRONTMATTER_DEPTH:
        raise ValueError(f"frontmatter nests deeper than {MAX_FRONTMATTER_DEPTH} levels")
    if isinstance(value, dt.date):  # also a datetime (a date subclass)
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v, budget, depth + 1) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("frontmatter holds a non-finite number (.nan/.inf), not a JSON value")
    if value is not None and not isinstance(value, str | int | float):
        # YAML !!binary (bytes), !!set and the like have no JSON form
        raise ValueError(f"frontmatter holds a {type(value).__name__} value, not a JSON value")
    return value


def _fenced(text: str, fence: str) -> tuple[str, str] | None:
    """(inner, body) for a block opened by ``fence`` on line 1 and closed by it later."""
    lines = text.split("\n")
    for index in range(1, len(lines)):
        stripped = lines[index].rstrip("\r")
        if stripped == fence or (fence == "---" and stripped == "..."):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :])
    return None


def parse(text: str) -> Parsed:
    if text.startswith("\ufeff"):
        text = text[1:]
    first = text.split("\n", 1)[0].rstrip("\r").strip()
    try:
        if first == "---json" or first == ";;;":
            block = _fenced(text, "---" if first == "---json" else ";;;")
            if block is None:
                return Parsed({}, text, "json", "unterminated frontmatter")
            return _mapping(loads_strict(block[0]), block[1], "json")
        if first == "---":
            block = _fenced(text, "---")
            if block is None:
                return Parsed({}, text, "yaml", "unterminated frontmatter")
            loaded = yaml.load(block[0], Loader=_LOADER) if block[0].strip() else {}
            return _mapping(loaded, block[1], "yaml")
        if first == "+++":
            block = _fenced(text, "+++")
            if block is None:
                return Parsed({}, text, "toml", "unterminated frontmatter")
            return _mapping(tomllib.loads(block[0]), block[1], "toml")
        if text.lstrip().startswith("{"):
            stripped = text.lstrip()
            _, end = json.JSONDecoder().raw_decode(stripped)
            return _mapping(loads_strict(stripped[:end]), stripped[end:], "json")
    except (
        yaml.YAMLError,
        tomllib.TOMLDecodeError,
        StrictJSONError,
        ValueError,
        RecursionError,  # deeply nested TOML, or the raw JSON frontmatter scan
    ) as exc:
        return Parsed({}, text, None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    return Parsed({}, text, None)


def _mapping(value: Any, body: str, kind: str) -> Parsed:
    if value is None:
        value = {}
    if not isinstance(value, dict):
        return Parsed({}, body, kind, "frontmatter is not a mapping")
    return Parsed(_jsonable(value, [MAX_FRONTMATTER_VALUES]), body, kind)
