"""Names a module exports but imports on first use (PEP 562): one implementation.

The owners' ``api`` modules and the writer package re-export names whose
modules are heavy (the write half of a protocol, a manifest validator, a PDF
probe). A caller that never touches them should not pay their import:
``rvault-db status`` and ``rvault-returns validate`` import what they use and
no more (issue 32), and the start-up guards (``tools/tests/test_startup_imports.py``,
the packages' ``test_*_imports.py``) hold them to it. Every such module hands
its table to :func:`lazy_exports` instead of writing its own ``__getattr__``.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing stays out of a console script's start-up
    from collections.abc import Callable, Collection, Mapping, MutableMapping
    from typing import Any


def lazy_exports(
    package: str,
    names: Mapping[str, str],
    namespace: MutableMapping[str, Any],
    modules: Collection[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a module exporting ``names`` lazily.

    ``names`` maps an exported name to the module of ``package`` defining it;
    ``modules`` are submodules of ``package`` exported as themselves. A name
    is imported on its first access and then kept in ``namespace`` (the
    module's ``globals()``), so later lookups never come here again.
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is not None:
            value = getattr(importlib.import_module(f"{package}.{module}"), name)
            namespace[name] = value
            return value
        if name in modules:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {namespace.get('__name__')!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *names, *modules})

    return __getattr__, __dir__
