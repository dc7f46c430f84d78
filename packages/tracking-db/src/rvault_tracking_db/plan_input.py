"""Reading a plan document (``mutate``, ``sources``) from a file or stdin.

A plan is a few records, so the read is capped (``mutate DB /dev/zero`` or an
endless pipe must not read until memory runs out), and a named path must be
a regular file: it is opened non-blocking and checked before a single byte
is read, so a FIFO or a device is refused at once instead of hanging.
``-`` reads stdin, which may of course be a pipe.
"""

from __future__ import annotations

import os
import stat
import sys

from rvault_contracts.cli import Refusal

MAX_PLAN_BYTES = 64 * 1024 * 1024


def read_plan_bytes(source: str) -> bytes:
    if source == "-":
        data = _read_capped(sys.stdin.buffer.read)
    else:
        try:
            fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            raise Refusal(
                "plan_unreadable",
                f"cannot read the plan: {exc.strerror or exc}",
                None,
                hint="pass the path of a plan JSON file, or - to read it from stdin",
            ) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise Refusal(
                    "plan_not_regular_file",
                    "the plan is not a regular file (a FIFO, device or directory is refused)",
                    None,
                    hint="write the plan to a file, or pipe it in with - as the plan path",
                )
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = _read_capped(handle.read)
        finally:
            os.close(fd)
    if len(data) > MAX_PLAN_BYTES:
        raise Refusal("plan_too_large", f"the plan is larger than {MAX_PLAN_BYTES} bytes", "$")
    return data


def _read_capped(read: object) -> bytes:
    try:
        return read(MAX_PLAN_BYTES + 1)  # type: ignore[operator]
    except OSError as exc:
        raise Refusal(
            "plan_unreadable", f"cannot read the plan: {exc.strerror or exc}", None
        ) from None
