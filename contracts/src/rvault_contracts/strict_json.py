"""Strict JSON decoding shared by every owner.

The standard library accepts inputs that silently change meaning: duplicate
keys (last one wins), NaN/Infinity, numbers that lose precision, lone UTF-16
surrogates. A vault artifact read with such a decoder could be rewritten with
different values than a reviewer saw, so every reader and plan decoder in the
toolkit goes through :func:`loads_strict`, and each class of bad input fails
with its own stable code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

MAX_DEPTH = 200

# Stable error codes, one per rule. They appear in reports and tests.
INVALID_UTF8 = "invalid_utf8"
UTF8_BOM = "utf8_bom"
INVALID_JSON = "invalid_json"
DUPLICATE_KEY = "duplicate_key"
NON_FINITE_NUMBER = "non_finite_number"
NUMBER_NOT_ROUND_TRIPPABLE = "number_not_round_trippable"
NESTING_TOO_DEEP = "nesting_too_deep"
UNPAIRED_SURROGATE = "unpaired_surrogate"
ROOT_NOT_OBJECT = "root_not_object"

ERROR_CODES = frozenset(
    {
        INVALID_UTF8,
        UTF8_BOM,
        INVALID_JSON,
        DUPLICATE_KEY,
        NON_FINITE_NUMBER,
        NUMBER_NOT_ROUND_TRIPPABLE,
        NESTING_TOO_DEEP,
        UNPAIRED_SURROGATE,
        ROOT_NOT_OBJECT,
    }
)


@dataclass(eq=False)
class StrictJSONError(Exception):
    """A refused document. ``path`` is a JSON path ("$" is the root).

    Not frozen: the interpreter and ``contextlib`` assign ``__traceback__``
    while an exception unwinds, which a frozen dataclass refuses.
    """

    code: str
    message: str
    path: str = "$"

    def __str__(self) -> str:
        return f"{self.code} at {self.path}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "path": self.path}


class _Refusal(Exception):
    """Raised from decoder hooks; converted to StrictJSONError with a path later."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):  # rare: find the key for the message
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refusal(DUPLICATE_KEY, f"duplicate object key {key!r}")
            seen.add(key)
    return result


def _parse_constant(name: str) -> Any:
    raise _Refusal(NON_FINITE_NUMBER, f"non-finite number {name} is not JSON")


def _parse_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")) or value != value:
        raise _Refusal(NON_FINITE_NUMBER, f"number {literal} overflows to a non-finite value")
    # The toolkit re-encodes floats with repr(); the literal must denote the
    # same mathematical value as what would be written back.
    written = repr(value)
    if written != literal and Decimal(written) != Decimal(literal):
        raise _Refusal(
            NUMBER_NOT_ROUND_TRIPPABLE,
            f"number {literal} would change value to {value!r} when re-encoded",
        )
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs_hook,
    parse_constant=_parse_constant,
    parse_float=_parse_float,
    strict=True,
)

# A lone surrogate can only come from a \uD800-\uDFFF escape (the bytes were
# strictly decoded UTF-8), so documents without such an escape skip the walk.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_KEEP_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_STRING_BODY = re.compile(rb'"[^"]*"')
_TO_PARENS = bytes.maketrans(b"[{]}", b"(())")


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _walk(value: Any) -> Iterator[tuple[str, Any, int]]:
    """Yield (path, value, depth) for every node, iteratively (no recursion limit)."""
    stack: list[tuple[str, Any, int]] = [("$", value, 0)]
    while stack:
        path, node, depth = stack.pop()
        if isinstance(node, dict):
            depth += 1
            yield path, node, depth
            for key, child in node.items():
                stack.append((json_path(path, key), child, depth))
        elif isinstance(node, list):
            depth += 1
            yield path, node, depth
            for index, child in enumerate(node):
                stack.append((f"{path}[{index}]", child, depth))
        else:
            yield path, node, depth


def _structure_depth_exceeds(data: bytes, max_depth: int) -> bool:
    """Whether valid JSON ``data`` nests more than ``max_depth`` containers.

    Only the container structure is kept, with byte operations that run in
    C: escaped backslashes and escaped quotes are dropped (left-to-right,
    exactly as JSON tokenizes escapes), every byte but brackets and quotes
    is deleted, and string bodies are cut out. Quotes alternate open/close,
    so deleting any two adjacent quotes keeps every remaining bracket on its
    side of a string boundary; that clears the many bracket-free strings
    cheaply before the regex handles the few left. Each pass then deletes every
    innermost ``()`` pair, i.e. one nesting level, so the document is deeper
    than ``max_depth`` exactly when brackets remain after ``max_depth``
    passes; typical documents finish in a handful of passes.
    """
    if data.count(b"[") + data.count(b"{") <= max_depth:
        return False
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = data.translate(None, _KEEP_STRUCTURE).replace(b'""', b"")
    structure = _STRING_BODY.sub(b"", skeleton).translate(_TO_PARENS)
    for _ in range(max_depth):
        if not structure:
            return False
        shorter = structure.replace(b"()", b"")
        if len(shorter) == len(structure):
            return False  # cannot happen for valid JSON; be safe
        structure = shorter
    return bool(structure)


def check_value(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Apply the post-decode gates (depth, Unicode scalars) to a decoded value."""
    for path, node, depth in _walk(value):
        if depth > max_depth:
            raise StrictJSONError(
                NESTING_TOO_DEEP, f"more than {max_depth} nested containers", path
            )
        if isinstance(node, str) and _has_surrogate(node):
            raise StrictJSONError(UNPAIRED_SURROGATE, "unpaired UTF-16 surrogate escape", path)
        if isinstance(node, dict):
            for key in node:
                if _has_surrogate(key):
                    raise StrictJSONError(
                        UNPAIRED_SURROGATE, "unpaired UTF-16 surrogate escape in key", path
                    )


def loads_strict_any(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one strict JSON value of any type."""
    if isinstance(data, bytes):
        raw = data
        if data.startswith(b"\xef\xbb\xbf"):
            raise StrictJSONError(UTF8_BOM, "a UTF-8 byte order mark is not allowed")
        try:
            text = data.decode("utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            raise StrictJSONError(
                INVALID_UTF8, f"invalid UTF-8 at byte {exc.start}: {exc.reason}"
            ) from None
    else:
        text = data
        raw = None
        if text.startswith("\ufeff"):
            raise StrictJSONError(UTF8_BOM, "a byte order mark is not allowed")
    try:
        value, end = _DECODER.raw_decode(text, _skip_ws(text, 0))
    except _Refusal as exc:
        raise StrictJSONError(exc.code, exc.message) from None
    except RecursionError:
        raise StrictJSONError(
            NESTING_TOO_DEEP, f"more than {max_depth} nested containers"
        ) from None
    except json.JSONDecodeError as exc:
        raise StrictJSONError(
            INVALID_JSON, f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except (ValueError, InvalidOperation) as exc:
        if "int" in str(exc) and "digits" in str(exc):  # sys.int_info max str digits
            raise StrictJSONError(
                NUMBER_NOT_ROUND_TRIPPABLE, f"integer literal is too long: {exc}"
            ) from None
        raise StrictJSONError(INVALID_JSON, str(exc)) from None
    end = _skip_ws(text, end)
    if end != len(text):
        raise StrictJSONError(INVALID_JSON, f"extra data after the JSON value at offset {end}")
    # The slow exact walk (which also finds the offending path) runs only when
    # a cheap whole-text check says a rule may be broken.
    if raw is None:
        raw = text.encode("utf-8", errors="surrogatepass")
    if _structure_depth_exceeds(raw, max_depth) or _SURROGATE_ESCAPE.search(text):
        check_value(value, max_depth=max_depth)
    return value


def loads_strict(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Decode exactly one strict JSON object (the shape of every vault document)."""
    value = loads_strict_any(data, max_depth=max_depth)
    if not isinstance(value, dict):
        raise StrictJSONError(
            ROOT_NOT_OBJECT, f"the root must be a JSON object, not {type_name(value)}"
        )
    return value


_WS = " \t\n\r"


def _skip_ws(text: str, index: int) -> int:
    length = len(text)
    while index < length and text[index] in _WS:
        index += 1
    return index


@lru_cache(maxsize=1024)
def _member(key: str) -> str:
    return f"[{json.dumps(key)}]"


def json_path(base: str, *keys: str | int) -> str:
    """The path of ``keys`` below ``base`` in the one notation every report uses.

    ``json_path("$", "talks", 0, "filename")`` is ``$["talks"][0]["filename"]``:
    member names as JSON strings, array indices bare. Owners build a path for
    every record they check (100,000 times for a 10,000-talk vault) over a
    small vocabulary of keys, hence the cached member spelling.
    """
    for key in keys:
        base += f"[{key}]" if isinstance(key, int) else _member(key)
    return base


def is_integer(value: object) -> bool:
    """A JSON integer: booleans are never integers in a vault contract."""
    return type(value) is int


def is_number(value: object) -> bool:
    """A JSON number (integer or float), never a boolean."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_nonblank_string(value: object) -> bool:
    """A string with at least one non-whitespace character."""
    return isinstance(value, str) and bool(value.strip())


def type_name(value: Any) -> str:
    """The JSON type name of a decoded value, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_equal(left: Any, right: Any) -> bool:
    """Exact-type recursive JSON equality.

    ``true``, ``1`` and ``1.0`` are distinct; object key order is irrelevant;
    array order is significant. Python's ``==`` conflates the first three, which
    would let an expectation of ``1`` be satisfied by ``true``.
    """
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, dict):
            if a.keys() != b.keys():
                return False
            stack.extend((a[key], b[key]) for key in a)
        elif isinstance(a, list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif a != b:
            return False
    return True
