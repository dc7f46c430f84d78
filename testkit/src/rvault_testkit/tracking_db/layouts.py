"""The byte layouts other tools write one database in, for the streamed read's tests and benchmark.

Every writer here gives the artifact encoding; a vault may also come from
the public peer (``json.dumps(indent=2, ensure_ascii=False)``) or a one-line
tool (``jq -c .``; ``json.dumps`` with its default separators, UTF-8 or
ASCII-escaped; tight and ASCII-escaped). The streamed read must prove each
of them talk by talk with the whole read's answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rvault_contracts.canonical import artifact_bytes

LAYOUTS: dict[str, Callable[[Any], bytes]] = {
    "artifact": artifact_bytes,
    "peer indent": lambda d: (json.dumps(d, indent=2, ensure_ascii=False) + "\n").encode(),
    "jq -c": lambda d: (json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n").encode(),
    "json.dumps": lambda d: json.dumps(d).encode(),
    "json.dumps UTF-8": lambda d: json.dumps(d, ensure_ascii=False).encode(),
    "tight ASCII": lambda d: json.dumps(d, separators=(",", ":")).encode(),
}
#: The one-line layouts (everything but the two indented ones).
COMPACT = sorted(set(LAYOUTS) - {"artifact", "peer indent"})
