"""Record the slowest tests of a full run, so that the full tier starts them first.

    python -m pytest -q -n auto --junitxml=run.xml
    python -m tools.durations run.xml [--top N]

Writes ``tests/durations.json``: the ``--top`` slowest node ids (default 150) with their seconds
(setup, call and teardown together, as pytest's JUnit XML sums them). ``tests/conftest.py``
sorts the full tier's tests by it, slowest first, so that pytest-xdist's workers do not end on
one long test each. A stale file only changes the order: a test it does not name runs after
those it does, in collection order.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.paths import TESTS

OUT = TESTS / "durations.json"


def node_id(classname: str, name: str) -> str:
    """pytest's node id of a JUnit test case (``tests.plan.test_x`` + ``test_y[p]``)."""
    parts = classname.split(".")
    # A test class adds one component after the module (a capitalised name by convention).
    cls = [parts.pop()] if parts and parts[-1][:1].isupper() else []
    return "::".join(["/".join(parts) + ".py", *cls, name])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("junit", type=Path, help="pytest's --junitxml output of a full run")
    p.add_argument("--top", type=int, default=150)
    args = p.parse_args(argv)
    try:
        root = ET.parse(args.junit).getroot()
    except (OSError, ET.ParseError) as exc:
        print(f"tools.durations: {args.junit}: {exc}", file=sys.stderr)
        return 2
    times = {
        node_id(tc.get("classname", ""), tc.get("name", "")): float(tc.get("time") or 0)
        for tc in root.iter("testcase")
    }
    top = sorted(times.items(), key=lambda kv: -kv[1])[: args.top]
    doc = {"note": "written by python -m tools.durations; read by tests/conftest.py (order only)",
           "seconds": {k: round(v, 1) for k, v in top}}  # fmt: skip
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{OUT.relative_to(TESTS.parent)}: {len(top)} tests, {sum(v for _, v in top):.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
