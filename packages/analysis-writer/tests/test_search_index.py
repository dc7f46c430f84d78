"""The prebuilt search index is the one MiniSearch itself would build.

The index is serialized in Python at site build time; a query is tokenized
by MiniSearch in the browser. If the two tokenizers disagreed, a term would
silently never match. So the vendored MiniSearch (run by Node.js, which
tools/bootstrap.sh installs with npm) indexes the same documents with
``addAll`` and its ``toJSON()`` must equal :func:`search.serialize` exactly.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources

from rvault_analysis_writer.site.search import Document, chunks, index_script, serialize, tokenize

TEXTS = (
    "Let me tell you about the worst deploy of my life.",
    "C++ und Gänsefüßchen: «Zitat» — it's 9:30, isn't it?\nNew line\r\nand\u00a0NBSP\u2003em",
    "İstanbul ΣΊΣΥΦΟΣ straße ﬁne café naïve",
    "",
    "...leading, trailing punctuation!!!",
    "tabs\tand  double  spaces",
)


def _documents() -> list[Document]:
    return [
        Document(f"doc-{i}", f"Title {i}: {text[:10]}", text, {"page": f"p{i}.html"})
        for i, text in enumerate(TEXTS)
    ]


def _minisearch_json(documents: list[Document]) -> dict:
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "Node.js is not installed: run tools/bootstrap.sh (Debian package npm)"
    library = resources.files("rvault_analysis_writer.site").joinpath(
        "templates", "vendor", "minisearch.js"
    )
    script = (
        "const MiniSearch = require(process.argv[1]);"
        "const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const ms = new MiniSearch({fields: ['title', 'text'], storeFields: ['title', 'page']});"
        "ms.addAll(docs);"
        "process.stdout.write(JSON.stringify(ms.toJSON()));"
    )
    payload = [{"id": d.id, "title": d.title, "text": d.text, **d.stored} for d in documents]
    result = subprocess.run(
        [node, "-e", script, str(library)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(result.stdout)


def test_python_index_equals_minisearch_add_all() -> None:
    documents = _documents()
    ours = json.loads(json.dumps(serialize(documents)))
    theirs = _minisearch_json(documents)
    theirs["index"] = sorted(theirs["index"], key=lambda entry: entry[0])
    averages = ours.pop("averageFieldLength"), theirs.pop("averageFieldLength")
    assert ours == theirs
    assert all(abs(a - b) < 1e-9 for a, b in zip(*averages, strict=True))


def test_tokenize_splits_like_minisearch() -> None:
    assert tokenize("C++ and C#, it's") == ["C++", "and", "C", "it", "s"]  # + is a symbol
    assert tokenize("a\u2003b\u00a0c") == ["a", "b", "c"]
    assert tokenize("") == [""]


def test_index_script_assigns_one_ascii_global() -> None:
    script = index_script(_documents()).decode("ascii")
    assert script.startswith("window.RVAULT_SEARCH_INDEX = {") and script.endswith("};\n")
    assert index_script(_documents()) == index_script(_documents())  # same bytes


def test_chunks_are_word_counted_passages_with_their_lines() -> None:
    lines = ["one two", "", "three four five six seven", "eight"]
    assert list(chunks(lines, 3)) == [
        (1, 3, 0, "one two three"),
        (3, 3, 3, "four five six"),
        (3, 4, 6, "seven eight"),
    ]
    assert list(chunks(["a " * 130], 60))[-1][:3] == (1, 1, 120)  # one long Whisper line
