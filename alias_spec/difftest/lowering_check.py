"""Compile every GPU corpus case through ``alias_spec.frontend.tle`` with the installed Triton.

``alias-spec dev lowering-check [--corpus FILE] [--out FILE] [--limit N]`` builds, for each
case of the GPU corpus (default: tests/gpu/corpus.json under the current directory, as in a
checkout), a kernel with the case's root allocation, its optional index or slice view and its
alias chain, then reads the last alias. It compiles that kernel for sm_90 (no GPU
needed) with whatever Triton the running interpreter has, and records per case the recipe the
frontend chose for each alias step (with the facts it chose on) and the outcome:

* ``compiled``: plus whether the ttgir holds one ``ttg.local_alloc``, ``metadata.shared`` is
  the case's allocation size and the LLVM IR adds the case's absolute offset to the
  shared-memory base (static views only; a runtime index has no constant offset);
* ``unsupported``: the frontend's ``lowering.unsupported`` error (no recipe on this release);
* ``rejected``: a spec rule fired (corpus cases are valid, so this is a finding);
* ``error``: anything else, such as a Triton verifier error or a process abort.

A case whose steps all had a recipe but which did not compile cleanly is a disagreement between
the recipe predicate and the release: the command then exits 1. Each case compiles in a worker
process so that an abort inside the compiler costs one case, not the run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import queue
import re
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alias_spec.generated import recipes
from alias_spec.ir import procs
from alias_spec.model.facts import Facts

# The folder holding the alias_spec package: the workers import it from there, and messages
# name it <repo> so that results do not depend on where the package lives.
PACKAGE_HOME = Path(__file__).resolve().parents[2]
CORPUS = "tests/gpu/corpus.json"  # relative to the current directory, as in a checkout
TARGET_ARCH = 90
NUM_WARPS = 4
CASE_TIMEOUT_S = 300
WORKER_LOG = "compile.log"  # in the worker's scratch folder: the stderr of the case compiling
MESSAGE_LINES = 6
OUTCOMES = ("compiled", "unsupported", "rejected", "error")
# Recipe facts recorded per alias step (the release's tv is recorded once per file).
FACT_NAMES = tuple(k for k in recipes.RECIPE_FACTS if k != "tv")


def smem_offsets(llir: str) -> list[int]:
    """Constant byte offsets the LLVM IR adds to the shared-memory base."""
    return [int(x) for x in re.findall(r"@global_smem, i32 (\d+)\)", llir)]


def static_view(case: dict[str, Any]) -> bool:
    """Whether the case's absolute offset is a compile-time constant (no runtime index)."""
    view = case["view"]
    return not (view["op"] == "index" and view.get("runtime"))


# ---------------------------------------------------------------------------------------------
# The worker: compiles one case at a time (imports Triton).


def _kernel() -> Any:
    """The case kernel; built on first use so that the parent process never imports Triton.
    Its view, alias chain and offsets are the GPU corpus kernel's (``corpus_views``)."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    from alias_spec.frontend import corpus_views as cv
    from alias_spec.frontend import tle

    @gluon.jit
    def case_kernel(
        out_ptr,
        vi,
        ROOT_SHAPE: gl.constexpr,
        ROOT_DTYPE: gl.constexpr,
        ROOT_LAYOUT: gl.constexpr,
        VIEW_OP: gl.constexpr,  # corpus_views.VIEW_OPS, or RUNTIME_INDEX (vi)
        VA: gl.constexpr,
        VB: gl.constexpr,
        VC: gl.constexpr,
        N_CHAIN: gl.constexpr,
        S1: gl.constexpr,
        D1: gl.constexpr,
        L1: gl.constexpr,
        O1: gl.constexpr,
        S2: gl.constexpr,
        D2: gl.constexpr,
        L2: gl.constexpr,
        O2: gl.constexpr,
        S3: gl.constexpr,
        D3: gl.constexpr,
        L3: gl.constexpr,
        O3: gl.constexpr,
        RANK: gl.constexpr,
        SHAPE: gl.constexpr,
        REG: gl.constexpr,
    ):
        root = tle.gpu.alloc(ROOT_SHAPE, ROOT_DTYPE, layout=ROOT_LAYOUT)
        src = cv.case_view(root, vi, VIEW_OP, VA, VB, VC)
        a = cv.alias_chain(src, N_CHAIN, S1, D1, L1, O1, S2, D2, L2, O2, S3, D3, L3, O3)
        # Reading the last alias keeps its address computation alive down to the LLVM IR.
        offs = cv.row_major_offsets(RANK, SHAPE, REG)
        gl.store(out_ptr + offs, a.load(REG))

    return case_kernel


@contextmanager
def _recording(steps: list[dict[str, Any]], announce: Any = None) -> Iterator[None]:
    """Record every recipe decision ``tle.gpu.alloc`` makes while compiling one kernel.

    The frontend shows each of its decisions to ``lowering.observing``'s callback (not the
    offset-fix search's trial facts)."""
    from alias_spec.frontend import lowering

    def seen(facts: Facts, recipe: str | None, reasons: lowering.Reasons) -> None:
        step = {
            "recipe": recipe,
            "reasons": [r[0] for r in reasons],
            # The spec facts follow from the corpus request; keep only the lowering's, in the
            # order the results name once (``fact_names``).
            "facts": [facts[k] for k in FACT_NAMES],
        }
        steps.append(step)
        if announce is not None:  # before Triton sees the ops: an abort must not lose it
            announce(step)

    with lowering.observing(seen):
        yield


def _first_lines(text: str) -> str:
    """The first lines of a diagnostic, with this checkout's and interpreter's paths elided."""
    homes = ((PACKAGE_HOME, "<repo>"), (sys.prefix, "<python>"), (sys.base_prefix, "<python>"))
    for path, name in homes:
        text = text.replace(str(path), name)
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:MESSAGE_LINES])


def _error_text(exc: BaseException) -> str:
    """The diagnostic of a failed compile, without the quoted kernel source."""
    text = str(exc)
    # A CompilationError quotes the kernel source up to a caret line; the error follows it.
    parts = re.split(r"^\s*\^\s*$", text, flags=re.M)
    return _first_lines(parts[-1] if len(parts) > 1 else text) or type(exc).__name__


def compile_case(case: dict[str, Any], stderr_path: str, announce: Any = None) -> dict[str, Any]:
    """Compile one case and classify the outcome (runs in the worker); ``announce`` gets each
    recipe decision as it is made."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler.errors import CompilationError
    from triton.experimental.gluon._runtime import GluonASTSource

    from alias_spec.frontend import corpus_views as cv

    steps: list[dict[str, Any]] = []
    rec: dict[str, Any] = {"id": case["id"], "steps": steps}
    cx = cv.case_constexprs(case, NUM_WARPS)
    sig = {"out_ptr": cv.pointer_type(case["chain"][-1]["dtype"]), "vi": "i32"}
    sig.update({k: "constexpr" for k in cx})
    src = GluonASTSource(_KERNEL, signature=sig, constexprs=cx)
    try:
        with _recording(steps, announce):
            k = triton.compile(
                src, target=GPUTarget("cuda", TARGET_ARCH, 32), options={"num_warps": NUM_WARPS}
            )
    except CompilationError as exc:
        text = str(exc)
        if "[lowering.unsupported]" in text:
            rec["outcome"] = "unsupported"
            rec["checks"] = re.findall(r"\[lowering\.unsupported\] ([\w.]+):", text)
        elif re.search(r"\[alias\.[\w.]+\]", text):
            rec["outcome"] = "rejected"
            rec["rules"] = sorted(set(re.findall(r"\[(alias\.[\w.]+)\]", text)))
        else:
            rec["outcome"] = "error"
        if rec["outcome"] != "unsupported":  # the checks say it all; the rest is prose
            rec["message"] = _error_text(exc)
            _add_stderr(rec, stderr_path)
        return rec
    except Exception as exc:  # noqa: BLE001 - any other failure is the finding to record
        rec["outcome"] = "error"
        rec["message"] = f"{type(exc).__name__}: {_error_text(exc)}"
        _add_stderr(rec, stderr_path)
        return rec
    rec["outcome"] = "compiled"
    expect = case["expect"]
    rec["local_allocs"] = k.asm["ttgir"].count("ttg.local_alloc")
    rec["shared"] = int(k.metadata.shared)
    rec["shared_expected"] = int(expect["alloc_bytes"])
    if static_view(case) and expect["abs_off"]:
        rec["offset_expected"] = int(expect["abs_off"])
        rec["offset_found"] = int(expect["abs_off"]) in smem_offsets(k.asm["llir"])
    return rec


def _add_stderr(rec: dict[str, Any], stderr_path: str) -> None:
    """Attach what the compiler printed (MLIR diagnostics go to stderr, not the exception)."""
    try:
        text = Path(stderr_path).read_text(errors="replace")
    except OSError:
        return
    diag = [ln for ln in text.splitlines() if "error" in ln.lower()]
    if diag:
        rec["stderr"] = _first_lines("\n".join(diag))


_KERNEL: Any = None


def worker(corpus: Path, log_path: str) -> None:
    """Read case ids on stdin; answer each with JSON lines on stdout: one ``step`` line per
    recipe decision as it is made, then the ``record`` line. While a case compiles, its stderr
    goes to ``log_path``, where the parent finds the last words of a process that died."""
    global _KERNEL
    # Out of the terminal's process group (procs.Served): it ends with the driver instead.
    procs.tie_to_starter()
    # A private, empty cache: a cached kernel would skip the frontend and record no recipe.
    cache = tempfile.mkdtemp(prefix="tle-lowering-check-")
    os.environ["TRITON_CACHE_DIR"] = cache
    cases = {c["id"]: c for c in json.loads(corpus.read_text())["cases"]}
    _KERNEL = _kernel()
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the compiler's own prints must not corrupt the answer stream

    def say(kind: str, value: dict[str, Any]) -> None:
        out.write(json.dumps({kind: value}) + "\n")
        out.flush()

    saved = os.dup(2)
    for line in sys.stdin:
        cid = line.strip()
        if not cid:
            continue
        log = os.open(log_path, os.O_WRONLY | os.O_TRUNC | os.O_CREAT)
        os.dup2(log, 2)
        os.close(log)
        try:
            rec = compile_case(cases[cid], log_path, lambda step: say("step", step))
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
        say("record", rec)
    shutil.rmtree(cache, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The driver: hands cases to worker processes, survives their deaths, writes the results.


class _Worker:
    """One compiling process, kept for case after case (``procs.Served``): this tool's
    --worker mode, through the command line. Without its fork (ALIAS_SPEC_NO_FORK) it is one
    process, which the driver can kill when it hangs."""

    def __init__(self, corpus: Path) -> None:
        home = str(PACKAGE_HOME)
        pythonpath = os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH")) if p)
        # The compile log lives in the worker's scratch folder: it goes when the worker does.
        self.served = procs.Served(
            lambda scratch: [sys.executable, "-m", "alias_spec", "dev", "lowering-check",
                             "--worker", str(corpus), "--worker-log",
                             os.path.join(scratch, WORKER_LOG)],
            env={"PYTHONPATH": pythonpath, "ALIAS_SPEC_NO_FORK": "1"},
            who="the compiling process", task="the compile",
        )  # fmt: skip

    def ask(self, cid: str, timeout: float) -> dict[str, Any]:
        """The worker's record for one case; a made-up ``error`` record (with the steps it
        announced) when it died or hung, after which this worker is finished."""
        steps: list[dict[str, Any]] = []
        self.served.send(cid)
        deadline = time.monotonic() + timeout
        while (line := self.served.read_line(deadline)) is not None:
            msg = json.loads(line)
            if "record" in msg:
                return msg["record"]
            steps.append(msg["step"])
        return {"id": cid, "steps": steps, "outcome": "error", "message": self.death(timeout)}

    def death(self, timeout: float) -> str:
        """Why the worker gave no answer, and the last lines the compiler printed."""
        if not self.served.eof:
            self.served.finish(0.0)
            why = f"no answer within {timeout:.0f} s"
        else:
            why = f"the compiling process died (exit status {self.served.finish(60.0)})"
        try:
            text = Path(self.served.scratch, WORKER_LOG).read_text(errors="replace")
        except OSError:  # it died before its first case
            text = ""
        text += self.served.stderr_text()
        return _first_lines("\n".join([why, *text.strip().splitlines()[-MESSAGE_LINES:]]))

    def alive(self) -> bool:
        return self.served.alive()

    def close(self) -> None:
        self.served.close()


def _drive(corpus: Path, ids: list[str], jobs: int, progress: bool) -> dict[str, dict[str, Any]]:
    todo: queue.Queue[str] = queue.Queue()
    for cid in ids:
        todo.put(cid)
    results: dict[str, dict[str, Any]] = {}
    lock = threading.Lock()

    def run() -> None:
        w = _Worker(corpus)
        while True:
            try:
                cid = todo.get_nowait()
            except queue.Empty:
                break
            rec = w.ask(cid, CASE_TIMEOUT_S)
            if not w.alive():
                w.close()
                w = _Worker(corpus)
            with lock:
                results[cid] = rec
                if progress:
                    print(f"{len(results)}/{len(ids)} {cid} {rec['outcome']}", file=sys.stderr)
        w.close()

    threads = [threading.Thread(target=run) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def judge(case: dict[str, Any], rec: dict[str, Any]) -> list[str]:
    """What is wrong with one case's record: empty when the release agrees with the predicate."""
    problems = []
    steps = rec["steps"]
    chosen = len(steps) == len(case["chain"]) and all(s["recipe"] for s in steps)
    outcome = rec["outcome"]
    if outcome == "rejected":
        problems.append("a spec rule rejected a valid corpus case")
    if outcome == "error":
        if steps and all(s["recipe"] for s in steps):
            names = ", ".join(s["recipe"] for s in steps)
            problems.append(f"the release failed on ops of chosen recipes ({names})")
        else:
            problems.append("the compile failed outside the alias steps")
    if outcome == "unsupported" and chosen:
        problems.append("reported unsupported although every step had a recipe")
    if outcome == "compiled":
        if not chosen:
            problems.append("compiled without a recipe recorded for every step")
        if rec["local_allocs"] != 1:
            problems.append(f"{rec['local_allocs']} ttg.local_alloc ops, expected 1")
        if rec["shared"] != rec["shared_expected"]:
            problems.append(f"metadata.shared {rec['shared']}, expected {rec['shared_expected']}")
        if rec.get("offset_found") is False:
            problems.append(f"no constant shared-memory offset {rec['offset_expected']}")
    return problems


def summarize(cases: list[dict[str, Any]], records: list[dict[str, Any]]) -> dict[str, Any]:
    by_id = {c["id"]: c for c in cases}
    outcomes = Counter(r["outcome"] for r in records)
    recipes: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for r in records:
        for s in r["steps"]:
            recipes[s["recipe"] or "none"] += 1
        for c in r.get("checks", []):
            checks[c] += 1
        if r["outcome"] == "error":  # the compiler's own diagnostic where it printed one
            text = r.get("stderr") or r.get("message") or "?"
            errors[re.sub(r"^.*?error: ", "", text.splitlines()[0])] += 1
    return {
        "cases": len(records),
        "outcomes": {o: outcomes.get(o, 0) for o in OUTCOMES},
        "step_recipes": dict(sorted(recipes.items())),
        "unsupported_checks": dict(sorted(checks.items())),
        "errors": dict(sorted(errors.items())),
        "offsets_checked": sum(1 for r in records if "offset_found" in r),
        "disagreements": [r["id"] for r in records if judge(by_id[r["id"]], r)],
    }


def dump(doc: dict[str, Any]) -> str:
    """The results as JSON with one case per line (reviewable diffs, modest size)."""
    head = {k: v for k, v in doc.items() if k != "cases"}
    text = json.dumps(head, indent=1)[:-2]
    rows = ",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in doc["cases"])
    return text + ',\n "cases": [\n' + rows + "\n ]\n}\n"


def _error(message: str) -> int:
    """Bad input, in every command's form: one line on stderr, exit status 2."""
    print(f"alias-spec: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _shown(corpus: Path) -> str:
    """The corpus as the results name it: relative to the current directory when inside it."""
    path, here = corpus.resolve(), Path.cwd().resolve()
    return path.relative_to(here).as_posix() if path.is_relative_to(here) else corpus.name


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="alias-spec dev lowering-check",
        description="Compile the GPU corpus through alias_spec.frontend.tle with the installed "
        "Triton (sm_90, no GPU needed) and record each case's recipes and outcome.",
    )
    ap.add_argument(
        "--corpus", type=Path, default=Path(CORPUS), help="corpus JSON (default: ./%(default)s)"
    )
    ap.add_argument("--out", type=Path, help="write the results JSON here")
    ap.add_argument("--limit", type=int, help="only the first N cases")
    ap.add_argument("--ids", help="only these comma-separated case ids")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--worker-log", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker, args.worker_log)
        return 0
    try:
        cases = json.loads(args.corpus.read_text())["cases"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _error(f"--corpus {args.corpus}: {exc}")
    if args.ids:
        wanted = set(args.ids.split(","))
        unknown = wanted - {c["id"] for c in cases}
        if unknown:
            return _error(f"--ids: unknown case ids {sorted(unknown)}")
        cases = [c for c in cases if c["id"] in wanted]
    if args.limit is not None:
        if args.limit < 1:
            return _error("--limit must be a positive integer")
        cases = cases[: args.limit]
    import triton  # only the version: the workers compile

    from alias_spec.frontend.lowering import triton_version

    started = datetime.datetime.now(datetime.timezone.utc)
    found = _drive(args.corpus.resolve(), [c["id"] for c in cases], args.jobs, not args.quiet)
    records = [found[c["id"]] for c in cases]
    for c, r in zip(cases, records, strict=True):
        r["problems"] = judge(c, r)
    doc = {
        "triton": triton.__version__,
        "tv": triton_version(),
        "target": f"cuda:{TARGET_ARCH}",
        "corpus": _shown(args.corpus),
        "measured": started.date().isoformat(),
        "how": "compiled for sm_90 on a machine without a GPU; nothing ran on a GPU",
        "seconds": round((datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()),
        "fact_names": list(FACT_NAMES),
        "summary": summarize(cases, records),
        "cases": records,
    }
    text = dump(doc)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    s = doc["summary"]
    print(
        f"triton {doc['triton']}: {s['cases']} cases, "
        + ", ".join(f"{o} {n}" for o, n in s["outcomes"].items())
        + f"; disagreements {len(s['disagreements'])} ({doc['seconds']} s)"
    )
    for r in records:
        for p in r["problems"]:
            print(f"  {r['id']}: {p}")
    return 1 if s["disagreements"] else 0
