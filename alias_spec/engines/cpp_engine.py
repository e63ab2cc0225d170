"""The C++ engine: runs the generated ``alias_rules.h`` through a small compiled harness.

The harness (``harness.cpp``) is built with the machine's C++ compiler (``$CXX`` or ``g++``,
``-O2 -std=c++17``) into a cache directory, keyed by a hash of the header, the harness, the
compiler and the flags, so a changed catalogue or flag set rebuilds it. Tests build it with
AddressSanitizer and UBSan (``sanitize=True``); any sanitizer report is an error.

Its domain is int64 facts, the C++ ``Facts`` struct: a value outside int64 is rejected with a
``RequestError``, never wrapped.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from alias_spec.engines.base import Engine, Outcome, in_int64
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, rule
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import FACTS, Facts
from alias_spec.model.interp import report_values
from alias_spec.model.verdict import Verdict, Violation

HERE = Path(__file__).resolve().parent
HEADER = HERE.parent / "generated" / "alias_rules.h"
HARNESS = HERE / "harness.cpp"
BASE_FLAGS = ("-std=c++17", "-O2")
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class CppEngineError(RuntimeError):
    """No compiler, a failed build, or a harness run that crashed or reported a problem."""


def compiler() -> str | None:
    """The C++ compiler to use ($CXX, else g++ on PATH), or None."""
    return shutil.which(os.environ.get("CXX", "g++"))


def no_compiler() -> str:
    """Why :func:`compiler` found none, naming what it looked for."""
    cxx = os.environ.get("CXX")
    if cxx is not None:
        return f"no C++ compiler: CXX={cxx!r} is not an executable"
    return "no C++ compiler: g++ is not on PATH"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tle-alias-spec"


def _version(cxx: str) -> str:
    try:
        return subprocess.run(
            [cxx, "--version"], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        return ""


def build_binary(
    name: str,
    sources: Sequence[Path],
    include_dirs: Sequence[Path],
    flags: Sequence[str],
    inputs: Sequence[Path] = (),
) -> Path:
    """Compile ``sources`` into a cached binary named ``name-<hash>``. The hash covers every
    source and extra input file (headers), the compiler's version and the flags, so a change
    to any of them rebuilds."""
    cxx = compiler()
    if cxx is None:
        raise CppEngineError(no_compiler())
    key = hashlib.sha256()
    for path in (*sources, *inputs):
        key.update(hashlib.sha256(path.read_bytes()).digest())
    key.update(hashlib.sha256(_version(cxx).encode()).digest())
    key.update("\0".join(flags).encode())
    out_dir = cache_dir()
    binary = out_dir / f"{name}-{key.hexdigest()[:20]}"
    if binary.exists():
        return binary
    out_dir.mkdir(parents=True, exist_ok=True)
    # Build beside the target and rename: concurrent builders never see a partial binary.
    fd, tmp = tempfile.mkstemp(prefix=binary.name + ".", dir=out_dir)
    os.close(fd)
    includes = [arg for d in include_dirs for arg in ("-I", str(d))]
    cmd = [cxx, *flags, *includes, *(str(p) for p in sources), "-o", tmp]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise CppEngineError(f"running the compiler failed: {exc}") from None
    if proc.returncode != 0:
        Path(tmp).unlink(missing_ok=True)
        raise CppEngineError(
            f"building {name} with {cxx} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
        )
    os.replace(tmp, binary)
    return binary


def build(extra_flags: Sequence[str] = (), sanitize: bool = False) -> Path:
    """The harness binary for these flags, compiling it into the cache if needed."""
    flags = [*BASE_FLAGS, *(SANITIZE_FLAGS if sanitize else ()), *extra_flags]
    return build_binary("harness", [HARNESS], [HEADER.parent], flags, inputs=[HEADER])


def _profile_index(profile: str) -> int:
    names = list(PROFILES)
    if profile not in names:
        raise KeyError(f"unknown profile {profile!r}; choose one of {', '.join(names)}")
    return names.index(profile)


def _encode(facts: Facts, profile_index: int) -> str:
    values = []
    for f in FACTS:
        if f.name not in facts:
            raise RequestError(f"facts.{f.name}", "missing")
        v = facts[f.name]
        if f.sort == dsl.BOOL:
            if v not in (0, 1):  # True/False, or 0/1
                raise RequestError(f"facts.{f.name}", f"must be a bool, got {v!r}")
            values.append("1" if v else "0")
            continue
        if isinstance(v, bool) or not isinstance(v, int):
            raise RequestError(f"facts.{f.name}", f"must be an integer, got {v!r}")
        if not INT64_MIN <= v <= INT64_MAX:
            raise RequestError(
                "engine",
                f"the cpp engine's domain is int64 facts; {f.name} = {v} is outside it "
                "(use the interpreter or z3 engine for unbounded integers)",
            )
        values.append(str(v))
    values.append(str(profile_index))
    return " ".join(values)


def sanitizer_env() -> dict[str, str]:
    env = dict(os.environ)
    # Leak checking needs ptrace, which sandboxes often forbid; leaks are not what we test.
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    return env


def check_batch(
    facts_list: Sequence[Facts],
    profile: str,
    sanitize: bool = False,
    extra_flags: Sequence[str] = (),
) -> list[list[str]]:
    """Fired rule ids (catalogue order) for each fact dict, from one harness run."""
    index = _profile_index(profile)
    lines = [_encode(f, index) for f in facts_list]
    if not lines:
        return []
    binary = build(extra_flags, sanitize)
    proc = subprocess.run(
        [str(binary)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=sanitizer_env() if sanitize else None,
        check=False,
    )
    if proc.returncode != 0 or proc.stderr.strip():
        raise CppEngineError(
            f"harness exited with {proc.returncode}:\n{proc.stderr[-4000:] or '(no output)'}"
        )
    out = proc.stdout.splitlines()
    if len(out) != len(lines):
        raise CppEngineError(f"harness answered {len(out)} lines for {len(lines)} requests")
    return [[RULES[int(i)].id for i in row.split()] for row in out]


def _verdict(facts: Facts, profile: str, fired: Sequence[str]) -> Verdict:
    violations = []
    for rule_id in fired:
        r = rule(rule_id)
        violations.append(Violation(rule=r.id, message=r.message, values=report_values(r, facts)))
    return Verdict(valid=not violations, profile=profile, engine="cpp", violations=violations)


def check_facts(facts: Facts, profile: str) -> Verdict:
    """Judge one fact dict with the compiled header (engine "cpp")."""
    return _verdict(facts, profile, check_batch([facts], profile)[0])


class CppEngine(Engine):
    """The compiled header; ``sanitize`` builds the harness with ASan and UBSan. Its verdicts
    and outcomes on many fact dicts take one harness run per profile; its outcome is None
    outside its domain (int64 facts), where its verdict raises a RequestError."""

    name = "cpp"
    batched = True

    def __init__(self, sanitize: bool = False) -> None:
        self.sanitize = sanitize

    def judge(self, facts: Facts, profile: str) -> Verdict:
        return self.judge_batch([facts], profile)[0]

    def judge_batch(self, facts_list: Sequence[Facts], profile: str) -> list[Verdict]:
        fired = check_batch(facts_list, profile, sanitize=self.sanitize)
        return [_verdict(f, profile, ids) for f, ids in zip(facts_list, fired, strict=True)]

    def in_domain(self, facts: Facts) -> bool:
        return in_int64(facts)

    def outcome(self, facts: Facts, profile: str) -> Outcome:
        return self.outcomes([(facts, profile)])[0]

    def outcomes(self, cases: Sequence[tuple[Facts, str]]) -> list[Outcome]:
        """Every int64 case through the harness, one run per profile; None for the others."""
        out: list[Outcome] = [None] * len(cases)
        groups: dict[str, list[int]] = {}
        for i, (facts, profile) in enumerate(cases):
            if in_int64(facts):
                groups.setdefault(profile, []).append(i)
        for profile, idx in groups.items():
            got = check_batch([cases[i][0] for i in idx], profile, sanitize=self.sanitize)
            for i, ids in zip(idx, got, strict=True):
                out[i] = tuple(ids)
        return out
