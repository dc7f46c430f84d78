"""``rvault-analysis site OUTDIR --db DB``: the static HTML vault report."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_contracts import cli as contract_cli


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "site",
        help="render a static HTML report of the whole vault into OUTDIR",
        description=(
            "Render the vault report (overview of every talk, trends, one page per analysed "
            "talk with its outcomes, citations and slide thumbnails) from the tracking "
            "database, its completed-claim receipts and the owners' readers, and install it "
            "into OUTDIR as one transaction. Open OUTDIR/index.html from disk: no server, "
            "no network; the only script is the vault search (--no-search leaves it out). "
            "stdout is the site report (JSON)."
        ),
    )
    parser.add_argument("outdir", type=Path, metavar="OUTDIR")
    parser.add_argument("--db", type=Path, required=True, help="tracking-database.json")
    parser.add_argument(
        "--vault-root", type=Path, help="vault root (default: the database's directory)"
    )
    parser.add_argument(
        "--catalog", type=Path, help="pattern catalog directory (default: the shipped catalog)"
    )
    parser.add_argument(
        "--outside-vault",
        action="store_true",
        help="allow OUTDIR outside the vault root (a report published elsewhere); never a symlink",
    )
    parser.add_argument(
        "--returns",
        type=Path,
        action="append",
        default=[],
        metavar="RETURNS.json",
        help="a persisted batch file (repeatable): each talk whose completed-claim receipt is "
        "one of its returns shows that return's catalog feedback",
    )
    parser.add_argument(
        "--no-search",
        dest="search",
        action="store_false",
        help="leave out the search index and its scripts (a site without any script)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from rvault_analysis_writer.site.build import SiteRequest, build_site

    report = build_site(
        SiteRequest(
            outdir=args.outdir,
            db=args.db,
            vault_root=args.vault_root,
            catalog=args.catalog,
            outside_vault=args.outside_vault,
            returns=tuple(args.returns),
            search=args.search,
        ),
        progress=contract_cli.progress,
    )
    contract_cli.emit(report)
    return contract_cli.EXIT_OK
