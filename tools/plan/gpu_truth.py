"""What the GPU ground-truth scripts (``race_truth.py``, ``async_truth.py``) share: finding a
CUDA GPU through torch, counting wrong values over launches, and writing what it showed with
the machine's facts."""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

NO_GPU = 77  # the scripts' exit status without a GPU


def cuda_torch(who: str) -> Any | None:
    """torch, when it sees a CUDA GPU; None after a line saying why not."""
    try:
        import torch
    except ImportError:
        print(f"{who}: needs a CUDA GPU (torch is not installed)", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{who}: needs a CUDA GPU (torch sees none)", file=sys.stderr)
        return None
    return torch


def record(torch: Any, results: dict[str, Any], out: str) -> None:
    """Print and write the results with the date, the device and the releases."""
    import triton

    doc = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "triton": triton.__version__, "kernels": results,
    }  # fmt: skip
    print(json.dumps(doc, indent=1))
    Path(out).write_text(json.dumps(doc, indent=1) + "\n")


def tally(launch: Callable[[], int], values: int, repeat: int) -> dict[str, Any]:
    """``launch`` run ``repeat`` times (each returns how many of its ``values`` were wrong):
    the values and launches in all, and those wrong."""
    wrong = launches_wrong = 0
    for _ in range(repeat):
        bad = launch()
        wrong += bad
        launches_wrong += bad > 0
    return {"values": values * repeat, "values_wrong": wrong, "launches": repeat,
            "launches_wrong": launches_wrong}  # fmt: skip
