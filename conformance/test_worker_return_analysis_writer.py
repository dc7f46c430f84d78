"""worker-return: external (the AI worker) -> analysis-writer.

The analysis writer renders only receipt-bound returns: it reads the exact
payload, validates it against the registered schema of its version and
recomputes ``result_payload_sha256`` with ``rvault_contracts.canonical``.
This test proves that contract on real output (claimed by ``rvault-db``,
scaffolded and validated by ``rvault-returns``): the schema accepts it, the
writer's batch reader (``authorize.returns_of``) takes the array and the
keyed-by-filename forms, and the receipt is independent of key order and
whitespace but changes with any value. ``test_persisted_batch_analysis_writer``
renders a persisted batch end to end.
"""

from __future__ import annotations

import json
from pathlib import Path

from _returns_producer import claimed_vault, completed_return
from rvault_analysis_writer.authorize import returns_of
from rvault_contracts.canonical import payload_sha256
from rvault_contracts.schemas import schema_issues
from rvault_contracts.strict_json import loads_strict

COVERS = [("worker-return", "external", "analysis-writer")]


def test_validated_returns_bind_a_stable_receipt(tmp_path: Path) -> None:
    db, names = claimed_vault(tmp_path)
    batch = [completed_return(db, name) for name in names]
    assert returns_of(batch) == batch
    assert returns_of({r["filename"]: r for r in batch}) == batch
    for name in names:
        ret = completed_return(db, name)
        as_sent = json.dumps(ret, indent=3)
        decoded = loads_strict(as_sent.encode("utf-8"))
        assert schema_issues("worker-return", decoded["return_schema_version"], decoded) == []
        reordered = json.loads(json.dumps(dict(reversed(list(decoded.items())))))
        assert payload_sha256(reordered) == payload_sha256(ret)
        ret["rhetoric_notes"] += " "
        assert payload_sha256(ret) != payload_sha256(decoded)
