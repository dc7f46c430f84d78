"""Queue claims, adherence baselines, recovery, normalization and inspection.

A worker may touch a talk only under an exact, immutable claim that fixes the
return version it must produce and the numeric baseline it is compared
against. This package builds, validates and closes those claims.
"""
