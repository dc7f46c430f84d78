"""Where a transcript may be written: ``{vault_root}/transcripts/{id}.txt``.

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
from pathlib import Path

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
