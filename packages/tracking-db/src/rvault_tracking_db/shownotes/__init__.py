"""Shownotes scan/import: talks enter the vault from the speaker's site.

Local Jekyll, Hugo, Eleventy and Astro sources are read without following
symbolic links; YAML, TOML and JSON frontmatter, a body H1 and labeled
Conference/Event/Venue/Date/Video/Recording/Slides/Deck lines become a
proposal per file, which is added, used to fill empty fields, or left for
review. The report is contract ``shownotes-scan-report`` v3.
"""
