"""Where ``write`` and ``site`` may put their output: inside the vault, never through a link.

An analysis or a report is part of the vault, so an output directory that is
a symlink (``vault/analyses -> /elsewhere``), that has a symlink on the way
down from the vault root, or that resolves outside the vault is refused
before anything is rendered, lock file included: the writer's own
no-follow replacement protects the entries it replaces, but not the
directory it was pointed at. A report published elsewhere is allowed only
when the caller says so (``--outside-vault``); even then OUTDIR itself must
be a real directory, not a link to one. This is the rule the video owner
already applies to its output directory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rvault_contracts.cli import Refusal

SYMLINK = "output_directory_symlink"
OUTSIDE = "output_directory_outside_vault"


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _below(path: Path, roots: tuple[Path, ...]) -> tuple[Path, tuple[str, ...]] | None:
    for root in roots:
        try:
            return root, path.relative_to(root).parts
        except ValueError:
            continue
    return None


def _link_refusal(path: Path, outdir: Path) -> Refusal:
    return Refusal(
        SYMLINK,
        f"{path} is a symlink: output is never written through a link",
        str(path),
        hint="name the real directory instead of the link (or remove the link)",
        outdir=str(outdir),
    )


def check_output_directory(outdir: Path, vault_root: Path, *, outside_vault: bool) -> None:
    """Refuse OUTDIR unless it is a real directory (or a new name) below ``vault_root``.

    The walk is lexical from the vault root (``abspath``, no resolution), so
    every existing component between the root and OUTDIR is checked with
    ``lstat``; the resolved path must still lie below the resolved root.
    """
    absolute = Path(os.path.abspath(outdir))  # noqa: PTH100 - lexical on purpose
    if _is_link(absolute):
        raise _link_refusal(absolute, outdir)
    if outside_vault:
        return
    real_root = Path(os.path.realpath(vault_root))
    found = _below(absolute, (Path(os.path.abspath(vault_root)), real_root))  # noqa: PTH100
    if found is not None:
        current, parts = found
        for part in parts:
            current = current / part
            if _is_link(current):
                raise _link_refusal(current, outdir)
    if found is None or _below(Path(os.path.realpath(absolute)), (real_root,)) is None:
        raise Refusal(
            OUTSIDE,
            f"{outdir} is outside the vault {vault_root}",
            str(outdir),
            hint="write below the vault root, or pass --outside-vault for output "
            "published elsewhere",
            vault_root=str(vault_root),
        )
