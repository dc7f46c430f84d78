"""rvault-archive-batch: acquire many talks' evidence on Dask, registered by one writer.

An orchestrator over the owners' tools. It owns no artifact: every artifact
is written by its owner's console script (through that owner's writer), read
back through the owner's public ``api``, and registered in the tracking
database by tracking-db's source-plan transaction, once per batch. Importing
this package loads neither Dask nor a media library.
"""

from rvault_archive_batch.__about__ import __version__

__all__ = ["__version__"]
