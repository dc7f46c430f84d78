"""Native deck evidence: PPTX extraction schema v5 with honest capability bindings."""

from rvault_pptx_evidence.__about__ import __version__

__all__ = ["__version__"]
