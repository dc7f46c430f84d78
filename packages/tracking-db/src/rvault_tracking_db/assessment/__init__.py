"""Owner schema assessment of the tracking database and its records.

Assessment is the first semantic operation after strict decoding: a
database whose root, record, queue-claim or adherence-baseline generation is
unsupported is no usable prior state and is never read with an older
identity.
"""

from rvault_tracking_db.assessment.model import Assessment
from rvault_tracking_db.assessment.root import (
    CURRENT_ROOT_VERSION,
    OWNED_ARRAYS,
    STATE_FIELDS,
    assess_database,
)

__all__ = [
    "CURRENT_ROOT_VERSION",
    "OWNED_ARRAYS",
    "STATE_FIELDS",
    "Assessment",
    "assess_database",
]
