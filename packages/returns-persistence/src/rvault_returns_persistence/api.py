"""Public, light readers of returns-persistence for other owners.

analysis-writer and tracking-db need the pattern catalog exactly as this
package reads it (validated entries, effective gates, the fingerprint bound
into claims and scored talks), the same verdict ``rvault-returns
validate`` gives for a batch, and the opportunity-coverage identity rule a
reader re-derives from a persisted ``pattern_outcomes`` matrix, and the
strict, bounded RETURNS.json file reader. They import
this module and nothing else of the package. It never imports a media library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rvault_returns_persistence.canonical_ledger import opportunity_identity
from rvault_returns_persistence.catalog import (
    Catalog,
    CatalogEntry,
    CatalogError,
    default_catalog_dir,
    fingerprint_files,
    load_catalog,
)
from rvault_returns_persistence.database import DatabaseError, load_database
from rvault_returns_persistence.returns_file import ReturnsFileWording, read_returns_file
from rvault_returns_persistence.vocabulary import FEEDBACK_LANES, LEDGER_ROW_KEYS, VERBATIM_LANES

__all__ = [
    "FEEDBACK_LANES",
    "LEDGER_ROW_KEYS",
    "VERBATIM_LANES",
    "Catalog",
    "CatalogEntry",
    "CatalogError",
    "DatabaseError",
    "ReturnsFileWording",
    "catalog_feedback_report",
    "default_catalog_dir",
    "fingerprint_files",
    "load_catalog",
    "opportunity_identity",
    "read_returns_file",
    "validate_returns",
]


def validate_returns(
    document: Any,
    *,
    database_path: Path,
    vault_root: Path | None = None,
    catalog_dir: Path | None = None,
) -> dict[str, Any]:
    """The ``returns-validation-report`` v1 for a decoded batch (what ``validate`` prints).

    Raises :class:`CatalogError` or :class:`DatabaseError` for an unusable catalog or
    database, exactly where the command refuses with exit 2.
    """
    from rvault_returns_persistence.validator import validate_batch

    db = load_database(database_path)
    catalog = load_catalog(catalog_dir)
    return validate_batch(
        document,
        db=db,
        catalog=catalog,
        vault_root=vault_root if vault_root is not None else database_path.parent,
        catalog_label="default" if catalog_dir is None else "custom",
    )


def catalog_feedback_report(
    paths: list[Path],
    *,
    database_path: Path | None = None,
    vault_root: Path | None = None,
    catalog: Catalog | None = None,
    catalog_label: str = "default",
) -> dict[str, Any]:
    """The ``catalog-feedback-report`` v1 ``rvault-returns feedback`` prints for ``paths``.

    With ``database_path`` every entry's provenance says whether its return is the
    receipt persist stored (``current``/``historical``) or ``unbound``.
    """
    from rvault_returns_persistence.feedback import aggregate_feedback

    chosen = catalog if catalog is not None else load_catalog()
    db = load_database(database_path) if database_path is not None else None
    return aggregate_feedback(
        paths,
        catalog=chosen,
        catalog_label=catalog_label,
        db=db,
        base=vault_root,
    )
