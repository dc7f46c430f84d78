"""One concurrent database client (run as a script by test_concurrency.py).

Not a test module. Drives ``rvault-db`` in-process (``rvault_tracking_db.cli.main``)
so eight or more clients really overlap instead of paying interpreter start-up
per call, and follows the documented retry contract with
``rvault_contracts.retry.retry_bound``: every attempt re-reads (dry run), re-plans
and applies bound to the hash it just read. Prints one JSON line of results.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

from rvault_contracts.cli import Refusal
from rvault_contracts.retry import RetriesExhausted, retry_bound
from rvault_tracking_db.cli import main

ATTEMPTS = 60


def db_call(*args: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, json.loads(out.getvalue())


def bound(args: list[str], stats: dict[str, Any]) -> dict[str, Any]:
    """Dry run, then apply bound to its input hash; a refusal raises ``Refusal``."""
    code, dry = db_call(*args)
    if code != 0:
        error = dry["error"]
        raise Refusal(error["code"], error["message"], error["path"])
    code, done = db_call(*args, "--apply", "--expected-sha256", dry["input_sha256"])
    if code != 0:
        error = done["error"]
        stats["refusals"][error["code"]] = stats["refusals"].get(error["code"], 0) + 1
        raise Refusal(error["code"], error["message"], error["path"])
    return done


def plan_file(work: Path, name: str, key: str, value: Any) -> Path:
    path = work / f"plan-{name}.json"
    path.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "mutations": [
                    {
                        "kind": "set_config",
                        "path": [key],
                        "expect": {"$missing": True},
                        "value": value,
                    }
                ],
            }
        )
    )
    return path


def run(job: dict[str, Any]) -> dict[str, Any]:
    db, work, role, me = job["db"], Path(job["work"]), job["role"], job["id"]
    stats: dict[str, Any] = {"id": me, "role": role, "landed": [], "refused": {}, "refusals": {}}
    stats["attempts"] = 0
    start = time.monotonic()

    def attempt(args: list[str]) -> dict[str, Any]:
        def once(n: int) -> dict[str, Any]:
            stats["attempts"] += 1
            return bound(args, stats)

        return retry_bound(once, attempts=ATTEMPTS)

    for n in range(job["ops"]):
        if role == "mutator":
            key = f"probe_{me}_{n}"
            args = ["mutate", db, str(plan_file(work, key, key, [me, n]))]
            label = key
        elif role == "contender":
            key = f"contested_{n}"
            args = ["mutate", db, str(plan_file(work, f"{key}-{me}", key, me))]
            label = key
        else:  # claimer: claim its own talk, then recover the batch
            batch = f"{me}-{n}"
            claim = [
                "queue",
                db,
                "claim",
                "--run-id",
                f"run-{me}",
                "--batch-id",
                batch,
                "--now",
                "2026-11-30T12:00:00+00:00",
                "--talk",
                job["talk"],
                "--catalog-fingerprint",
                job["fingerprint"],
            ]
            recover = [
                "queue",
                db,
                "recover",
                "--run-id",
                f"run-{me}",
                "--batch-id",
                batch,
                "--now",
                "2026-11-30T12:01:00+00:00",
            ]
            try:
                attempt(claim)
                attempt(recover)
                stats["landed"].append(batch)
            except RetriesExhausted as exc:
                stats["refused"]["retries_exhausted"] = (
                    stats["refused"].get("retries_exhausted", 0) + 1
                )
                stats.setdefault("exhausted", []).append(str(exc))
            except Refusal as exc:
                stats["refused"][exc.code] = stats["refused"].get(exc.code, 0) + 1
            continue
        try:
            attempt(args)
            stats["landed"].append(label)
        except RetriesExhausted:
            stats["refused"]["retries_exhausted"] = stats["refused"].get("retries_exhausted", 0) + 1
        except Refusal as exc:
            stats["refused"][exc.code] = stats["refused"].get(exc.code, 0) + 1
    stats["seconds"] = time.monotonic() - start
    return stats


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
