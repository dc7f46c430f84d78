"""Where a transcript's receipts live: siblings named after the transcript.

``transcripts/{id}.txt`` has its timing receipt at ``{id}.segments.json`` and
its quality receipt at ``{id}.quality.json``. The writer, the readers and the
fetch-result check all derive the names here, so they cannot disagree.
"""

from __future__ import annotations

import os
from pathlib import Path


def timing_path_for(transcript_path: str | os.PathLike[str]) -> Path:
    """``transcripts/{id}.txt`` -> ``transcripts/{id}.segments.json``."""
    path = Path(transcript_path)
    return path.with_name(path.stem + ".segments.json")


def quality_path_for(transcript_path: str | os.PathLike[str]) -> Path:
    """``transcripts/{id}.txt`` -> ``transcripts/{id}.quality.json``."""
    path = Path(transcript_path)
    return path.with_name(path.stem + ".quality.json")
