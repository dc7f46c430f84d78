"""``rvault-db goals list|set|revise|retire|verify DB ...``: the coaching loop's records.

Adapts the command line to a :class:`~rvault_tracking_db.goals.run.GoalsCommand`
and prints the ``db-goals-report``; every writing action is a dry run until
``--apply --expected-sha256 HEX`` names the bytes its dry run reviewed.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from rvault_tracking_db import apply_protocol

KINDS = ("antipattern", "underuse", "pacing", "other")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "goals",
        help="improvement goals: list, set, revise, retire, verify (dry run by default)",
        description=(
            "A speaker's improvement goals and their verification after each batch. Pattern "
            "goals (antipattern, underuse) freeze the current post-batch baseline; verify "
            "judges them on talks processed after their set_date only."
        ),
    )
    actions = parser.add_subparsers(dest="goals_action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every goal with its assessment and trend")
    _database(listing)
    setting = actions.add_parser("set", help="create a schema-v2 goal")
    _database(setting)
    _goal_fields(setting, "--id")
    revise = actions.add_parser("revise", help="retire a goal and supersede it with a new one")
    _database(revise)
    revise.add_argument("--id", required=True, help="the goal to supersede")
    _goal_fields(revise, "--new-id")
    retire = actions.add_parser("retire", help="retire a goal (its record is kept)")
    _database(retire)
    retire.add_argument("--id", required=True, help="the goal to retire")
    verify = actions.add_parser(
        "verify", help="judge active goals on the talks since they were set"
    )
    _database(verify)
    verify.add_argument(
        "--checked-at",
        default=None,
        help="date recorded as last_checked (default: today, UTC)",
    )
    for sub in (setting, revise, retire, verify):
        apply_protocol.add_arguments(sub)
    parser.set_defaults(handler=handle)


def _database(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("database", help="path of tracking-database.json")
    parser.set_defaults(apply=False, expected_sha256=None, checked_at=None)


def _goal_fields(parser: argparse.ArgumentParser, id_option: str) -> None:
    parser.add_argument(id_option, dest="new_id", required=True, help="the new goal's id")
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument("--issue", required=True, help="the focus area, in the speaker's words")
    parser.add_argument(
        "--target",
        required=True,
        help="pattern goals: the share of talks aimed for (0-1); others: the speaker's aim",
    )
    parser.add_argument("--pattern", help="antipattern/underuse: the catalog id measured")
    parser.add_argument("--metric", help="pacing/other: what is measured")
    parser.add_argument("--baseline", help="pacing/other: the value today")
    parser.add_argument("--set-date", help="YYYY-MM-DD (default: today, UTC)")
    parser.add_argument("--set-by", default="rvault-db goals", help="who set the goal")


def handle(args: argparse.Namespace) -> int:
    from rvault_contracts import cli as contract_cli

    from rvault_tracking_db.goals.records import GoalRequest
    from rvault_tracking_db.goals.run import GoalsCommand, run_goals

    today = datetime.now(UTC).date().isoformat()
    request = None
    if args.goals_action in ("set", "revise"):
        request = GoalRequest(
            id=args.new_id,
            kind=args.kind,
            issue=args.issue,
            target=args.target,
            set_date=args.set_date or today,
            set_by=args.set_by,
            pattern=args.pattern,
            metric=args.metric,
            baseline=args.baseline,
            supersedes=getattr(args, "id", None) if args.goals_action == "revise" else None,
        )
    command = GoalsCommand(
        database=args.database,
        action=args.goals_action,
        checked_at=args.checked_at or today,
        apply=args.apply,
        expected=args.expected_sha256,
        request=request,
        goal_id=getattr(args, "id", None),
    )
    contract_cli.emit(run_goals(command))
    return contract_cli.finish(contract_cli.EXIT_OK)
