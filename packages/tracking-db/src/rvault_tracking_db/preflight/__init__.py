"""``rvault-db preflight``: the read-only, offline integrity gate of a vault.

It reads the database through the owner read (tolerating only the findings
it reports itself), compares every talk with its sources and their recorded
identity, and returns blocking findings (stored claims that disagree,
identities that collide, a completed talk whose claimed artifact is absent,
an invalid root assertion) and warnings (evidence absent, a comparison that
cannot be made, a pending talk without its artifact yet). Nothing is fetched
and nothing is written.

The command runs :func:`.run.run_preflight`, which checks the talks as the
read streams them where it can (:mod:`.streamed`); ``status`` and the site
use the light view of :mod:`.talk_checks` alone (this package imports neither).
"""
