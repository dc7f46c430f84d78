"""Source identity: comparing what a source says about itself with the talk record.

``matching`` holds the deterministic comparisons (titles, names, dates) that
both the offline preflight and the deck-binding proof use, so a deck is never
matched by a weaker rule than a recording. Standard library only.
"""
