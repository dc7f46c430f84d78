"""``config.vault_storage_path``: a lexical root assertion, never a redirect.

When present and non-null the value must be a native (POSIX) absolute
locator that is lexically equal to the directory holding
``tracking-database.json``. Nothing is expanded, rebased, translated or
resolved through symlinks, so every foreign or non-canonical form fails
closed instead of being silently repaired.
"""

from __future__ import annotations

import os
import re

# One or more "/segment" parts, or exactly "/". Segments are never empty
# (no "//", no trailing "/"), never "." or "..", and contain neither a
# backslash (a foreign path flavour) nor NUL. The JSON Schema uses the same
# expression.
NATIVE_ABSOLUTE_PATTERN = r"^(?!.*/\.{1,2}(/|$))(/|(/[^/\\\u0000]+)+)$"
_NATIVE_ABSOLUTE = re.compile(NATIVE_ABSOLUTE_PATTERN.replace("\\u0000", "\\x00"))


def storage_path_form_error(value: object) -> str | None:
    """Why ``value`` is not a native absolute locator, or ``None`` when it is."""
    if not isinstance(value, str):
        return "vault_storage_path must be a string or null"
    if not value.strip():
        return "an empty or blank vault_storage_path is not a locator"
    if value.startswith("~"):
        return "~ is never expanded"
    if "\\" in value:
        return "backslashes belong to a foreign path flavour (drive-rooted or device namespace)"
    if len(value) >= 2 and value[1] == ":":
        return "drive-letter forms are not native absolute paths here"
    if not value.startswith("/"):
        return "a relative locator is never rebased"
    if not _NATIVE_ABSOLUTE.match(value):
        return "empty, '.' or '..' segments and trailing separators are not a lexical root"
    return None


def database_parent(database_path: str | os.PathLike[str]) -> str:
    """The lexical parent of the database path (absolute, symlinks untouched)."""
    # Lexical on purpose: Path.resolve() would follow symlinks.
    return os.path.dirname(os.path.abspath(os.fspath(database_path)))  # noqa: PTH100, PTH120
