"""tracking-db's test data: the spec's example database as ready documents.

It lives in the dev-only testkit, not in the ``rvault-tracking-db`` wheel: a
user's install never needs it; the package's tests, the conformance corpus and
its benchmarks do.
"""
