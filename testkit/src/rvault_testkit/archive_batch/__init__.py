"""Generated archives for rvault-archive-batch's tests and benchmark."""
