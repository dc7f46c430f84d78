"""Argument handling shared by the subcommands (database, catalog, vault root)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rvault_returns_persistence.catalog import Catalog, load_catalog
from rvault_returns_persistence.database import Database, load_database, vault_directory


def add_db_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", required=True, type=Path, help="tracking-database.json")
    parser.add_argument(
        "--vault-root",
        type=Path,
        default=None,
        help="vault root holding transcripts/ and slides/ (default: the database's directory)",
    )


def add_catalog_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalog",
        type=Path,
        default=None,
        help="catalog directory (default: the shipped catalog)",
    )


def open_database(args: argparse.Namespace) -> tuple[Database, Path]:
    db = load_database(args.db)  # DatabaseError is a cli-failure refusal
    return db, vault_directory(args.db, args.vault_root)


def open_catalog(args: argparse.Namespace) -> tuple[Catalog, str]:
    catalog = load_catalog(args.catalog)  # CatalogError is a cli-failure refusal
    return catalog, "default" if args.catalog is None else "custom"
