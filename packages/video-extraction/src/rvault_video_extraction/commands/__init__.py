"""One module per rvault-video subcommand, each with ``register(subparsers)``.

A module only turns arguments into the request of the function that does the
work (``extract.extract``, ``promote.promote``, ``downloader.download_video``,
``api.read_manifest``) and prints its document; the media libraries are
imported inside the handler, so ``--help`` stays light.
"""
