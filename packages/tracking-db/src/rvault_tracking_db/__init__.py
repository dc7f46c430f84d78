"""Owner of tracking-database.json.

Strict read, schema assessment, typed mutations, migration, queue claims and
shownotes scans. Importing the package stays light; see ``api`` for readers.
"""

from rvault_tracking_db.__about__ import __version__

__all__ = ["__version__"]
