"""From the paths a person names to the returns they hold, each file classified once.

The aggregator audits whatever returns a vault kept (a batch file per
persist, a directory of them, a harvest of old ones), so it takes files and
directories alike. Directories are walked without following links, every
file is resolved, de-duplicated and sorted, so naming a directory and a file
inside it never doubles a recurrence count, and the report lists inputs in
one order on every machine.

A file is ``accepted`` (a return document with at least one return carrying
feedback), ``rejected`` (valid JSON that carries no feedback: not a return
document, an empty batch, returns without ``catalog_feedback``) or
``invalid`` (unreadable, not strict JSON, or a malformed return). A rejected
file is not an error: most historical returns predate the feedback lanes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_returns_persistence.returns_file import ReturnsFileWording, read_returns_file

# One kept batch file is a few MiB; the bound keeps a hostile file from exhausting memory.
MAX_FILE_BYTES = 64 * 1024 * 1024

ACCEPTED = "accepted"
REJECTED = "rejected"
INVALID = "invalid"

_WORDING = ReturnsFileWording(
    not_regular="not a regular file (a symlink or a special file is not read)",
    not_regular_hint="name the returns file itself or a directory holding it",
    unreadable="cannot read the file: {reason}",
    unreadable_hint="check the path and its permissions",
    too_large="the file exceeds {limit} bytes",
    too_large_hint="split the batch file; one batch of returns is a few MiB",
    invalid="{detail}",
    invalid_hint="the file is not strict JSON (UTF-8, no duplicate keys, no NaN/Infinity)",
)


@dataclass(frozen=True)
class ReturnRef:
    """One return document and where it came from."""

    source: str
    index: int
    document: Any


@dataclass
class InputFile:
    """One concrete file with its classification and the returns it yielded."""

    source: str
    status: str
    code: str | None = None
    message: str | None = None
    returns: list[ReturnRef] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "return_count": len(self.returns),
            "source": self.source,
            "status": self.status,
        }


def label(path: Path, base: Path | None) -> str:
    """The name a report gives a file: vault-relative when inside ``base``, else as typed.

    Never absolute: the report is an artifact and must read the same on every machine.
    """
    resolved = path.resolve()
    if base is not None:
        try:
            return resolved.relative_to(base.resolve()).as_posix()
        except ValueError:
            pass
    return Path(os.path.relpath(resolved)).as_posix()


def concrete_files(paths: Sequence[Path], base: Path | None) -> tuple[list[Path], list[InputFile]]:
    """The files named or contained, sorted and unique, plus records for empty directories."""
    found: dict[Path, Path] = {}
    empty: list[InputFile] = []
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            inside = list(_json_files(path))
            if not inside:
                empty.append(
                    InputFile(
                        label(path, base),
                        REJECTED,
                        "directory_without_json",
                        "the directory holds no *.json file",
                    )
                )
            for file in inside:
                found.setdefault(file.resolve(), file)
        else:
            found.setdefault(path.resolve() if path.exists() else path.absolute(), path)
    files = sorted(found.values(), key=lambda p: label(p, base))
    return files, empty


def _json_files(directory: Path) -> Iterator[Path]:
    for root, dirs, names in os.walk(directory, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".json"):
                yield Path(root, name)


def read_input(path: Path, base: Path | None) -> InputFile:
    """Read one file; a refusal of the bounded strict reader classifies it ``invalid``."""
    source = label(path, base)
    try:
        document = read_returns_file(path, max_bytes=MAX_FILE_BYTES, wording=_WORDING)
    except Refusal as refusal:
        return InputFile(source, INVALID, refusal.code, refusal.message)
    items = returns_of(document)
    if items is None:
        return InputFile(
            source, REJECTED, "not_a_return_document", "the JSON is not a return or a batch of them"
        )
    if not items:
        return InputFile(source, REJECTED, "no_returns", "the batch holds no returns")
    refs = [ReturnRef(source, index, item) for index, item in enumerate(items)]
    return InputFile(source, ACCEPTED, returns=refs)


def returns_of(document: Any) -> list[Any] | None:
    """The returns a document holds, or ``None`` when it is no return document at all.

    Shapes: one return; an array of returns; ``{"returns": [...]}`` (a batch
    wrapper, also a harvest of old feedback); an object batch keyed by filename,
    the shape ``validate`` and ``persist`` read.
    """
    if isinstance(document, list):
        return document
    if not isinstance(document, dict):
        return None
    if isinstance(document.get("returns"), list):
        return document["returns"]
    if "filename" in document:
        return [document]
    values = list(document.values())
    if values and all(isinstance(v, dict) and "filename" in v for v in values):
        return [document[key] for key in sorted(document)]
    return None
