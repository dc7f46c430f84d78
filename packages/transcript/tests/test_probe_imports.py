"""A local recording's probe never imports yt-dlp (0.1-0.2 s); the YouTube probes do."""

from __future__ import annotations

import subprocess
import sys

_CHECK = """
import io, sys
from rvault_transcript import fetch  # the fetch command's module, as a local fetch loads it
from rvault_transcript.probe import hash_open_file, probe_local
hash_open_file(io.BytesIO(b"not media"))
assert "yt_dlp" not in sys.modules, "local probing imported yt_dlp"
from rvault_transcript.probe import _default_factory
_default_factory({"quiet": True}).close()
assert "yt_dlp" in sys.modules
"""


def test_local_probing_leaves_yt_dlp_unimported_until_a_youtube_probe() -> None:
    done = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
