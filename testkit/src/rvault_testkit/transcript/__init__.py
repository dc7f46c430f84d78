"""Generated test data of the transcript owner (caption files and speech in several languages)."""
