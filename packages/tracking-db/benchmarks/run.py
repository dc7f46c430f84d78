"""All rvault-db benchmarks, one table each (``tools/bench.py`` runs this)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["bench_read_mutate.py", "bench_queue_scan.py"]


def main() -> int:
    status = 0
    for name in BENCHMARKS:
        script = HERE / name
        if not script.exists():
            continue
        sys.argv = [str(script)]
        try:
            runpy.run_path(str(script), run_name="__main__")
        except SystemExit as exc:
            status = status or int(exc.code or 0)
        print()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
