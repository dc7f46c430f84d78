"""The JSON predicates and path notation the queue validators share.

They are ``rvault_contracts.strict_json``'s; the findings themselves are the
one ``rvault_contracts.issues.Issue`` of every owner.
"""

from __future__ import annotations

from rvault_contracts.strict_json import is_integer as is_int
from rvault_contracts.strict_json import is_nonblank_string as is_nonempty_str
from rvault_contracts.strict_json import is_number
from rvault_contracts.strict_json import json_path as jp

__all__ = ["is_int", "is_nonempty_str", "is_number", "jp"]
