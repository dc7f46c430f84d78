"""lazy_exports: a name is imported on first access, kept, and unknown names still fail."""

from __future__ import annotations

import sys

import pytest
from rvault_contracts.lazy_exports import lazy_exports


def test_a_name_is_imported_on_first_access_and_kept() -> None:
    sys.modules.pop("rvault_contracts.suggest", None)
    namespace: dict[str, object] = {"__name__": "demo_api"}
    getattr_, dir_ = lazy_exports("rvault_contracts", {"closest": "suggest"}, namespace)
    assert "rvault_contracts.suggest" not in sys.modules
    closest = getattr_("closest")
    assert closest is sys.modules["rvault_contracts.suggest"].closest
    assert namespace["closest"] is closest  # later lookups never reach __getattr__
    assert dir_() == ["__name__", "closest"]


def test_a_submodule_is_exported_as_itself() -> None:
    getattr_, dir_ = lazy_exports("rvault_contracts", {}, {"__name__": "demo"}, {"suggest"})
    assert getattr_("suggest") is sys.modules["rvault_contracts.suggest"]
    assert "suggest" in dir_()


def test_an_unknown_name_is_an_attribute_error_naming_the_module() -> None:
    getattr_, _ = lazy_exports("rvault_contracts", {"closest": "suggest"}, {"__name__": "demo"})
    with pytest.raises(AttributeError, match="module 'demo' has no attribute 'nothing'"):
        getattr_("nothing")
