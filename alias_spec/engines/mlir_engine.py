"""The generated verifier inside real MLIR: ``compiler_patch/``'s testbed, built and run.

``compiler_patch/testbed`` (hand-written) builds the generated ``MemDescAliasOpVerify.cpp``,
unchanged, against Debian's MLIR 19 into a small ``mlir-opt``-like driver, ``tle-alias-opt``,
with stand-in ``tt``/``ttg``/``ttng``/``tle`` dialects that parse IR as Triton prints it. This
module builds it (CMake, cached by a hash of the sources) and judges requests with it: each
request becomes a chunk of IR (``backends.gen_patch.alias_chunk``, which the lit tests are
written with too), the driver parses and verifies them all in one run with
``-split-input-file``, and every ``tle.memdesc_alias`` error is read back as its rule id.

Its domain is what the op can express, as the C++ glue's (``cpp_glue``): the frontend-only
facts, an offset that is no i64, a source base or allocation alignment the types cannot say
and negative dims give a ``RequestError`` saying so. Beyond the glue, the source view's
position may lie along leading allocation dims (the subslice's offsets span them). A layout
the spec does not place is written as the plain row-major one; the rules that need its
placement (``Request.unknown``) are the spec's to leave unjudged, not this engine's to match.
The memory space ``global`` is written as a string attribute the verifier does not know.

``MlirEngine`` is this judge as the registry's request engine (``engines.base.RequestEngine``;
it cannot be a fact engine: it judges IR written from a request's types).

The driver is found through ``ALIAS_SPEC_MLIR_OPT`` (a built ``tle-alias-opt``), else built
from ``compiler_patch/`` under the current directory into the user's cache (the C++ engine's,
``cpp_engine.cache_dir``), in a folder named by the sources' hash: clones of one tree share it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alias_spec.backends import gen_patch
from alias_spec.engines.base import RequestEngine, RequestOutcome
from alias_spec.engines.cpp_engine import cache_dir
from alias_spec.model.catalogue import RULES
from alias_spec.model.errors import RequestError

TOOL = "tle-alias-opt"
ENV = "ALIAS_SPEC_MLIR_OPT"
INSTALL = "apt-get install libmlir-19-dev mlir-19-tools llvm-19-dev cmake ninja-build"
PATCH = "compiler_patch"
PROFILES = gen_patch.LIT_PROFILES  # the two builds of the verifier the driver holds
# What the build reads: a change to any of them rebuilds.
SOURCES = ("testbed", "verifier", "ods")
STAMP = "sources.sha256"
_RULE_IDS = {r.id for r in RULES}
# One diagnostic as MlirOptMain prints it under -split-input-file: the chunk's first line in
# the file, the position inside the chunk, the severity and the text.
_DIAG = re.compile(r"^within split at .*?:(\d+) offset :(\d+):(\d+): (error|warning|note): (.*)$")
_ALIAS_ERROR = re.compile(r"^'tle\.memdesc_alias' op (.*) \[([\w.]+)\]$")


class MlirEngineError(RuntimeError):
    """The testbed cannot be built here, or its driver failed or answered something
    unexpected. The first line says what, and what to install where something is missing."""


def missing() -> str | None:
    """Why the testbed cannot be built here (one line, with the install command), or None.
    Nothing is built."""
    needs = [("cmake", "cmake"), ("mlir-tblgen-19", "mlir-19-tools"), ("llvm-config-19", "")]
    absent = [tool for tool, _ in needs if shutil.which(tool) is None]
    if shutil.which(os.environ.get("CXX", "c++")) is None and shutil.which("g++") is None:
        absent.append("a C++ compiler")
    if not absent:
        prefix = _llvm_prefix()
        if prefix is None or not (prefix / "lib/cmake/mlir/MLIRConfig.cmake").is_file():
            absent.append("MLIR 19's CMake package (libmlir-19-dev)")
    if not absent:
        return None
    return f"MLIR 19 is not installed here (no {', '.join(absent)}): {INSTALL}"


def _llvm_prefix() -> Path | None:
    try:
        out = subprocess.run(
            ["llvm-config-19", "--prefix"], capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def build_dir(patch: Path) -> Path:
    """Where ``driver`` builds ``patch``: the user's cache, one folder per state of the sources."""
    return cache_dir() / f"mlir-testbed-{source_hash(patch)[:20]}"


def source_hash(patch: Path) -> str:
    """A hash of every file the build reads under ``patch`` and of the MLIR it builds on."""
    key = hashlib.sha256()
    for sub in SOURCES:
        for path in sorted((patch / sub).rglob("*")):
            if path.is_file():
                key.update(path.relative_to(patch).as_posix().encode() + b"\0")
                key.update(hashlib.sha256(path.read_bytes()).digest())
    try:
        version = subprocess.run(
            ["llvm-config-19", "--version"], capture_output=True, text=True, check=False
        ).stdout
    except OSError:  # no MLIR here: build() says so in one line
        version = ""
    key.update(version.encode())
    return key.hexdigest()


@contextmanager
def _locked(build: Path) -> Iterator[None]:
    """One builder at a time per build folder (test workers share it)."""
    build.mkdir(parents=True, exist_ok=True)
    with open(build / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(cmd: Sequence[str], what: str) -> None:
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, check=False)
    except OSError as exc:
        raise MlirEngineError(f"{what} failed: {exc}") from None
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-4000:]
        raise MlirEngineError(f"{what} failed (exit {proc.returncode}):\n{tail}")


def build(patch: Path, build: Path) -> Path:
    """The driver built from ``patch`` (a ``compiler_patch/`` folder) in ``build``; built only
    when the sources' hash differs from the last build's."""
    why = missing()
    if why is not None:
        raise MlirEngineError(why)
    if not (patch / "testbed" / "CMakeLists.txt").is_file():
        raise MlirEngineError(f"{patch / 'testbed'}: no CMakeLists.txt (not a compiler_patch/)")
    binary = build / TOOL
    with _locked(build):
        digest = source_hash(patch)
        stamp = build / STAMP
        if binary.is_file() and stamp.is_file() and stamp.read_text() == digest:
            return binary
        # A fresh folder each time: the sources changed, and a cache written for another
        # source folder would make CMake refuse.
        for entry in build.iterdir():
            if entry.name != ".lock":
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        _run(
            ["cmake", *generator, "-S", str(patch / "testbed"), "-B", str(build)],
            f"configuring {patch / 'testbed'}",
        )
        _run(["cmake", "--build", str(build)], f"building {TOOL}")
        stamp.write_text(digest)
    return binary


def driver(root: Path | None = None) -> Path:
    """``$ALIAS_SPEC_MLIR_OPT``, else the driver built from ``root``'s ``compiler_patch/``
    (default: the current directory) into ``build_dir``."""
    given = os.environ.get(ENV)
    if given:
        path = Path(given)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise MlirEngineError(f"{ENV}={given}: not an executable")
        return path
    base = Path.cwd() if root is None else root
    if not (base / PATCH).is_dir():
        raise MlirEngineError(
            f"no {PATCH}/ under {base}: run from a checkout of tle-alias-spec or set {ENV}"
        )
    return build(base / PATCH, build_dir(base / PATCH))


# --- running ----------------------------------------------------------------------------------


def run_file(
    binary: Path, path: Path, profile: str, verify_diagnostics: bool = False
) -> subprocess.CompletedProcess[str]:
    """The driver on one file of ``-split-input-file`` chunks, the verifier built for
    ``profile``; with ``verify_diagnostics`` it checks the file's ``expected-error`` lines."""
    if profile not in PROFILES:
        raise ValueError(f"the driver verifies with {', '.join(PROFILES)}, not {profile!r}")
    cmd = [str(binary), f"--tle-alias-profile={profile}", str(path), "-split-input-file"]
    cmd += ["-verify-diagnostics"] if verify_diagnostics else []
    try:
        return subprocess.run(
            [*cmd, "-o", os.devnull], capture_output=True, text=True, check=False, timeout=600
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise MlirEngineError(f"running {binary.name} failed: {exc}") from None


def judge(
    requests: Sequence[Mapping[str, Any]], profile: str, binary: Path | None = None
) -> list[RequestOutcome]:
    """Per request, the rule ids of the errors the real-MLIR verifier reports on its op (in
    emission order, which is catalogue order), or the RequestError saying why the request is
    malformed or outside what the op can express. One driver run for all of them."""
    if profile not in PROFILES:
        raise ValueError(f"the driver verifies with {', '.join(PROFILES)}, not {profile!r}")
    results: list[RequestOutcome] = []
    chunks: list[str] = []
    slots: list[int] = []
    for i, obj in enumerate(requests):
        try:
            chunk = gen_patch.alias_chunk(obj, f"r{i}")
        except RequestError as exc:
            results.append(exc)
            continue
        slots.append(len(results))
        results.append([])
        chunks.append(chunk.text())
    if not chunks:
        return results
    text = f"\n{gen_patch.SPLIT}\n".join(chunks)
    # MlirOptMain names a chunk by the line its split marker is on (the first chunk: line 1).
    lines = text.split("\n")
    starts = [1] + [n for n, row in enumerate(lines, 1) if row == gen_patch.SPLIT]
    with tempfile.TemporaryDirectory(prefix="alias-spec-mlir-") as tmp:
        path = Path(tmp) / "requests.mlir"
        path.write_text(text)
        proc = run_file(binary or driver(), path, profile)
    by_start = {start: slot for start, slot in zip(starts, slots, strict=True)}
    problems = []
    for raw in proc.stderr.splitlines():
        m = _DIAG.match(raw)
        if m is None or m.group(4) == "note":
            continue  # source excerpts, carets and notes
        start, message = int(m.group(1)), m.group(5)
        found = _ALIAS_ERROR.match(message) if m.group(4) == "error" else None
        if start not in by_start or found is None or found.group(2) not in _RULE_IDS:
            problems.append(raw)
            continue
        ids = results[by_start[start]]
        assert isinstance(ids, list)
        ids.append(found.group(2))
    if problems or proc.returncode not in (0, 1):
        detail = "\n".join(problems[:20]) or proc.stderr[-4000:] or "(no output)"
        raise MlirEngineError(
            f"{TOOL} exited with {proc.returncode} and diagnostics that are no rule's:\n{detail}"
        )
    return results


class MlirEngine(RequestEngine):
    """The real-MLIR verifier as a request engine, over one built driver."""

    name = "mlir"
    profiles = PROFILES

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def judge_batch(
        self, requests: Sequence[Mapping[str, Any]], profile: str
    ) -> list[RequestOutcome]:
        return judge(requests, profile, self.binary)
