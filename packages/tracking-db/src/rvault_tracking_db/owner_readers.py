"""The optional owner readers tracking-db uses, imported by name in one place.

``rvault-db status`` and ``sources register --fetch-result`` read other
owners' evidence through their public ``api`` modules, which come with the
``[status]`` extra: the database owner does not pull in media stacks. Each
reader is imported here by an ordinary ``import`` statement (not a string
given to ``importlib``), so the import checker sees every edge from
tracking-db to another owner; a reader that is not installed is ``None``.
"""

from __future__ import annotations

from types import ModuleType


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
