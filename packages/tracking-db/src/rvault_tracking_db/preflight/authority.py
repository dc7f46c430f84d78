"""The database and its root authority: what preflight may read at all.

The input is a vault root or its ``tracking-database.json`` (chosen by the
final name, case-insensitively, before touching the filesystem). The owner
read is the only way in; the two root-assertion issues it would refuse on
(``config.vault_storage_path`` invalid or not lexically the database's
parent) are tolerated there and reported here as blocking findings, so one
report shows a broken root next to everything else. Any other unusable
database is one blocking finding and no talk is checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from rvault_contracts.issues import Issue

from rvault_tracking_db.preflight.findings import Findings
from rvault_tracking_db.reader import DatabaseRefusal, ReadResult, read_database

DATABASE_NAME = "tracking-database.json"
CONFIG_INVALID = "vault_root_config_invalid"
AUTHORITY_MISMATCH = "vault_root_authority_mismatch"
DATABASE_UNUSABLE = "database_unusable"
ROOT_ISSUES = {
    "invalid_vault_storage_path": CONFIG_INVALID,
    "vault_storage_path_mismatch": AUTHORITY_MISMATCH,
}
_REPAIR = (
    "repair config.vault_storage_path with a set_config plan (delete it, or set the database's "
    "parent): dry run, apply, re-read, preflight"
)


@dataclass(frozen=True)
class Located:
    database: str
    vault_root: str


def locate(argument: str) -> Located:
    """The lexical absolute database path and vault root an argument names."""
    absolute = os.path.abspath(argument)  # noqa: PTH100 - lexical, never resolved
    if os.path.basename(absolute).lower() == DATABASE_NAME:  # noqa: PTH119
        return Located(absolute, os.path.dirname(absolute))  # noqa: PTH120
    return Located(os.path.join(absolute, DATABASE_NAME), absolute)  # noqa: PTH118


def read_with_root(located: Located, findings: Findings) -> ReadResult | None:
    """The owner read, with root-assertion issues turned into blocking findings."""
    try:
        result = read_database(located.database, tolerate=tolerated)
    except DatabaseRefusal as refusal:
        report_unusable(refusal, findings)
        return None
    assert result.assessment is not None
    for issue in result.assessment.fatal:
        _root_finding(issue, located, findings)
    return result


def tolerated(issue: Issue) -> bool:
    """The fatal issues preflight reports as findings instead of refusing the read."""
    return issue.code in ROOT_ISSUES


def report_unusable(refusal: DatabaseRefusal, findings: Findings) -> None:
    """The owner read's refusal as the one blocking finding of an unusable database."""
    issues = refusal.context.get("issues") or [
        {"code": refusal.code, "path": refusal.path, "message": refusal.message}
    ]
    findings.block(
        DATABASE_UNUSABLE,
        refusal.path or "$",
        f"the owner read refuses the database: {refusal.message}",
        actual={"codes": sorted({i["code"] for i in issues})},
        expected="a database the owner read accepts",
    )


def _root_finding(issue: Issue, located: Located, findings: Findings) -> None:
    code = ROOT_ISSUES[issue.code]
    if code == CONFIG_INVALID:
        message = f"config.vault_storage_path is not a native absolute locator; {_REPAIR}"
        actual = {"reason_code": issue.code}
    else:
        message = f"config.vault_storage_path is not the database's parent; {_REPAIR}"
        actual = {"reason_code": issue.code, "authorities": ["config_root", "database_path"]}
    findings.block(code, issue.path, message, expected=located.vault_root, actual=actual)
