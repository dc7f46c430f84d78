"""ECMA-262 ``pattern`` semantics for Python's ``re``: the one translation every validator uses.

JSON Schema gives ``pattern`` the ECMA-262 meaning. Both schema validators of
the contracts (python-jsonschema in :mod:`rvault_contracts.schemas`, the
jsonschema-rs fast acceptance in :mod:`rvault_contracts.fast_accept`) evaluate
a pattern with the regex this module derives, so the two cannot disagree on
what a pattern admits. It lives on its own, without jsonschema, so the fast
path does not import python-jsonschema (70 ms of start-up) to get it.
"""

from __future__ import annotations

__all__ = ["ecma_to_python"]


def ecma_to_python(pattern: str) -> str:
    """A Python regex with the ECMA-262 meaning JSON Schema gives ``pattern``.

    python-jsonschema hands patterns to ``re.search`` as they are, and two
    Python readings differ from ECMA-262 in ways that let bad values through:
    ``$`` also matches before a final newline (so ``"<64 hex>\\n"`` passed
    every digest pattern), and ``\\d`` matches any Unicode digit. Outside
    character classes ``$`` becomes ``\\Z``; ``\\d``/``\\D`` become ``[0-9]``/
    ``[^0-9]`` (inside a class ``\\d`` becomes ``0-9``). Everything else is
    copied; escapes are kept as they are.
    """
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escaped = pattern[index + 1]
            if escaped == "d":
                out.append("0-9" if in_class else "[0-9]")
            elif escaped == "D" and not in_class:
                out.append("[^0-9]")
            else:
                out.append(char + escaped)
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = "\\Z"
        out.append(char)
        index += 1
    return "".join(out)
