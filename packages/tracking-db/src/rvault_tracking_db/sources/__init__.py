"""The source-lane writer: where each talk's evidence comes from.

``rvault-db sources DB PLAN`` (and its shortcuts ``register-transcript``,
``register-slides``, ``record-deck``, ``add-talk``) is the owner writer of
the fields ``apply_reviewed_metadata`` deliberately leaves alone: the
transcript path, video and slides URLs, the deck path, the local slides PDF,
the source relation, plus new talks and deck catalog receipts.
"""
