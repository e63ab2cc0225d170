"""What a text given as TTGIR is, and which Triton release wrote it, told from its text alone.

``lint`` and ``plan`` read a kernel's ``asm["ttgir"]``. Given another stage of the compiler
(``asm["source"]`` or ``asm["ttir"]``: Triton IR before layouts; ``asm["llir"]``;
``asm["ptx"]``) or the kernel's Python source, they used to find nothing in it and say
"0 findings", or fail on some later line: ``not_ttgir`` names what the text is instead, in one
line. ``out_of_range`` finds an integer literal MLIR's own parser refuses (a malformed module,
not one to judge partly).

The allocator ``plan`` runs is the one of ``--python``'s Triton (this interpreter's by
default), and a dump from another release may not read the same there (``ttg.barrier`` is
unknown to 3.6) or may read and be planned differently. ``release_markers`` collects the ops,
types and attributes that only some releases write, measured on the kernels of
``tests/plan/cases/corpus/`` compiled by 3.6.0, 3.7.1, 3.8.0 and 3.9.0, each parsed by every
other release; ``release_warning`` says when they rule out the release that allocates.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

Version = tuple[int, int]


_FILE_LOC = re.compile(r'loc\("[^"\n]*":\d+:(\d+)\)')


def _columns(text: str) -> list[str]:
    return _FILE_LOC.findall(text)


@dataclass(frozen=True)
class Marker:
    """Something only releases ``low`` to ``high`` (inclusive; None: unbounded) write."""

    what: str
    found: Callable[[str], bool]
    low: Version | None
    high: Version | None


def _op(name: str) -> Callable[[str], bool]:
    pattern = re.compile(rf'^\s*(?:%[^=\n]*=\s*)?"?{re.escape(name)}\b', re.M)
    return lambda text: pattern.search(text) is not None


def _text(regex: str) -> Callable[[str], bool]:
    pattern = re.compile(regex)
    return lambda text: pattern.search(text) is not None


# A compiled kernel has dozens of source locations; a hand-written module a few, placed freely.
MIN_LOCATIONS = 5

MARKERS = (
    # The CTA barrier: 3.7 and later write ``ttg.barrier`` (3.6's parser: "custom op
    # 'ttg.barrier' is unknown"). 3.6 writes MLIR's ``gpu.barrier``, which every release reads
    # and hand-written tests of later releases use: no marker.
    Marker("the op ttg.barrier", _op("ttg.barrier"), (3, 7), None),
    # A tensor descriptor's type: ``!tt.tensordesc<tensor<64x64xf16, #shared>>`` up to 3.7;
    # 3.8 writes ``!tt.tensordesc<64x64xf16, #shared>`` and rejects the old form ("tensor
    # descriptors must not wrap tensor types"), which 3.6 and 3.7 cannot parse.
    Marker("!tt.tensordesc<tensor<...>>", _text(r"!tt\.tensordesc<\s*tensor<"), None, (3, 7)),
    Marker(
        "!tt.tensordesc<SHAPE, ...> without tensor<...>",
        _text(r"!tt\.tensordesc<\s*(?!tensor<)[\dx?]"),
        (3, 8),
        None,
    ),  # fmt: skip
    # A module attribute 3.9 adds to every kernel for sm_90.
    Marker('the module attribute "ttng.two-ctas"', _text(r'"ttng\.two-ctas"\s*='), (3, 9), None),
    # Source columns count from 0 up to 3.7 (a function's definition sits at column 0) and
    # from 1 since 3.8: so on every dump of the corpora above (and the 2,985 real-world ones).
    Marker("source locations at column 0", lambda text: "0" in _columns(text), None, (3, 7)),
    Marker(
        "no source location at column 0",
        lambda text: len(cols := _columns(text)) >= MIN_LOCATIONS and "0" not in cols,
        (3, 8),
        None,
    ),  # fmt: skip
)


def _shown(v: Version) -> str:
    return f"{v[0]}.{v[1]}"


def version_of(text: str) -> Version | None:
    """The release a version string names ("3.6.0", "triton 3.9.0+git"), major and minor."""
    m = re.search(r"(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


@dataclass(frozen=True)
class Releases:
    """The releases a dump's markers allow, and the markers that say so."""

    low: Version | None
    high: Version | None
    seen: tuple[str, ...]

    def allows(self, v: Version) -> bool:
        return (self.low is None or v >= self.low) and (self.high is None or v <= self.high)

    def shown(self) -> str:
        if self.low is not None and self.high is not None:
            span = _shown(self.low) if self.low == self.high else (
                f"{_shown(self.low)} to {_shown(self.high)}")  # fmt: skip
        elif self.low is not None:
            span = f"{_shown(self.low)} or later"
        else:
            span = f"{_shown(self.high)} or earlier"  # type: ignore[arg-type]
        more = ", ..." if len(self.seen) > 2 else ""
        return f"Triton {span} ({', '.join(self.seen[:2])}{more})"


def release_markers(text: str) -> Releases | None:
    """The releases that could have written ``text``, by its markers; None when it has none,
    or when they contradict each other (a hand-made module: no claim)."""
    low: Version | None = None
    high: Version | None = None
    seen: list[str] = []
    for m in MARKERS:
        if not m.found(text):
            continue
        seen.append(m.what)
        if m.low is not None and (low is None or m.low > low):
            low = m.low
        if m.high is not None and (high is None or m.high < high):
            high = m.high
    if not seen or (low is not None and high is not None and low > high):
        return None
    return Releases(low, high, tuple(seen))


PYTHON_HINT = "pass --python with that release's interpreter"


def release_warning(text: str, allocated_by: str) -> str | None:
    """One line when ``text``'s markers rule out the release ``allocated_by`` names (the
    Triton that re-ran the allocation, e.g. "3.6.0"), else None."""
    version = version_of(allocated_by)
    found = release_markers(text)
    if version is None or found is None or found.allows(version):
        return None
    return (f"the dump looks written by {found.shown()}, but Triton {allocated_by} re-ran its "
            f"allocation: {PYTHON_HINT}")  # fmt: skip


def profile_warning(text: str, profile: str) -> str | None:
    """One line when ``text``'s markers rule out the release whose verifiers the lint profile
    ``profile`` stands for (``triton-3.6`` ...), else None."""
    version = version_of(profile) if profile.startswith("triton-") else None
    found = release_markers(text)
    if version is None or found is None or found.allows(version):
        return None
    return (f"the dump looks written by {found.shown()}, but --profile {profile} judges it by "
            f"Triton {_shown(version)}'s verifiers: pick that release's profile")  # fmt: skip


class ReleaseWarning(UserWarning):
    """A dump whose markers rule out the release that re-ran its allocation (one line)."""


def warn_release(text: str, allocated_by: str, path: str) -> None:
    """Warn (ReleaseWarning, naming ``path``) when ``release_warning`` has something to say."""
    said = release_warning(text, allocated_by)
    if said is not None:
        warnings.warn(f"{path}: {said}", ReleaseWarning, stacklevel=3)


def allocation_hint(text: str, error: str) -> str | None:
    """What to add to an allocation error that a dump from another release explains."""
    found = release_markers(text)
    if found is not None:
        return f"it looks written by {found.shown()}: {PYTHON_HINT}"
    if re.search(r"custom op '[\w.]+' is unknown|unregistered operation|dialect '\w+' is unknown",
                 error):  # fmt: skip
        return f"if another Triton release wrote the dump, {PYTHON_HINT}"
    return None


# --- what the text is -----------------------------------------------------------------------

_LLIR = re.compile(r"^(?:; ModuleID = |target (?:datalayout|triple) = |define\s)", re.M)
_PTX = re.compile(r"^\s*\.(?:version\s+\d+\.\d+|target\s+sm_\d+)", re.M)
_FUNC = re.compile(r"^\s*(?:tt\.func|func\.func|llvm\.func)\b", re.M)
# Anything of the GPU dialects: TTGIR has layouts (#ttg.*), memdesc types, ttg/ttng/tle ops.
_GPU = re.compile(r"[#!\"]?\b(?:ttg|ttng|ttnvws|tle|amdgpu|nvgpu|nvws|gluon)\.\w")
_PY_STATEMENT = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)

WANTED = 'give asm["ttgir"] (a .ttgir file of a Triton cache)'


def not_ttgir(text: str) -> str | None:
    """Why ``text`` is not TTGIR or an MLIR module of Triton's GPU dialects (one line naming
    what it is instead), or None when it may be one."""
    functions = _FUNC.search(text) is not None
    if not functions and _LLIR.search(text):
        return (
            'LLVM IR (asm["llir"]), not TTGIR: give asm["ttgir"] as the file (plan takes '
            "LLVM IR with --llir)"
        )
    if not functions and _PTX.search(text):
        return f'PTX (asm["ptx"]), not TTGIR: {WANTED}'
    if not functions and _python(text):
        return ('Python source, not TTGIR: compile the kernel and give its asm["ttgir"] '
                "(docs/guides/plan.md shows how)")  # fmt: skip
    if functions and _GPU.search(_no_strings(text)) is None:
        return ('TTIR (asm["ttir"] or asm["source"]: no layout, memdesc or ttg op), not '
                f"TTGIR: {WANTED}")  # fmt: skip
    return None


def _python(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return any(isinstance(node, _PY_STATEMENT) for node in tree.body)


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _no_strings(text: str) -> str:
    """``text`` with string literals and // comments blanked (same lines and columns)."""
    text = _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
    return re.sub(r"//[^\n]*", lambda m: " " * len(m.group()), text)


# --- literals MLIR's parser refuses ---------------------------------------------------------

_TYPED_INT = re.compile(
    r"(?<![\w.#%@^])((?:-\s*)?(?:0x[0-9a-fA-F]+|\d+))\s*:\s*(?:([su]?i)(\d+)|(index))\b"
)
_UNTYPED_INT = re.compile(r"=\s*((?:-\s*)?(?:0x[0-9a-fA-F]+|\d+))\s*(?=[,}])")


def _fits(token: str, width: int) -> bool:
    """MLIR's rule for an integer attribute of iN: the value fits N bits as signed or as
    unsigned, so -(2**(N-1)) <= value < 2**N."""
    body = token.replace(" ", "").replace("\t", "")
    negative = body.startswith("-")
    body = body.lstrip("-")
    hexadecimal = body.startswith("0x")
    digits = (body[2:] if hexadecimal else body).lstrip("0") or "0"
    if len(digits) > width + 2:  # more digits than any fitting value has, in either base
        return False
    value = int(digits, 16 if hexadecimal else 10)
    value = -value if negative else value
    return -(1 << (width - 1)) <= value < (1 << width)


def out_of_range(text: str) -> str | None:
    """The first integer literal whose type cannot hold it (MLIR's parser rejects the module:
    "integer constant out of range for attribute"), as one line, or None."""
    clean = _no_strings(text)
    found: list[tuple[int, str, str]] = []
    for m in _TYPED_INT.finditer(clean):
        width = 64 if m.group(4) else int(m.group(3))
        if 0 < width <= 1024 and not _fits(m.group(1), width):
            found.append((m.start(1), m.group(1), f"i{width}" if m.group(3) else "index"))
    for m in _UNTYPED_INT.finditer(clean):  # an untyped integer attribute is an i64
        if not _fits(m.group(1), 64):
            found.append((m.start(1), m.group(1), "i64"))
    if not found:
        return None
    start, token, type_name = min(found)
    line = clean.count("\n", 0, start) + 1
    shown = token if len(token) <= 24 else token[:20] + "..."
    return (f"line {line}: integer literal {shown} does not fit in {type_name} (MLIR's parser "
            "rejects the module)")  # fmt: skip


def problem(text: str) -> str | None:
    """Why lint and plan cannot read ``text`` as TTGIR at all (one line), or None."""
    return not_ttgir(text) or out_of_range(text)
