"""Re-encoding only the talks a queue operation changed.

The owner encoding (``canonical.artifact_bytes``: sorted keys, two-space
indent) goes through Python's pure encoder and costs seconds on a large
vault, while a claim changes five talks. When the input bytes are in that
canonical layout, each talk of the ``talks`` array is one ``    {`` ...
``    }`` block (JSON strings cannot contain raw newlines, so line structure
is unambiguous), and the canonical encoding of the whole candidate is the
input with exactly those blocks replaced. Every assumption is checked; when
any fails (hand-formatted file, different talk count, a changed block that
does not decode to the talk it replaces, another top-level change) the
caller falls back to encoding the whole candidate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rvault_contracts.canonical import artifact_bytes

_OPEN = b'\n  "talks": [\n'
_ELEMENT_START = b"    {\n"
_CLOSE = b"\n    }"


def nested_artifact(value: Any, indent: bytes) -> bytes:
    """``value``'s canonical artifact encoding (without the final LF) as it reads
    nested ``indent`` deep: every line after the first gains ``indent``.

    Byte-wise is safe: an LF byte never occurs inside a multi-byte UTF-8 character.
    """
    return artifact_bytes(value)[:-1].replace(b"\n", b"\n" + indent)


def _encode_talk(talk: Any) -> bytes:
    return b"    " + nested_artifact(talk, b"    ")


_SEPARATOR = _CLOSE + b",\n" + _ELEMENT_START
_LAST = _CLOSE + b"\n  ]"


def talk_spans(data: bytes, count: int) -> list[tuple[int, int]] | None:
    """``[start, end)`` of every talk object in canonical bytes, or ``None``.

    Works on the bytes themselves: decoding a 100 MB vault to text and
    encoding it back would cost more than the claim. Consecutive talks are
    found by their whole ``\n    },\n    {\n`` separator (a line at indent 4
    inside a talk is impossible in the canonical layout), which
    ``bytes.find`` skips to about twice as fast as the bare ``\n    }``.
    """
    opening = data.find(_OPEN)
    if opening < 0 or count == 0:
        return None
    position = opening + len(_OPEN)
    if not data.startswith(_ELEMENT_START, position):
        return None
    spans: list[tuple[int, int]] = []
    for _ in range(count - 1):
        boundary = data.find(_SEPARATOR, position)
        if boundary < 0:
            return None
        end = boundary + len(_CLOSE)
        spans.append((position, end))
        position = boundary + len(_SEPARATOR) - len(_ELEMENT_START)
    last = data.find(_LAST, position)
    if last < 0:
        return None
    spans.append((position, last + len(_CLOSE)))
    return spans


def splice(
    original: bytes,
    before: Mapping[str, Any],
    candidate: Mapping[str, Any],
    changed: Sequence[int],
) -> bytes | None:
    """The canonical bytes of ``candidate`` built from ``original``, or ``None``."""
    old_talks, new_talks = before.get("talks"), candidate.get("talks")
    if not isinstance(old_talks, list) or not isinstance(new_talks, list):
        return None
    if len(old_talks) != len(new_talks) or set(before) != set(candidate):
        return None
    if any(candidate[key] is not before[key] for key in before if key != "talks"):
        return None
    changed_set = set(changed)
    if any(new_talks[i] is not old_talks[i] for i in range(len(old_talks)) if i not in changed_set):
        return None
    if not original.startswith(b"{\n") or not original.endswith(b"\n}\n"):
        return None
    spans = talk_spans(original, len(old_talks))
    if spans is None:
        return None
    return replace_spans(
        original,
        ((*spans[i], old_talks[i], new_talks[i]) for i in sorted(changed_set)),
        _encode_talk,
    )


def replace_spans(
    original: bytes,
    replacements: Iterable[tuple[int, int, Any, Any]],
    encode: Callable[[Any], bytes],
) -> bytes | None:
    """``original`` with each ``(start, end, old, new)`` span, in ascending order,
    replaced by ``encode(new)``; ``None`` when a span is not exactly ``encode(old)``.

    The old value re-encoding to exactly the segment proves the segment is that
    value. Works through a memoryview, so a large vault is neither decoded to
    text nor copied piecewise before the final join.
    """
    view = memoryview(original)
    pieces: list[bytes | memoryview] = []
    cursor = 0
    for start, end, old, new in replacements:
        if view[start:end] != encode(old):
            return None
        pieces.append(view[cursor:start])
        pieces.append(encode(new))
        cursor = end
    pieces.append(view[cursor:])
    return b"".join(pieces)
