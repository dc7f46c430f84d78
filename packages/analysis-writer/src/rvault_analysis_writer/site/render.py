"""HTML through Jinja2 with autoescaping on, Markdown through markdown-it-py.

Every string from a return, a deck or a database is untrusted. Jinja2
escapes each interpolated value (autoescape is forced on for every
template, not chosen by file extension), and analysis prose is rendered by
markdown-it-py with raw HTML disabled, so ``<script>`` in a worker's notes
arrives as text and a ``javascript:`` link is not produced. The only
``Markup`` this package creates is markdown-it's output.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("rvault_analysis_writer.site", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["markdown"] = markdown
    return env


@cache
def _markdown_engine() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown(text: object) -> Markup:
    """Analysis prose (Markdown) as safe HTML; raw HTML in it is shown as text."""
    if not isinstance(text, str) or not text.strip():
        return Markup("")
    return Markup(_markdown_engine().render(text))


def render(template: str, **context: Any) -> bytes:
    return environment().get_template(template).render(**context).encode("utf-8")


def static(*parts: str) -> bytes:
    """A file shipped beside the templates (stylesheet, scripts), byte for byte."""
    return resources.files("rvault_analysis_writer.site").joinpath("templates", *parts).read_bytes()
