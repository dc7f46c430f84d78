"""Handlers imported on first use (the idiom lives in ``rvault_contracts.cli``).

``rvault-db read`` is a hot path for agents (a 10,000-talk vault must read in
about a second), so each command's implementation (queue planning, shownotes
parsing with YAML/TOML) is imported only when that command runs.
"""

from __future__ import annotations

from rvault_contracts.cli import Handler, lazy_handler

__all__ = ["Handler", "lazy_handler"]
