"""The cyclic garbage collector paused for a command's lifetime.

Its own module (nothing but ``gc``) so the console script can pause the
collector before parsing arguments without importing the decoder (orjson,
strict JSON): ``rvault-db --version`` stays light.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Keep the cyclic garbage collector out of a large decode.

    Decoded JSON is acyclic, yet every few hundred new containers the
    collector would traverse the whole growing tree again: with it running,
    parsing the 10,000-talk database takes about three times as long.
    Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def skip_exit_collection() -> None:
    """Leave every object alive now out of the collection the interpreter runs as it exits.

    For the console script only, once its command has returned: the process
    ends next, and the final collection would traverse every module, class
    and function the command imported (about 15 ms of CPU of a 20-talk
    ``rvault-db status``, an eighth of it) only to free memory the process
    is about to hand back. Nothing a command leaves needs a finalizer: the
    interpreter still flushes stdout and stderr, and every file a command
    writes is closed by its own ``with`` block. (``gc.freeze`` is meant for
    exactly this: objects that will live until the process is gone.)
    """
    gc.freeze()
