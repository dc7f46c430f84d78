"""The read-only catalog-feedback aggregator (``rvault-returns feedback``).

Every current return carries five lanes of feedback on the pattern catalog,
and the feedback is deliberately not stored on the talk: it lives only in the
returns. Read one talk at a time it teaches nothing; read across every return
a vault kept, a definition problem named by six talks is a catalog defect.
The pipeline is ``inputs`` (files to returns, each classified once),
``entries`` (one feedback entry checked against the catalog, legacy shapes
reported and never repaired) and ``aggregate`` (exact ids and suggested names
counted with their provenance into the catalog-feedback-report).
"""

from rvault_returns_persistence.feedback.aggregate import aggregate_feedback

__all__ = ["aggregate_feedback"]
