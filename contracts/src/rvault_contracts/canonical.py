"""Canonical JSON encoding and SHA-256 digests.

Receipts bind artifacts by hash, so producer and verifier must encode the
same value to the same bytes. There is exactly one canonical form: object
keys sorted by code point, separators ``,`` and ``:`` with no whitespace,
non-ASCII characters written as UTF-8 (not ``\\u`` escapes), floats in
Python's shortest round-trip ``repr``, NaN/Infinity refused. The published
vectors in ``rvault_contracts/vectors/canonical-v1.json`` pin it down for any
other implementation.

Artifacts written for people (reports, manifests on disk) use
:func:`artifact_bytes`: the same key order and escaping, two-space indent,
and a final LF, so that files are deterministic and diff well.
"""

from __future__ import annotations

import hashlib
import json
import re

# pathlib and typing only name types here; a refusal printed before any command ran
# (a usage error) then costs no more than the encoding it needs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CANONICAL_VERSION = 1


def canonical_bytes(value: Any) -> bytes:
    """The canonical UTF-8 encoding of a JSON value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def artifact_bytes(value: Any) -> bytes:
    """Deterministic human-readable encoding: sorted keys, indent 2, trailing LF.

    The standard library indents in pure Python (its C encoder runs only
    without ``indent``): about 20 ms per MB, 0.85 s for a 10,000-talk status
    report. A large document is written by orjson instead, and only when
    orjson is proven to spell it exactly as the standard library would: the
    two encoders differ only in how some floats are spelled (``1e-05``
    against ``0.00001``) and in what they refuse (orjson writes NaN as
    ``null`` and cannot write integers beyond 64 bits), so orjson's compact
    encoding must equal the standard library's C-encoded compact one (which
    refuses NaN) byte for byte. Anything else is indented by the standard
    library, which also raises its own errors.
    """
    try:
        compact = canonical_bytes(value)
    except (TypeError, ValueError, RecursionError):
        compact = b""  # the standard library below raises its own error
    if len(compact) >= ORJSON_MIN_BYTES:
        fast = _orjson_artifact(value, compact)
        if fast is not None:
            return fast
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


# Below this size the standard library's indenting costs less than importing
# orjson (about 10 ms: it imports datetime, uuid and platform).
ORJSON_MIN_BYTES = 1 << 20


def _orjson_artifact(value: Any, compact: bytes) -> bytes | None:
    """orjson's artifact encoding of ``value`` when it spells ``compact`` exactly, else None."""
    import orjson

    try:
        if orjson.dumps(value, option=orjson.OPT_SORT_KEYS) != compact:
            return None
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    except TypeError:  # orjson.JSONEncodeError: a type, a big integer, a surrogate, depth
        return None


def sha256_bytes(data: bytes) -> str:
    """Lower-case hex SHA-256 of raw bytes."""
    return hashlib.sha256(data).hexdigest()


def payload_sha256(value: Any) -> str:
    """SHA-256 of the canonical encoding (e.g. ``result_payload_sha256``)."""
    return sha256_bytes(canonical_bytes(value))


def file_sha256(path: str | Path, *, chunk_size: int = 1 << 20) -> str:
    """SHA-256 over a file's exact bytes, streamed."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def is_sha256_hex(value: object) -> bool:
    """True for a 64-character lower-case hex digest.

    A compiled ``fullmatch``: claim validation checks this for every digest of
    every historical claim, hundreds of thousands of times on a large vault.
    """
    return isinstance(value, str) and _SHA256_HEX.fullmatch(value) is not None
