"""One module per rvault-transcript subcommand, each with ``register(subparsers)``.

A module only adapts arguments into the request of the package function that
does the work (``fetch.fetch``, ``vtt_import.import_vtt``, ``api.read_evidence``).
"""
