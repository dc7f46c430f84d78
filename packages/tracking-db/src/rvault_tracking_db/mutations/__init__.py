"""Typed, hash-bound mutation plans: decoding, operations and the transaction."""

from rvault_tracking_db.mutations.plan import Plan, PlanRefusal, decode_plan, parse_plan
from rvault_tracking_db.mutations.transaction import run_mutation

__all__ = ["Plan", "PlanRefusal", "decode_plan", "parse_plan", "run_mutation"]
