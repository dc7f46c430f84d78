"""pptx-evidence's test data: decks (and a matching PDF) generated at run time.

It lives in the dev-only testkit, not in the ``rvault-pptx-evidence`` wheel:
a user's install never needs it; the package's tests, conformance, the
reliability suite and its benchmarks do. ``sample_decks`` reuses the owner's
own OOXML names (``rvault_pptx_evidence.archive``/``ooxml``) so the decks
and the extractor never disagree about a namespace or the media prefix; it
needs the ``[pptx-evidence]`` extra of the testkit (python-pptx, Pillow, pypdf).
"""
