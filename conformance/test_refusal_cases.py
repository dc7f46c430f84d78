"""The negative-case helpers change exactly one existing field, or refuse to.

A case that silently added a field, or "changed" a field to the value it
already held, would pass against a consumer that checks nothing; these pin
the rules of ``_refusals.mutated`` and of ``refusal_cases``.
"""

from __future__ import annotations

import pytest
from _refusals import DELETE, RefusalCase, assert_refused, mutated, refusal_cases

EDGE = ("a", "producer", "consumer")
DOCUMENT = {"items": [{"n": 1, "kind": "x"}], "version": 2}


def _case(path: tuple, value: object) -> RefusalCase:
    return RefusalCase(EDGE, "code", path, value)


def test_one_nested_field_changes_and_the_original_stays() -> None:
    changed = mutated(DOCUMENT, _case(("items", 0, "n"), -1))
    assert changed == {"items": [{"n": -1, "kind": "x"}], "version": 2}
    assert DOCUMENT["items"][0]["n"] == 1
    assert mutated(DOCUMENT, _case(("items", 0, "kind"), DELETE)) == {
        "items": [{"n": 1}],
        "version": 2,
    }


@pytest.mark.parametrize(
    ("path", "value"),
    [(("missing",), 1), (("items", 3, "n"), 1), (("version",), 2), (("items", 0, "kind"), "x")],
)
def test_an_added_field_or_an_unchanged_value_is_not_a_case(path: tuple, value: object) -> None:
    with pytest.raises(AssertionError):
        mutated(DOCUMENT, _case(path, value))


def test_a_type_change_of_an_equal_value_is_a_change() -> None:
    assert mutated(DOCUMENT, _case(("version",), 2.0))["version"] == 2.0


def test_cases_become_params_and_defects_strict_xfails() -> None:
    params = refusal_cases({EDGE: [("c1", ["version"], 3), ("c2", ["version"], 4, "why")]})
    assert [p.id for p in params] == ["consumer-a-c1-version", "consumer-a-c2-version"]
    assert list(params[0].marks) == []
    (mark,) = params[1].marks
    assert mark.name == "xfail" and mark.kwargs["strict"] is True and "why" in mark.kwargs["reason"]


def test_assert_refused_needs_the_declared_code() -> None:
    assert_refused(_case(("version",), 3), ["other", "code"])
    with pytest.raises(AssertionError, match="emitted"):
        assert_refused(_case(("version",), 3), ["other", None])
