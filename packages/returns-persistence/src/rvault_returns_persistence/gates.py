"""Catalog gate arithmetic.

A gate is a tuple of alternatives; an alternative is a set of underlying
sources that must all be present. Three questions are asked of a gate:
may this detection's evidence source stand on it (positive evidence), may a
comparison group stand on it, and is it complete for an absence or an
applicability judgement (which only absence-capable, completely covered
sources can establish).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from rvault_returns_persistence.catalog import Gate


def source_satisfies(gate: Gate | None, source: str, inspected: AbstractSet[str]) -> bool:
    """A single-source detection: some alternative names it and all its members were inspected."""
    if gate is None:
        return False
    return any(source in alt and alt <= inspected for alt in gate)


def group_satisfies(gate: Gate | None, group: AbstractSet[str]) -> bool:
    """A comparison detection: some alternative lies inside the compared group."""
    if gate is None:
        return False
    return any(alt <= group for alt in gate)


def absence_satisfied(gate: Gate | None, capable: AbstractSet[str]) -> bool:
    """An absence needs a singleton alternative naming one absence-capable, complete source."""
    if gate is None:
        return False
    return any(len(alt) == 1 and alt <= capable for alt in gate)


def applicability_complete(gate: Gate | None, capable: AbstractSet[str]) -> bool:
    """Applicability is decidable when every member of some alternative is capable and complete."""
    if gate is None:
        return False
    return any(alt <= capable for alt in gate)


def unmet_alternatives(
    gate: Gate | None, complete: AbstractSet[str], capable: AbstractSet[str]
) -> list[tuple[frozenset[str], dict[str, str]]]:
    """Why no alternative of an absence or applicability gate holds: each with its members' state.

    A member is ``not_inspected`` (the talk has no complete inspection of it),
    ``positive_only`` (inspected completely, but its kind of evidence cannot
    establish an absence: a video-extracted PDF, a bare deck or video) or
    ``capable``. The scaffold turns this into the sentence a worker reads next
    to a pre-filled not_evaluable row, so a reason never contradicts the
    inspection table printed beside it.
    """
    if gate is None:
        return []
    return [
        (
            alt,
            {
                member: "capable"
                if member in capable
                else "positive_only"
                if member in complete
                else "not_inspected"
                for member in sorted(alt)
            },
        )
        for alt in gate
    ]
