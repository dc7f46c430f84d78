"""Where a transcript may be written (``{vault_root}/transcripts/{id}.txt``), and how it is named.

One path rule for every tool: a path typed on the command line (``--out``,
``OUT.txt``, ``--vault-root``, ``--audio``) is relative to the working
directory; only locators stored in artifacts are vault-relative. The fetch
result is read later by another command that may run elsewhere
(``rvault-db register-transcript DB fetch.json --fetch-result`` reads its
paths against the database's vault), so :func:`result_locators` prints what
the bundle *is*, not what was typed: ``transcripts/{name}`` computed from the
resolved path and the vault root when the root is known, the lexical
absolute path otherwise.

The bundle writer refuses a symlinked transcript or sidecar, but a symlinked
``transcripts/`` directory would still send every byte outside the vault
while the paths look right. When the vault root is known (``--vault-root``,
or the tracking database found in a directory above the output) every
component from the root down to the transcript directory must be a real
directory. The root itself may be a symlink: it is how the vault is located.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

DATABASE_NAME = "tracking-database.json"
TRANSCRIPTS_DIR = "transcripts"


def _lexical(path: Path) -> Path:
    return Path(os.path.normpath(path.absolute()))


def find_vault_root(out: Path) -> Path | None:
    """The nearest directory above ``out`` that holds the tracking database (lexically)."""
    for directory in _lexical(out).parents:
        try:
            if stat.S_ISREG(os.lstat(directory / DATABASE_NAME).st_mode):
                return directory
        except OSError:
            continue
    return None


def check_output_location(out: Path, vault_root: Path | None) -> Path | None:
    """Refuse an output outside ``{vault_root}/transcripts/`` or below a symlink.

    Returns the vault root used (given or found), or None when none is known.
    """
    root = vault_root if vault_root is not None else find_vault_root(out)
    if root is None:
        return None
    if not root.is_dir():
        raise Refusal("vault_root_missing", "the vault root is not a directory", str(root))
    base, target = _lexical(root), _lexical(out)
    try:
        relative = target.relative_to(base)
    except ValueError:
        raise Refusal(
            "output_outside_vault",
            f"the transcript must be written below {base / TRANSCRIPTS_DIR}",
            str(out),
            hint=f"pass --out {base / TRANSCRIPTS_DIR / out.name}",
        ) from None
    if relative.parts[:1] != (TRANSCRIPTS_DIR,) or len(relative.parts) != 2:
        raise Refusal(
            "output_outside_transcripts",
            f"the transcript must be written directly in {base / TRANSCRIPTS_DIR}",
            str(out),
            hint=f"pass --out {base / TRANSCRIPTS_DIR / out.name}",
        )
    directory = base / TRANSCRIPTS_DIR
    try:
        mode = os.lstat(directory).st_mode
    except FileNotFoundError:
        raise Refusal(
            "output_directory_missing", "the transcript directory does not exist", str(directory)
        ) from None
    if stat.S_ISLNK(mode):
        raise Refusal(
            "symlink_refused",
            "the vault's transcripts/ directory is a symlink; transcripts stay inside the vault",
            str(directory),
            hint="replace the link with a real directory (move the files into the vault)",
        )
    return base


RESULT_PATHS = ("transcript_path", "timed_path", "quality_path")


def artifact_locator(path: Path, vault_root: Path | None) -> str:
    """How an artifact at ``path`` (typed: relative to the working directory) is named.

    Vault-relative with ``/`` separators when ``path`` lies below ``vault_root``
    (lexically, like :func:`check_output_location`), else the lexical absolute
    path: a relative spelling is never printed, since its reader would take it
    as vault-relative.
    """
    target = _lexical(path)
    if vault_root is not None:
        try:
            return target.relative_to(_lexical(vault_root)).as_posix()
        except ValueError:
            pass
    return str(target)


def result_locators(
    document: Mapping[str, Any], out: Path, vault_root: Path | None
) -> dict[str, Any]:
    """A fetch result whose transcript/timing/quality paths are locators, not typed paths.

    ``vault_root`` is the one given (``--vault-root``); otherwise the tracking
    database found above ``out``, as the output check found it.
    """
    root = vault_root if vault_root is not None else find_vault_root(out)
    located = dict(document)
    for key in RESULT_PATHS:
        value = located.get(key)
        if isinstance(value, str):
            located[key] = artifact_locator(Path(value), root)
    return located
