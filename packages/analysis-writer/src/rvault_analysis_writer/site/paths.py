"""No absolute path reaches the site: a path inside the vault is shown vault-relative.

A site is copied, published and opened on other machines, and an absolute
path (``/tmp/rvault-demo/vault/slides-rebuild/...`` in a worker's
``video_extraction`` object, a home directory in its notes) is noise to a
reader and a leak to everyone else. Every string of a talk's view passes
through :func:`scrub_view`: an absolute POSIX or Windows path below the
vault root becomes its vault-relative form, any other absolute path
becomes ``[path outside the vault]``. URLs are left alone.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any, TypeVar

OUTSIDE = "[path outside the vault]"
_ABSOLUTE = re.compile(
    r"""(?<![^\s"'(\[=,;])(?:/|[A-Za-z]:\\)(?:[^\s<>"'`|*?\\/]+[\\/])*[^\s<>"'`|*?\\/,;)]*"""
)

T = TypeVar("T")


class Scrubber:
    def __init__(self, vault_root: Path) -> None:
        self.roots = sorted(
            {os.path.abspath(vault_root), os.path.realpath(vault_root)},  # noqa: PTH100
            key=len,
            reverse=True,
        )

    def _one(self, match: re.Match[str]) -> str:
        path = match.group(0)
        if path == "/":
            return path
        for root in self.roots:
            if path == root:
                return "."
            if path.startswith(root.rstrip("/") + "/"):
                return path[len(root.rstrip("/")) + 1 :]
        return OUTSIDE

    def text(self, value: str) -> str:
        return _ABSOLUTE.sub(self._one, value) if ("/" in value or ":\\" in value) else value

    def any(self, value: T) -> T:
        """Every string inside ``value`` (tuples, lists, frozen dataclasses) scrubbed."""
        result: Any = value
        if isinstance(value, str):
            result = self.text(value)
        elif isinstance(value, tuple):
            result = tuple(self.any(item) for item in value)
        elif isinstance(value, list):
            result = [self.any(item) for item in value]
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {f.name: self.any(getattr(value, f.name)) for f in dataclasses.fields(value)}
            result = dataclasses.replace(value, **changes)
        return result
