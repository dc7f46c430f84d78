"""Validation findings as values: a stable code, a JSON path and a message.

The queue validators share the owner assessment's ``Issue`` and the JSON
predicates and path notation of ``rvault_contracts.strict_json``.
"""

from __future__ import annotations

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_nonempty_str
from rvault_contracts.strict_json import is_number
from rvault_contracts.strict_json import json_path as jp

from rvault_tracking_db.assessment.model import Issue

__all__ = ["Issue", "is_int", "is_nonempty_str", "is_number", "jp"]
