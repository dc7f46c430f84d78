"""``rvault-db init VAULT_ROOT``: a new vault's tracking database in one step.

Builds the ``initialize_database`` plan from its options and runs it through
``mutate``'s transaction, so the bytes are exactly those of the plan route.
Every configured location is checked by the rules its reader applies later
(``config_paths``). Dry run by default; ``--apply --expected-sha256 missing``
creates the file.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from rvault_contracts.cli import emit, finish

from rvault_tracking_db import apply_protocol
from rvault_tracking_db.mutations.init_vault import InitRequest, init_vault

SHOWNOTES_TYPES = ("local_jekyll", "local_hugo", "local_eleventy", "local_astro")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="create VAULT_ROOT/tracking-database.json (dry-run by default)",
        description=(
            "Creates a current database (schema 1, config 2, default pptx_directory_exclusions) "
            "through the initialize_database mutation. Relative option paths are made absolute "
            "from the working directory; every location must pass the check its reader makes "
            "(scan-shownotes for the site, the capability resolver for the deck folder)."
        ),
    )
    parser.add_argument("vault_root", metavar="VAULT_ROOT", help="the vault directory (must exist)")
    parser.add_argument(
        "--shownotes-source", metavar="DIR", help="the shownotes site's root directory"
    )
    parser.add_argument(
        "--shownotes-type",
        choices=SHOWNOTES_TYPES,
        default="local_jekyll",
        help="the site generator (default local_jekyll: talks in _talks/)",
    )
    parser.add_argument("--talks-subdir", metavar="REL", help="talk pages below the site root")
    parser.add_argument(
        "--pptx-source", metavar="DIR", help="the folder holding the speaker's decks"
    )
    apply_protocol.add_arguments(parser, creating=True)
    parser.set_defaults(handler=handle)


def init_config(args: argparse.Namespace) -> dict[str, Any]:
    """The config the options describe (lexically absolute paths, nothing resolved)."""
    config: dict[str, Any] = {}
    if args.shownotes_source is not None:
        source: dict[str, Any] = {
            "type": args.shownotes_type,
            "path_or_url": os.path.abspath(args.shownotes_source),  # noqa: PTH100 - lexical
        }
        if args.talks_subdir is not None:
            source["talks_subdir"] = args.talks_subdir
        config["shownotes"] = {"enabled": True, "source": source}
    if args.pptx_source is not None:
        config["pptx_source_dir"] = os.path.abspath(args.pptx_source)  # noqa: PTH100
    return config


def handle(args: argparse.Namespace) -> int:
    request = InitRequest(args.vault_root, init_config(args), args.apply, args.expected_sha256)
    emit(init_vault(request))
    return finish(0)
