"""The talk view's lanes and columns are the return contract's, read from its owner."""

from __future__ import annotations

from rvault_analysis_writer import talk_view
from rvault_returns_persistence import api as returns_api


def test_ledger_columns_and_feedback_lanes_come_from_the_contract_owner() -> None:
    assert talk_view.LEDGER_COLUMNS == returns_api.LEDGER_ROW_KEYS
    assert [lane for lane, _ in talk_view.FEEDBACK_LANES] == list(returns_api.FEEDBACK_LANES)


def test_verbatim_lanes_are_the_contract_lanes_in_reading_order() -> None:
    """The analysis reads them in talk order (opening first), not the contract's order."""
    lanes = [lane for lane, _ in talk_view.VERBATIM_LANES]
    assert sorted(lanes) == sorted(returns_api.VERBATIM_LANES)
    assert lanes[:2] == ["opening_lines", "closing_lines"]
