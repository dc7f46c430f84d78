"""Reading a plan document (``mutate``, ``sources``) or a fetch result
(``register-transcript --fetch-result``) from a file or stdin.

A plan is a few records, so the read is capped (``mutate DB /dev/zero`` or an
endless pipe must not read until memory runs out), and a named path must be
a regular file: it is opened non-blocking and checked before a single byte
is read, so a FIFO or a device is refused at once instead of hanging.
``-`` reads stdin, which may of course be a pipe. Each kind of document
keeps its own codes (``plan_*``, ``fetch_result_*``), so a refusal says which
input it is about.
"""

from __future__ import annotations

import os
import stat
import sys

from rvault_contracts.cli import Refusal

MAX_PLAN_BYTES = 64 * 1024 * 1024

PLAN = "plan"
FETCH_RESULT = "fetch result"
_UNREADABLE = {PLAN: "plan_unreadable", FETCH_RESULT: "fetch_result_unreadable"}
_NOT_REGULAR = {PLAN: "plan_not_regular_file", FETCH_RESULT: "fetch_result_not_regular_file"}
_TOO_LARGE = {PLAN: "plan_too_large", FETCH_RESULT: "fetch_result_too_large"}


def read_plan_bytes(source: str, what: str = PLAN) -> bytes:
    """The bytes of the ``what`` document (:data:`PLAN` or :data:`FETCH_RESULT`) at ``source``."""
    if source == "-":
        data = _read_capped(sys.stdin.buffer.read, what)
    else:
        try:
            fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            raise Refusal(
                _UNREADABLE[what],
                f"cannot read the {what}: {exc.strerror or exc}",
                None,
                hint=f"pass the path of a {what} JSON file, or - to read it from stdin",
            ) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise Refusal(
                    _NOT_REGULAR[what],
                    f"the {what} is not a regular file (a FIFO, device or directory is refused)",
                    None,
                    hint=f"write the {what} to a file, or pipe it in with - as the {what} path",
                )
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = _read_capped(handle.read, what)
        finally:
            os.close(fd)
    if len(data) > MAX_PLAN_BYTES:
        raise Refusal(_TOO_LARGE[what], f"the {what} is larger than {MAX_PLAN_BYTES} bytes", "$")
    return data


def _read_capped(read: object, what: str) -> bytes:
    try:
        return read(MAX_PLAN_BYTES + 1)  # type: ignore[operator]
    except OSError as exc:
        raise Refusal(
            _UNREADABLE[what], f"cannot read the {what}: {exc.strerror or exc}", None
        ) from None
