"""Shared contracts of rhetoric-vault.

Everything here is something every owner must agree on byte for byte: the
JSON Schemas of artifacts that cross a package boundary, the strict JSON
decoder, canonical encoding and digests, the writer protocol, and the one
``Issue`` value (``rvault_contracts.issues``) every report and refusal
carries. Keeping one implementation is what lets the owners stay independent.
"""

from rvault_contracts.__about__ import __version__

__all__ = ["__version__"]
