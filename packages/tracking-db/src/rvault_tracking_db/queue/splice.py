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

import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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
    indices = sorted(changed_set)
    return replace_spans(
        original,
        ((*spans[i], old, new) for i, old, new in _encoded(old_talks, new_talks, indices)),
        _as_encoded,
    )


# Between two non-empty objects of a list in the artifact layout (items at
# indent 2; anything nested sits deeper, and a string holds no raw newline).
_ITEM_SEPARATOR = b"\n  },\n  {\n"
_ITEMS_OPEN, _ITEMS_CLOSE = b"[\n  {\n", b"\n  }\n]\n"
# Talks encoded together: a few MB of realistic talks (orjson's size), a
# few MB held at a time.
_CHUNK = 256


def _encoded(
    old_talks: list[Any], new_talks: list[Any], indices: list[int]
) -> Iterator[tuple[int, bytes, bytes]]:
    """``(index, old talk's bytes, new talk's bytes)``, a chunk of talks at a time."""
    return encoded_pairs([(i, old_talks[i], new_talks[i]) for i in indices])


def encoded_pairs(
    changes: Sequence[tuple[int, Any, Any]],
) -> Iterator[tuple[int, bytes, bytes]]:
    """Each ``(index, old talk, new talk)`` as ``(index, old bytes, new bytes)``, encoded
    :data:`_CHUNK` changes at a time by :func:`encoded_talks`."""
    for offset in range(0, len(changes), _CHUNK):
        chunk = changes[offset : offset + _CHUNK]
        talks = [*(old for _, old, _ in chunk), *(new for _, _, new in chunk)]
        encoded = encoded_talks(talks) or [_encode_talk(talk) for talk in talks]
        count = len(chunk)
        indices = (index for index, _, _ in chunk)
        yield from zip(indices, encoded[:count], encoded[count:], strict=True)


def _as_encoded(encoded: bytes) -> bytes:
    return encoded


def encoded_talks(talks: list[Any]) -> list[bytes] | None:
    """Each talk's :func:`_encode_talk` bytes from ONE ``artifact_bytes`` of the list.

    Encoding talk by talk indents each in pure Python (a normalize that
    changes 10,000 realistic talks encodes 20,000 of them, about 4 s);
    ``artifact_bytes`` of the list is the same encoding, and writes a large
    one with orjson where that is proven to spell it the same. The list's
    items are at indent 2, so each talk's block is found by its separator
    and indented two more. None (encode one by one) unless every talk is a
    non-empty object and the blocks are exactly one per talk.
    """
    if len(talks) < 2 or not all(isinstance(talk, dict) and talk for talk in talks):
        return None
    data = artifact_bytes(talks)
    if not data.startswith(_ITEMS_OPEN) or not data.endswith(_ITEMS_CLOSE):
        return None
    blocks = data[len(_ITEMS_OPEN) : -len(_ITEMS_CLOSE)].split(_ITEM_SEPARATOR)
    if len(blocks) != len(talks):
        return None
    return [b"    {\n  " + block.replace(b"\n", b"\n  ") + b"\n    }" for block in blocks]


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


# Half :data:`_CHUNK`: the old talks wait decoded until their chunk is encoded (10,000
# talks: 10 MB less at the peak), and 128 realistic talks, old and new, are still past
# the size ``artifact_bytes`` writes with orjson.
_STREAMED_CHUNK = _CHUNK // 2


class StreamedSplice:
    """:func:`splice`'s bytes built while the talks go by, without the decoded talks.

    A reader that streams the talks (``rvault-db queue normalize``) hands over
    each changed talk, old and new value, in ascending order; they are
    encoded like :func:`splice` encodes them (:func:`encoded_pairs`), each
    old block proven against the input bytes, and the output is written as
    it goes: the input up to the talk, then its new block. What is held is
    the input, the output so far and one chunk of talks, never the tree.

    :meth:`finish` gives :func:`splice`'s answer for the same input and
    changes: None wherever :func:`splice` gives None (not the artifact
    framing, a block that is not the old talk's encoding), and the spans it
    used must be the ones :func:`talk_spans` finds for the talk count.
    """

    def __init__(self, original: bytes) -> None:
        self._original = original
        self._view = memoryview(original)
        self._output: io.BytesIO | None = None  # made by the first write
        self._cursor = 0  # input bytes before it are written out
        self._pending: list[tuple[int, Any, Any]] = []
        self._used: list[tuple[int, int, int]] = []
        opening = original.find(_OPEN)
        self._index, self._position = 0, opening + len(_OPEN)
        self._next = -1  # where the separator after talk ``_index`` starts, once found
        self._end = original.find(_LAST, self._position)  # the talks' list closes there
        self.ok = (
            original.startswith(b"{\n")
            and original.endswith(b"\n}\n")
            and opening >= 0
            and self._end >= 0
            and original.startswith(_ELEMENT_START, self._position)
        )

    def replace(self, index: int, old: Any, new: Any) -> None:
        """Talk ``index`` (after every one given before) changes from ``old`` to ``new``."""
        self._pending.append((index, old, new))
        if len(self._pending) == _STREAMED_CHUNK:
            self._flush()

    def finish(self, count: int) -> bytes | None:
        """The candidate's bytes for ``count`` talks, or None (see the class)."""
        self._flush()
        if not self.ok:
            return None
        spans = talk_spans(self._original, count)
        if spans is None or any(spans[i] != (start, end) for i, start, end in self._used):
            return None
        output = self._buffer()
        output.write(self._view[self._cursor :])
        output.truncate()  # the zeroes not written over
        self._output = None
        return output.getvalue()  # the buffer itself, not a copy, once nothing else holds it

    def _buffer(self) -> io.BytesIO:
        """The output, written over a zeroed buffer the input's size plus an eighth.

        ``bytes(n)`` is calloc'd, so its pages cost memory only once written,
        and a large one is its own mapping, which grows in place. Grown from
        empty instead, the buffer was copied once on the way (10,000 talks:
        73 MB more at the peak).
        """
        if self._output is None:
            self._output = io.BytesIO(bytes(len(self._original) + len(self._original) // 8))
        return self._output

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        if not self.ok:
            return
        for index, old, new in encoded_pairs(pending):
            start, end = self._span(index)
            if end < 0 or self._view[start:end] != old:
                self.ok = False
                return
            output = self._buffer()
            output.write(self._view[self._cursor : start])
            output.write(new)
            self._cursor = end
            self._used.append((index, start, end))

    def _span(self, index: int) -> tuple[int, int]:
        """Talk ``index``'s ``[start, end)`` (end -1: not found), found like :func:`talk_spans`.

        A talk ends at the separator that follows it or, the last one, where
        the list closes (the first ``\\n    }\\n  ]`` after the first talk:
        nothing inside the list sits at indent 2), whichever comes first;
        each separator is searched for once.
        """
        while True:
            if self._next < 0:
                self._next = self._original.find(_SEPARATOR, self._position, self._end)
            if self._index == index:
                end = self._end if self._next < 0 else self._next
                return self._position, end + len(_CLOSE)
            if self._next < 0:
                return 0, -1  # fewer talks than ``index``
            self._index += 1
            self._position = self._next + len(_SEPARATOR) - len(_ELEMENT_START)
            self._next = -1
