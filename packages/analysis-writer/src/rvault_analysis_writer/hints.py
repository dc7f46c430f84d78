"""The next action for each refusal of ``rvault-analysis`` that its call site names none for.

``console_main`` registers this table; ``rvault_contracts.cli.emit`` prints a
refusal's hint from it (see ``rvault_contracts.hints``).
"""

from __future__ import annotations

HINTS: dict[str, str] = {
    "vault_root_invalid": "pass --vault-root with the vault directory (the database's own "
    "directory is used when it is left out)",
}
