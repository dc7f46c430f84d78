"""The root README's tutorial runs verbatim from the directory above the vault.

Steps 1 and 2 (create the vault and its folders, scan the shownotes site,
import captions, fetch over them and register what the tool printed) are
taken from ``README.md`` as written and run with bash, one command at a
time, in an empty directory that holds only what a speaker brings: a
shownotes site with one talk and, before step 2, the talk's caption file.
The one thing a person copies by hand is each ``<input_sha256>``: it is
replaced by the ``input_sha256`` of the dry run just before it. Every
command must exit 0, and the transcript must end up registered under its
vault-relative path with a current quality receipt.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ASSIGNMENT = re.compile(r"^(?:[A-Z_]+=\S+\s+)*[A-Z_]+=\S+\s*(?:#.*)?$")
HASH = "<input_sha256>"


def tutorial_blocks() -> list[str]:
    """The ``sh`` blocks of the README's tutorial section, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Tutorial: your own vault", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def commands(block: str) -> list[str]:
    """Logical command lines (continuations joined, indentation dropped)."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.strip() for line in joined.splitlines() if line.strip()]


class Shell:
    """Runs tutorial lines in ``home``; shell variables persist between lines."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.assignments: list[str] = []
        self.last: dict | None = None
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}

    def run(self, line: str) -> None:
        if ASSIGNMENT.match(line):
            self.assignments.append(line)
            return
        if HASH in line:
            assert self.last is not None, f"no dry run before: {line}"
            line = line.replace(HASH, self.last["input_sha256"])
        script = "\n".join(["set -euo pipefail", *self.assignments, line])
        done = subprocess.run(
            ["bash", "-c", script], cwd=self.home, env=self.env, capture_output=True,
            text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        if done.stdout.strip():
            document = json.loads(done.stdout)
            if "input_sha256" in document:
                self.last = document


def caption_file(cues: int) -> str:
    """A caption export of ``cues`` seven-word cues (70 cues: 490 words, over the floor)."""
    lines = ["WEBVTT", ""]
    for i in range(cues):
        at = f"00:{i // 60:02d}:{i % 60:02d}"
        lines += [f"{at}.000 --> {at}.900", f"we discuss point {i} in detail now", ""]
    return "\n".join(lines)


def test_tutorial_steps_1_and_2_run_verbatim_from_above_the_vault(tmp_path: Path) -> None:
    blocks = tutorial_blocks()
    create, transcripts = blocks[0], blocks[1]
    assert create.lstrip().startswith("mkdir -p vault/")  # step 1 creates the folders
    # what the speaker brings: a shownotes site with one talk
    talks = tmp_path / "site" / "_talks"
    talks.mkdir(parents=True)
    (talks / "2024-05-01-my-talk.md").write_text(
        "---\ntitle: My Talk\ndate: 2024-05-01\nconference: Some Conf\n---\nThe talk.\n"
    )
    shell = Shell(tmp_path)
    for line in commands(create):
        shell.run(line)
    # ... and, once the folders exist, the talk's caption file where step 2 expects it
    video = re.search(r"\bID=(\S+)", transcripts)
    assert video is not None
    vtt = tmp_path / "vault" / "transcripts" / f"{video.group(1)}.en.vtt"
    vtt.write_text(caption_file(70), encoding="utf-8")
    for line in commands(transcripts):
        shell.run(line)
    database = json.loads((tmp_path / "vault" / "tracking-database.json").read_bytes())
    talk = next(t for t in database["talks"] if t["filename"] == "2024-05-01-my-talk.md")
    assert talk["transcript_path"] == f"transcripts/{video.group(1)}.txt"
    status = subprocess.run(
        [BIN / "rvault-db", "status", "vault/tracking-database.json", "--format", "json"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )  # fmt: skip
    row = next(r for r in json.loads(status.stdout)["talks"] if r["filename"] == talk["filename"])
    assert row["transcript"]["quality"] == "quality_current", row["transcript"]
