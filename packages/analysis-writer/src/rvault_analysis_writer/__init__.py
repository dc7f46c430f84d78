"""Renders receipt-bound per-talk Markdown analyses."""

from rvault_analysis_writer.__about__ import __version__

__all__ = ["__version__"]
