"""Owner of tracking-database.json: strict read, schema assessment, typed mutations, migration, queue claims and shownotes scans."""

from rvault_tracking_db.__about__ import __version__

__all__ = ["__version__"]
