"""One module per ``rvault-batch`` subcommand."""
