"""Validation findings as values: a stable code, a JSON path and a message."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Issue:
    code: str
    path: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "path": self.path, "message": self.message}


def is_int(value: object) -> bool:
    """An exact JSON integer (booleans are not integers here)."""
    return type(value) is int


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_nonempty_str(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


@lru_cache(maxsize=1024)
def _member(key: str) -> str:
    return f"[{json.dumps(key)}]"


def jp(base: str, *keys: str | int) -> str:
    """A JSON path in the notation ``strict_json`` and the owner assessment use.

    Built for every validated claim field over a small vocabulary of keys,
    hence the cached member spelling.
    """
    out = base
    for key in keys:
        out += f"[{key}]" if isinstance(key, int) else _member(key)
    return out
