"""Where a benchmark writes its results: the file ``--out`` names, else a scratch file outside
the checkout. The committed results under ``benchmarks/results/`` change only when asked to
(``--out benchmarks/results/NAME.json``): a run to try a benchmark must not rewrite them."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

SCRATCH = Path(tempfile.gettempdir()) / "alias-spec-benchmarks"


def out_path(out: str | Path | None, name: str) -> Path:
    """``out`` when given, else ``name`` in the scratch folder."""
    return Path(out) if out else SCRATCH / name


def write(out: str | Path | None, name: str, doc: Any) -> Path:
    """Write ``doc`` as JSON where ``out_path`` says and say where."""
    path = out_path(out, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path}", flush=True)
    return path


HELP = (
    "where to write the results (default: a scratch file; name benchmarks/results/{} to "
    "update the committed one)"
)
