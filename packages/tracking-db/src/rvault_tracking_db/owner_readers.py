"""The optional owner readers tracking-db uses, imported by name in one place.

``rvault-db status`` and ``sources register --fetch-result`` read other
owners' evidence through their public ``api`` modules, which come with the
``[status]`` extra: the database owner does not pull in media stacks. Each
reader is imported here by an ordinary ``import`` statement (not a string
given to ``importlib``), so the import checker sees every edge from
tracking-db to another owner; a reader that is not installed is ``None``.
Each function imports its reader when called, so a caller asks for one
only when it has something for it to read (:func:`installed` says whether
it is there without importing it).
"""

from __future__ import annotations

from importlib.util import find_spec
from types import ModuleType

#: Each reader's module, for :func:`installed` (the imports stay the statements below).
MODULES = {
    "transcript": "rvault_transcript.api",
    "video": "rvault_video_extraction.api",
    "pptx": "rvault_pptx_evidence.api",
}


def transcript_api() -> ModuleType | None:
    """``rvault_transcript.api`` (receipts, fetch results), or None when not installed."""
    try:
        import rvault_transcript.api as api
    except ImportError:
        return None
    return api


def video_api() -> ModuleType | None:
    """``rvault_video_extraction.api`` (manifests and their trust), or None."""
    try:
        import rvault_video_extraction.api as api
    except ImportError:
        return None
    return api


def pptx_api() -> ModuleType | None:
    """``rvault_pptx_evidence.api`` (deck catalog receipts), or None."""
    try:
        import rvault_pptx_evidence.api as api
    except ImportError:
        return None
    return api


def installed(reader: str) -> bool:
    """Whether the reader's module (a key of :data:`MODULES`) is installed, without running it.

    ``rvault-db status`` reports which readers it has, and a vault whose
    talks never need one should not pay its import (the transcript reader
    alone is about 10 ms): finding the module is enough to say it is there.
    """
    try:
        return find_spec(MODULES[reader]) is not None
    except ImportError:  # its package is not installed (or cannot be imported at all)
        return False
