"""Run every package's benchmark (``packages/*/benchmarks/run.py``) in turn.

Each prints its own table; this prints a header per package and exits
non-zero if any benchmark script failed. Usage:
``.venv/bin/python tools/bench.py [OWNER ...]``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    scripts = sorted(ROOT.glob("packages/*/benchmarks/run.py"))
    if argv:
        scripts = [s for s in scripts if s.parent.parent.name in argv]
    failed = []
    for script in scripts:
        owner = script.parent.parent.name
        print(f"\n== {owner} ({script.relative_to(ROOT)}) ==", flush=True)
        if subprocess.run([sys.executable, str(script)], cwd=ROOT, check=False).returncode != 0:
            failed.append(owner)
    if failed:
        print(f"\nbenchmarks failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
