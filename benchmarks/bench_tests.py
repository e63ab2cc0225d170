"""How long the test tiers take on a clean clone: ``.ci/run`` (what CI runs) and the fast tier.

    python -m benchmarks.bench_tests [--tier full,fast] [--no-write]

Clones the checkout's HEAD into a temporary folder with a virtual environment of its own (so
the clone's ``pip install -e`` leaves this checkout's install alone), then times ``bash .ci/run``
there (packages installed, generated files checked, lint, the whole suite) and the fast tier
(``python -m pytest -q -n 2 -m "not slow"``). Prints each time with pytest's own summary and
appends the measurement (date, commit, cores) to ``benchmarks/results/test_tiers.json``, which
``alias-spec dev tiers`` puts into the README. A tier that fails is recorded with its exit
status, never as a time to aim at.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "results" / "test_tiers.json"
COMMANDS = {
    "full": ["bash", ".ci/run"],
    "fast": ["python", "-m", "pytest", "-q", "-n", "2", "-m", "not slow", "-p", "no:cacheprovider"],
}
_COUNT = re.compile(r"(\d+) (passed|skipped|failed|errors?|deselected|xfailed|xpassed)")
_PYTEST_S = re.compile(r" in ([\d.]+)s")


def _summary(out: str) -> dict[str, Any]:
    """pytest's last summary line: its counts and its own seconds."""
    lines = [ln for ln in out.splitlines() if " in " in ln and _COUNT.search(ln)]
    if not lines:
        return {}
    last = lines[-1]
    counts = {kind.rstrip("s") if kind == "errors" else kind: int(n)
              for n, kind in _COUNT.findall(last)}  # fmt: skip
    m = _PYTEST_S.search(last)
    if m:
        counts["pytest_seconds"] = float(m.group(1))
    return counts


def _run(tier: str, clone: Path, env: dict[str, str]) -> dict[str, Any]:
    print(f"[{tier}] {' '.join(COMMANDS[tier])} ...", flush=True)
    start = time.perf_counter()
    proc = subprocess.run(COMMANDS[tier], cwd=clone, env=env, capture_output=True, text=True,
                          check=False)  # fmt: skip
    seconds = round(time.perf_counter() - start, 1)
    result = {"seconds": seconds, "exit": proc.returncode,
              **{"passed": 0, "skipped": 0}, **_summary(proc.stdout)}  # fmt: skip
    print(f"[{tier}] exit {proc.returncode} in {seconds} s: {proc.stdout.strip()[-300:]}",
          flush=True)  # fmt: skip
    if proc.returncode != 0:
        print(proc.stderr.strip()[-2000:], file=sys.stderr)
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tier", default="full,fast", help="comma-separated: full, fast")
    p.add_argument("--no-write", action="store_true", help=f"do not append to {RECORD.name}")
    p.add_argument("--junit", type=Path, help="keep the full tier's JUnit XML here (for "
                   "python -m tools.durations)")  # fmt: skip
    args = p.parse_args(argv)
    tiers = [t for t in args.tier.split(",") if t]
    if not tiers or any(t not in COMMANDS for t in tiers):
        p.error(f"--tier takes a comma-separated list of {', '.join(COMMANDS)}")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.strip()  # fmt: skip
    run: dict[str, Any] = {"date": datetime.date.today().isoformat(), "commit": commit,
                           "cpus": os.cpu_count()}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-tests-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
               "VIRTUAL_ENV": str(venv)}  # fmt: skip
        if "full" not in tiers:  # the fast tier alone still needs the packages
            subprocess.run(["python", "-m", "pip", "install", "-q", "-e", ".[test,triton]"],
                           cwd=clone, env=env, check=True)  # fmt: skip
        # .ci/run installs the packages: run it first, so the fast tier finds them.
        for tier in sorted(tiers, key=lambda t: t != "full"):
            tier_env = dict(env)
            if tier == "full" and args.junit:
                # .ci/run's pytest line is CI's; the report is asked for from outside it.
                tier_env["PYTEST_ADDOPTS"] = f"--junitxml={args.junit.resolve()}"
            run[tier] = _run(tier, clone, tier_env)
    print(json.dumps(run, indent=1))
    if not args.no_write:
        doc = json.loads(RECORD.read_text()) if RECORD.is_file() else {"runs": []}
        doc["note"] = "written by python -m benchmarks.bench_tests; read by alias-spec dev tiers"
        doc["runs"].append(run)
        RECORD.write_text(json.dumps(doc, indent=1) + "\n")
    return 0 if all(run[t]["exit"] == 0 for t in tiers) else 1


if __name__ == "__main__":
    sys.exit(main())
