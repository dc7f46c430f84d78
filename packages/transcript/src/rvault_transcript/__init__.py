"""Transcript acquisition (captions, local Whisper, VTT import) with timing and quality receipts."""

from rvault_transcript.__about__ import __version__

__all__ = ["__version__"]
