"""The deterministic gate for AI worker returns: pattern catalog, validation, persistence."""

from rvault_returns_persistence.__about__ import __version__

__all__ = ["__version__"]
