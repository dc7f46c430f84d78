"""``rvault-db preflight``: the read-only, offline integrity gate of a vault.

It reads the database through the owner read (tolerating only the findings
it reports itself), compares every talk with its sources and their recorded
identity, and returns blocking findings (stored claims that disagree,
identities that collide, a completed talk whose claimed artifact is absent,
an invalid root assertion) and warnings (evidence absent, a comparison that
cannot be made, a pending talk without its artifact yet). Nothing is fetched
and nothing is written.
"""

from rvault_tracking_db.preflight.run import PreflightRequest, run_preflight

__all__ = ["PreflightRequest", "run_preflight"]
