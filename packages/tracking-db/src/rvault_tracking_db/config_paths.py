"""The configured source locations, checked by the rules their readers use.

``initialize_database`` (and so ``rvault-db init``) stores where the
shownotes site and the deck folder live. Storing a location that
``scan-shownotes`` or the capability resolver would later refuse (or, for
``pptx_source_dir``, silently ignore) only moves the failure to a worse
moment, so initialization runs the readers' own checks first: the shownotes
source through :func:`rvault_tracking_db.shownotes.source.resolve_source`
(absolute root without dot segments, an existing directory, a talks subdir
of real directories, no links), the deck root as a native absolute path of
an existing directory (what :class:`SourceRoots` honours).
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal

from rvault_tracking_db.assessment.storage_path import storage_path_form_error
from rvault_tracking_db.shownotes.source import resolve_source

PPTX_WHERE = '$["config"]["pptx_source_dir"]'


def check_config_paths(config: Mapping[str, Any]) -> None:
    """Refuse a configured location its reader would refuse or ignore."""
    resolve_source(config)  # raises the scan's own refusal codes
    pptx_dir = config.get("pptx_source_dir")
    if pptx_dir is not None:
        check_pptx_source_dir(pptx_dir)


def check_pptx_source_dir(value: object) -> None:
    problem = storage_path_form_error(value)
    if problem is not None:
        raise Refusal(
            "pptx_source_dir_invalid",
            f"pptx_source_dir must be a native absolute path ({problem})",
            PPTX_WHERE,
            hint="pass the absolute path of the folder that holds the speaker's decks",
        )
    assert isinstance(value, str)
    try:
        mode: int | None = Path(value).stat().st_mode
    except OSError:
        mode = None
    if mode is None or not stat.S_ISDIR(mode):
        raise Refusal(
            "pptx_source_dir_missing",
            f"{value} is not an existing directory",
            PPTX_WHERE,
            hint="create the folder or correct the path",
        )
