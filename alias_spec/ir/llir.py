"""Reading LLVM IR through llvmlite: module -> functions -> blocks -> instructions.

LLVM's own parser (the one llvmlite carries) reads the text; this module turns what it built into
plain Python records (opcode, result name and type, operands, successors, the input line, the
debug location, metadata) so that no LLVM object outlives the call. Constant expressions, whose
parts llvmlite does not expose, are read from LLVM's own canonical printing of them.

Two kinds of text LLVM's parser would refuse are made readable first, and only these: float
literals in the newer spelling (``f0x3FB8AA3B``, ``-inf``: values, never addresses) and, in
hand-written excerpts, globals and functions used without a declaration (declared the way
their uses need). Everything else the parser rejects is a one-line ``LlirError``.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import functools
import gc
import os
import pickle
import re
import select
import signal
import struct
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from alias_spec.ir.procs import fork_tied
from alias_spec.model.facts import elem_bytes

# Bounds no real kernel comes near: past them the text is rejected so that work stays bounded.
MAX_BYTES = 64 * 2**20
MAX_INSTRUCTIONS = 2_000_000
MAX_CONST_DEPTH = 64  # nesting of a constant expression
MAX_DECLARATIONS = 4096  # declarations added to a hand-written excerpt
MAX_WARNING_BYTES = 64 * 1024  # of what LLVM's parser prints
# LLVM's parser aborts the whole process on some malformed text (an assertion, seen once in a
# property test on spliced real IR) instead of reporting an error: the text is parsed in a
# forked child first, for at most this long, and only then in this process.
PROBE_SECONDS = 120.0

NEEDS_LLVMLITE = (
    "llvmlite is not installed, and alias-spec plan --llir needs it: "
    "pip install 'tle-alias-spec[plan]'"
)


class LlirError(ValueError):
    """Text that is not LLVM IR this reader can read (one line)."""


class MissingExtra(ValueError):
    """This install lacks a module the text needs to be read (one line naming the extra). Not
    an LlirError: the text is not at fault, so no caller names the file."""


@dataclass
class Operand:
    """One operand. ``kind``: "value" (an instruction's result; ``ref`` its index in the
    function), "arg" (``ref`` the parameter's index), "global" / "function" (``name`` without
    the @), "int" (``value``), "bool", "null" (a null pointer or zero aggregate), "undef"
    (undef / poison), "vector" (``elems``), "splat" (``elems``: the one lane), "expr" (a
    constant expression: ``opcode``, ``elems`` its operands, ``text`` its source type for a
    getelementptr), "block" (``ref`` the block's index), "asm" (``text``: the asm string,
    ``constraints``), "other" (floats, metadata, what is not modelled)."""

    kind: str
    type: str
    ref: int = -1
    name: str = ""
    value: int | None = None
    opcode: str = ""
    elems: list[Operand] = field(default_factory=list)
    text: str = ""
    constraints: str = ""
    flags: tuple[str, ...] = ()


@dataclass
class Instruction:
    index: int  # in its function, in textual order
    opcode: str
    name: str  # "%7" as the input spells it ("" when it has no result)
    type: str
    operands: list[Operand]
    text: str  # the instruction as LLVM prints it
    block: int
    line: int  # in the input text (the function's line when not known)
    column: int
    dbg: str | None = None  # the kernel source location "file:line:col"
    metadata: dict[str, str] = field(default_factory=dict)  # attachment -> "!N"
    targets: list[int] = field(default_factory=list)  # successor blocks, in textual order
    incoming: list[int] = field(default_factory=list)  # a phi's incoming blocks
    predicate: str = ""  # icmp / fcmp
    source_type: str = ""  # getelementptr's source element type
    indices: list[int] = field(default_factory=list)  # extractvalue / insertvalue
    callee: Operand | None = None  # a call's callee; ``operands`` are then its arguments


@dataclass
class Block:
    index: int
    name: str
    instructions: list[int] = field(default_factory=list)


@dataclass
class Param:
    name: str
    type: str


@dataclass
class Function:
    name: str
    line: int
    params: list[Param]
    blocks: list[Block]
    instructions: list[Instruction]
    attributes: str  # the function's attributes as LLVM prints them
    threads: int | None = None  # the block size its nvvm.reqntid / maxntid attribute gives
    linkage: str = "external"  # "internal" / "private": only callable from this module
    datalayout: str = ""  # its module's target datalayout ("" where it states none)


@dataclass
class Module:
    functions: list[Function]  # definitions only
    declarations: list[str]  # functions declared, not defined
    metadata: dict[str, str]  # "!N" -> its text
    warnings: list[str] = field(default_factory=list)  # what LLVM's parser said (one line each)

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)


# --- the text before LLVM reads it -------------------------------------------------------------

# A float literal in the newer spellings, where an operand starts; strings (asm text, names)
# and comments are matched first so that nothing inside them is respelled, and a label or
# name (``nan:``, ``%inf``) is not a literal.
_NEW_FLOAT = re.compile(
    r'"[^"]*"|;[^\n]*|(?<=[\s,(\[<])(?:f0x([0-9A-Fa-f]+)\b|([+-]?)(inf|nan|qnan)\b(?![(.\w:]))'
)
_UNDEFINED = re.compile(r"use of undefined value '@")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _unquoted(text: str) -> str:
    """``text`` with each string literal emptied (most lines have none: no regex then)."""
    return _STRING.sub('""', text) if '"' in text else text


_GLOBAL_NAME = r'@(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)'
_DEFINED = re.compile(
    rf"^\s*(?:define|declare)\b[^@\n]*({_GLOBAL_NAME})\s*\(|^\s*({_GLOBAL_NAME})\s*=", re.M
)
_USED = re.compile(rf"(addrspace\((\d+)\)\s+)?({_GLOBAL_NAME})(\s*\()?")


def _hex_float(digits: str, spelled: str) -> str:
    """The newer exact-bits spelling as the older one: doubles and floats both as a double's
    bits (a float widens exactly); others keep the digits and LLVM says if it objects."""
    if len(digits) == 8:
        value = struct.unpack(">f", bytes.fromhex(digits))[0]
        return f"0x{struct.unpack('>Q', struct.pack('>d', value))[0]:016X}"
    if len(digits) == 16:
        return "0x" + digits.upper()
    return spelled


def _special_float(sign: str, name: str) -> str:
    if name == "inf":
        return "0xFFF0000000000000" if sign == "-" else "0x7FF0000000000000"
    return "0xFFF8000000000000" if sign == "-" else "0x7FF8000000000000"


def _respelled(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return _hex_float(m.group(1), m.group(0))
    if m.group(3) is not None:
        return _special_float(m.group(2), m.group(3))
    return m.group(0)  # a string or a comment


def _modernised(text: str) -> str:
    if "f0x" in text or "inf" in text or "nan" in text:
        text = _NEW_FLOAT.sub(_respelled, text)
    return text


def _declarations(text: str) -> str:
    """Declarations for the globals and functions the text uses but never declares (a
    hand-written excerpt): a function where a call names it, else a global of the address
    space its use gives."""
    bare = _STRING.sub(lambda m: m.group(0) if m.start() and text[m.start() - 1] == "@" else '""',
                       text)  # fmt: skip
    defined = {a or b for a, b in _DEFINED.findall(bare)}
    wanted: dict[str, str] = {}
    for m in _USED.finditer(bare):
        name = m.group(3)
        if name in defined or name in wanted:
            continue
        if m.group(4):
            wanted[name] = f"declare void {name}(...)"
        else:
            space = f" addrspace({m.group(2)})" if m.group(2) else ""
            wanted[name] = f"{name} = external{space} global [0 x i8]"
        if len(wanted) > MAX_DECLARATIONS:
            break
    return "\n".join(wanted.values())


# --- llvmlite ------------------------------------------------------------------------------------


def _llvm() -> Any:
    try:
        import llvmlite.binding as llvm
    except ImportError:
        raise MissingExtra(NEEDS_LLVMLITE) from None
    return llvm


class _Raw:
    """llvmlite's own C functions (the ``LLVMPY_*`` of its shared library) declared over plain
    addresses, for the walk over instructions and operands: through llvmlite's Python objects
    each operand cost a wrapper, a lock and a finaliser, most of the time spent reading a
    kernel. Everything else still goes through llvmlite's API."""

    def __init__(self, llvm: Any) -> None:
        ffi = llvm.ffi
        lib = ctypes.CDLL(ffi.lib._lib._name)  # the library llvmlite loaded, not another
        vp = ctypes.c_void_p

        def fn(name: str, restype: Any) -> Any:
            f = getattr(lib, name)
            f.argtypes, f.restype = [vp], restype
            return f

        self.instructions = fn("LLVMPY_BlockInstructionsIter", vp)
        self.next_instruction = fn("LLVMPY_InstructionsIterNext", vp)
        self.end_instructions = fn("LLVMPY_DisposeInstructionsIter", None)
        self.operands = fn("LLVMPY_InstructionOperandsIter", vp)
        self.next_operand = fn("LLVMPY_OperandsIterNext", vp)
        self.end_operands = fn("LLVMPY_DisposeOperandsIter", None)
        self.incoming = fn("LLVMPY_PhiIncomingBlocksIter", vp)
        self.next_incoming = fn("LLVMPY_IncomingBlocksIterNext", vp)
        self.end_incoming = fn("LLVMPY_DisposeIncomingBlocksIter", None)
        self.kind = fn("LLVMPY_GetValueKind", ctypes.c_int)
        self.int_words = fn("LLVMPY_GetConstantIntNumWords", ctypes.c_uint)
        self.int_data = lib.LLVMPY_GetConstantIntRawValue
        self.int_data.argtypes = [vp, ctypes.POINTER(ctypes.c_bool)]
        self.int_data.restype = ctypes.c_void_p
        self.type_of = fn("LLVMPY_TypeOf", vp)
        self.kinds = {k.value: k for k in llvm.ValueKind}
        self.lock = ffi.lib._lock  # llvmlite's: held over a walk, as its calls hold it
        self.llvm = llvm

    def wrap(self, p: int, kind: str, parents: dict[str, Any]) -> Any:
        """llvmlite's object for the value at ``p`` (for what is read rarely)."""
        ffi = self.llvm.ffi
        return self.llvm.ValueRef(ctypes.cast(ctypes.c_void_p(p), ffi.LLVMValueRef), kind,
                                  parents)  # fmt: skip

    def type_text(self, t: int, types: dict[int, str]) -> str:
        got = types.get(t)
        if got is None:
            ffi = self.llvm.ffi
            ref = self.llvm.TypeRef(ctypes.cast(ctypes.c_void_p(t), ffi.LLVMTypeRef))
            got = types[t] = str(ref)
        return got

    def each(self, first: Any, step: Any, end: Any, p: int) -> list[int]:
        it = first(p)
        out: list[int] = []
        try:
            while True:
                x = step(it)
                if not x:
                    return out
                out.append(x)
        finally:
            end(it)


_RAW: list[_Raw | None] = []


def _raw(llvm: Any) -> _Raw | None:
    """The C functions, or None where this llvmlite does not have them as expected (then the
    walk goes through its Python API)."""
    if not _RAW:
        try:
            _RAW.append(_Raw(llvm))
        except (AttributeError, OSError, TypeError, ValueError):
            _RAW.append(None)
    return _RAW[0]


# --- sizes of types ------------------------------------------------------------------------------

# The layout Triton gives its NVIDIA modules, for text that states none (a hand-written
# excerpt): LLVM's own default would make a shared pointer 8 bytes where Triton's are 4.
NVPTX_LAYOUT = (
    "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32"
    "-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
)

# Type syntax only (and a layout's): no other text reaches LLVM's parser from here.
_TYPE_TEXT = re.compile(r"[\w .<>\[\]{}(),*]{1,1000}")
_LAYOUT_TEXT = re.compile(r"[\w:.\-]{0,1000}")


class TypeBytes(NamedTuple):
    """An LLVM type's sizes under a data layout, as LLVM's ``DataLayout`` defines them."""

    store: int  # the bytes a load or store of it touches (getTypeStoreSize)
    alloc: int  # its stride in an array or a getelementptr (getTypeAllocSize)


@functools.cache
def _target_data(layout: str) -> Any:
    return _llvm().create_target_data(layout)


@functools.lru_cache(maxsize=4096)
def type_bytes(ty: str, datalayout: str = "") -> TypeBytes | None:
    """LLVM's sizes of the type spelled ``ty`` under ``datalayout`` (``NVPTX_LAYOUT`` when
    empty), asked of LLVM itself and cached per type, so an access costs a dictionary look-up.
    None for text that is not a sized type (void, a named struct, a typo)."""
    ty, layout = ty.strip(), datalayout or NVPTX_LAYOUT
    # A scalable vector has no fixed size: LLVM aborts the process when asked for one.
    if not _TYPE_TEXT.fullmatch(ty) or "vscale" in ty or not _LAYOUT_TEXT.fullmatch(layout):
        return None
    llvm = _llvm()
    try:
        mod = llvm.parse_assembly(f'target datalayout = "{layout}"\n@v = external global {ty}\n')
    except RuntimeError:
        return None
    try:
        t = mod.get_global_variable("v").global_value_type
        td = _target_data(layout)
        alloc = td.get_abi_size(t)
        # llvmlite exposes the alloc size only; the store size is LLVM's size in bits rounded
        # up to bytes. A scalar's or vector's size in bits is its primitive width: a vector is
        # laid out as the one integer of N x M bits it bitcasts to (LangRef, "Vector Type"), so
        # <32 x i1> stores in 4 bytes while [32 x i1] takes 32, each element its alloc size.
        bits = t.type_width
        if not bits and t.is_vector:  # a vector of pointers: N x the pointer's bits
            bits = t.element_count * 8 * td.get_abi_size(next(iter(t.elements)))
        # Arrays, structs and pointers: LLVM's size is already whole bytes, padding included
        # (the alloc size; a pointer's ABI alignment is its size in Triton's layouts).
        store = elem_bytes(bits) if bits else alloc
        return TypeBytes(store, alloc) if 0 <= store <= alloc else None  # else: wrapped past 2^64
    finally:
        mod.close()


@contextlib.contextmanager
def _llvm_stderr(said: list[str]) -> Iterator[None]:
    """LLVM's parser writes its warnings (debug info it found invalid and dropped) to the
    process's stderr, past Python: they are caught here, so that the command's own output
    stays one line on bad input and none on good input."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to keep clean
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        try:
            os.dup2(tmp.fileno(), 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read(MAX_WARNING_BYTES).decode("utf-8", "replace")
            said.extend(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _wait_exit(pid: int, seconds: float) -> tuple[int, int]:
    """``waitpid`` of a child that ends within ``seconds``, woken as it exits (a pidfd);
    (0, 0) when there is no pidfd to wait on, or it did not end in time."""
    try:
        fd = os.pidfd_open(pid)  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return 0, 0
    try:
        ready, _, _ = select.select([fd], [], [], seconds)
    finally:
        os.close(fd)
    return os.waitpid(pid, os.WNOHANG) if ready else (0, 0)


class Probe:
    """A forked child parsing a text, to learn whether parsing it would kill this process
    (LLVM aborts, or does not finish). Started early (``start_probe``) it also reads the
    module into records and hands them back, so that the whole read runs on another core
    while this process does other work; ``take`` / ``result`` wait for it, ``close`` ends it
    unasked."""

    def __init__(self, llvm: Any, source: str, whole: bool = False) -> None:
        self.source = source
        self.pid = 0
        self.fd = -1
        if not hasattr(os, "fork"):
            return  # no fork: the parse is unprobed
        rfd, wfd = os.pipe() if whole else (-1, -1)
        pid = fork_tied(signal.SIGKILL)  # a parse that hangs ends with this process
        if pid == 0:  # the child: say nothing, leave without Python's clean-up
            try:
                # No collection in the short-lived child: one walks every object it inherited,
                # copying each page it writes to (its records are freed by reference counts).
                gc.disable()
                faulthandler.disable()  # its report of the abort would reach the parent's stderr
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                if whole:
                    os.close(rfd)
                    _read_in_child(source, wfd)
                else:
                    llvm.parse_assembly(source)
            except BaseException:  # noqa: BLE001 - the parent parses again and reports it
                pass
            os._exit(0)
        if whole:
            os.close(wfd)
            self.fd = rfd
        self.pid = pid
        self.deadline = time.monotonic() + PROBE_SECONDS

    def result(self) -> str | None:
        """Why parsing the text would kill this process, or None when the child survived."""
        pid, self.pid = self.pid, 0
        if not pid:
            return None
        done, status = _wait_exit(pid, max(0.0, self.deadline - time.monotonic()))
        delay = 0.001
        while not done:  # no pidfd here: polled
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > self.deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return f"LLVM's parser did not finish within {PROBE_SECONDS:.0f} s"
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        if os.WIFSIGNALED(status):
            return (f"LLVM's parser aborts on the text (signal {os.WTERMSIG(status)}): "
                    "malformed LLVM IR")  # fmt: skip
        return None

    def take(self) -> Module | None:
        """The module the child read (LlirError where the text is refused or parsing it would
        kill this process), or None where it handed nothing back: read it here then."""
        if self.fd < 0:
            return None
        fd, self.fd = self.fd, -1
        parsed, data = False, bytearray()
        try:
            while True:
                # The parse has the probe's deadline; the records after it are bounded by
                # the size limits above.
                wait = None if parsed else max(0.0, self.deadline - time.monotonic())
                ready, _, _ = select.select([fd], [], [], wait)
                if not ready:
                    break  # past the deadline: ``result`` ends the child and says so
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                data += chunk
                parsed = parsed or data[:1] == _PARSED
        finally:
            os.close(fd)
        why = self.result()
        if why is not None:
            raise LlirError(why)
        try:
            kind, value = pickle.loads(bytes(data[1:]))
        except Exception:  # noqa: BLE001 - nothing whole came back: the caller reads here
            return None
        if kind == "error":
            raise LlirError(value)
        return value if kind == "module" else None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        pid, self.pid = self.pid, 0
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, 9)
                os.waitpid(pid, 0)


# The child's first byte: LLVM's parse is done (its deadline is over), or it never parsed.
_PARSED, _REFUSED = b"P", b"-"


def _read_in_child(text: str, fd: int) -> None:
    """The whole read in a probe's child, written to ``fd``: the byte saying the parse is done
    (or the one saying it never parsed), then ("module", Module), ("error", its one line) or
    ("again", None) pickled."""

    said: list[bytes] = []

    def parsed() -> None:
        if not said:
            said.append(_PARSED)
            os.write(fd, _PARSED)

    try:
        out: tuple[str, Any] = ("module", _read(text, parsed))
    except LlirError as exc:
        out = ("error", str(exc))
    except BaseException:  # noqa: BLE001 - a failure of ours: the parent reads and raises it
        out = ("again", None)
    try:
        data = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - not picklable: the parent reads it itself
        data = pickle.dumps(("again", None))
    view = memoryview((b"" if said else _REFUSED) + data)
    while view:
        view = view[os.write(fd, view) :]


def start_probe(text: str) -> Probe | None:
    """The read of ``text`` (LLVM's parse and the records), started now in a child: pass it to
    ``read`` or ``close`` it. None without llvmlite or for text ``read`` refuses before parsing."""
    if not isinstance(text, str) or len(text) > MAX_BYTES or "\0" in text:
        return None
    try:
        llvm = _llvm()
    except MissingExtra:
        return None
    return Probe(llvm, text, whole=True)


def _probe(llvm: Any, text: str) -> str | None:
    return Probe(llvm, text).result()


def _parse(llvm: Any, text: str, said: list[str], parsed: Callable[[], None] | None = None,
           verify: bool = True) -> Any:  # fmt: skip
    """LLVM's module of ``text``: probed in a child first, unless this is that child
    (``parsed``: called once LLVM's parser is done); checked by LLVM's verifier unless
    ``verify`` is False (an excerpt completed with declarations of our making)."""
    if parsed is None:
        why = _probe(llvm, text)
        if why is not None:
            raise LlirError(why)
    try:
        with _llvm_stderr(said):
            mod = llvm.parse_assembly(text)
    except RuntimeError as exc:
        raise LlirError(_parse_message(str(exc))) from None
    if verify:
        # What LLVM's verifier rejects (a use its definition does not dominate, a branch to
        # the entry block) is no program any compiler emitted: refused, not judged.
        try:
            with _llvm_stderr(said):
                mod.verify()
        except RuntimeError as exc:
            mod.close()
            raise LlirError(_verify_message(str(exc))) from None
    if parsed is not None:
        parsed()
    return mod


def _verify_message(raw: str) -> str:
    """LLVM's verifier's complaint as one line."""
    first = next((ln.strip() for ln in raw.splitlines() if ln.strip()), "")
    return f"{first[:200] or 'the module is not valid'} (LLVM's verifier rejects it)"


def _parse_message(raw: str) -> str:
    """LLVM's parse error as one line: "line N: what"."""
    for line in raw.splitlines():
        m = re.match(r"^<string>:(\d+):(\d+):\s*(?:error:\s*)?(.*)$", line)
        if m:
            return f"line {m.group(1)}: {m.group(3).strip()} (LLVM's parser rejects it)"
    return " ".join(raw.split())[:200] or "LLVM's parser rejects the text"


def _key(v: Any) -> int:
    """The identity of an LLVM value (llvmlite makes a new wrapper per access): its address."""
    if type(v) is int:
        return v
    if type(v) is _RawOperand:
        return v.p
    return ctypes.cast(v._as_parameter_, ctypes.c_void_p).value or 0


def read(text: str, probe: Probe | None = None) -> Module:
    """The module the text holds. Raises LlirError (one line) on text LLVM does not accept,
    text without a function definition, or text past the bounds above. ``probe``: this
    text's read, started earlier (``start_probe``); it is finished here either way."""
    try:
        if probe is not None and probe.source == text:
            got = probe.take()
            if got is not None:
                return got
        return _read(text)
    finally:
        if probe is not None:
            probe.close()


def _read(text: str, parsed: Callable[[], None] | None = None) -> Module:
    """``read``'s work; ``parsed``: this is a probe's child (``_parse``)."""
    if not isinstance(text, str):
        raise LlirError("LLVM IR must be text")
    if len(text) > MAX_BYTES:
        raise LlirError("LLVM IR larger than the 64 MiB limit")
    if "\0" in text:
        raise LlirError("LLVM IR holds a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise LlirError("LLVM IR is not valid Unicode text") from None
    llvm = _llvm()
    source = _modernised(text)
    said: list[str] = []
    try:
        mod = _parse(llvm, source, said, parsed)
    except LlirError as exc:
        if not _UNDEFINED.search(str(exc)):
            raise
        extra = _declarations(source)
        if not extra:
            raise
        said.clear()
        try:
            # Declared by us (a call's declaration takes any arguments): not verified.
            mod = _parse(llvm, source + "\n" + extra + "\n", said, parsed, verify=False)
        except LlirError:
            raise exc from None
    try:
        out = _convert(mod, text)
    finally:
        mod.close()
    out.warnings = said
    return out


# --- from LLVM objects to records ---------------------------------------------------------------

_ASSIGN = re.compile(r'^\s*(%(?:"(?:[^"\\]|\\.)*"|[-\w.$]+))\s*=')
_LABEL = re.compile(r'^(?:"(?:[^"\\]|\\.)*"|[-\w.$]+):(?:\s|;|$)')
_DEFINE_LINE = re.compile(r"^\s*define\b")
_OPCODE = re.compile(r"\s*(?:(?:tail|musttail|notail)\s+)?([a-z][a-z0-9_]*)")
_DBG = re.compile(r"!dbg\s+(![-\w.]+)")
_ATTACH = re.compile(r",\s*(![-\w.]+)\s+(![-\w.]+|!\{[^}]*\})")
_META_LINE = re.compile(r"^(![-\w.]+)\s*=\s*(?:distinct\s+)?(.*)$")
_THREADS = re.compile(r'"nvvm\.(?:reqntid|maxntid)"="(\d+)(?:,(\d+))?(?:,(\d+))?"')
_ASM = re.compile(
    r'\basm\s+(?:(?:sideeffect|alignstack|inteldialect|unwind)\s+)*"((?:[^"\\]|\\.)*)"\s*,\s*'
    r'"((?:[^"\\]|\\.)*)"'
)


_TAIL = re.compile(r"^(?:tail|musttail|notail)\s+")
_META_TAIL = re.compile(r",\s*!.*$")
_INDICES = re.compile(r"((?:,\s*\d+)+)\s*$")
_NESTING = re.compile(r'[(\[{<"]')


def _source_lines(text: str, texts: list[list[str]] | None = None
                  ) -> list[tuple[int, list[tuple[int, int]]]]:  # fmt: skip
    """Per function definition of the input, in order: its line and each instruction's (line,
    column). An instruction is a body line that is not a label, a comment or the rest of a
    switch's case list. ``texts``, when given, gets per function each instruction's text (a
    switch's case lines joined to it)."""
    out: list[tuple[int, list[tuple[int, int]]]] = []
    cur: list[tuple[int, int]] | None = None
    in_cases = False
    for no, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if cur is None:
            if _DEFINE_LINE.match(raw) and s.endswith("{"):
                cur = []
                out.append((no, cur))
                if texts is not None:
                    texts.append([])
            continue
        if s == "}":
            cur = None
            continue
        if in_cases:
            in_cases = "]" not in _unquoted(s)
            if texts is not None and texts[-1]:
                texts[-1][-1] += "\n" + raw
            continue
        if not s or s.startswith(";") or _LABEL.match(s):
            continue
        cur.append((no, len(raw) - len(raw.lstrip()) + 1))
        if texts is not None:
            texts[-1].append(s)
        body = _unquoted(s)
        in_cases = body.startswith("switch") and "[" in body and "]" not in body
    return out


def _metadata(text: str) -> dict[str, str]:
    """``!N`` -> its definition, for every metadata line of a module's text."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("!"):
            mm = _META_LINE.match(line)
            if mm:
                out[mm.group(1)] = mm.group(2)
    return out


def _convert(mod: Any, text: str) -> Module:
    printed = str(mod)
    metadata = _metadata(printed)
    # Each instruction's text from the module printed once: LLVM prints an instruction alone
    # by numbering its whole function first, which made reading quadratic in its size.
    texts: list[list[str]] = []
    _source_lines(printed, texts)
    # Debug locations are read from the input's own lines and metadata where they line up
    # with the instructions (the printed module numbers metadata its own way).
    given = _metadata(text)
    at_given, at_printed = _locator(given), _locator(metadata)
    raw_lines = text.splitlines()
    sources = _source_lines(text)
    functions: list[Function] = []
    declarations: list[str] = []
    total = 0
    raw = _raw(_llvm())
    layout = mod.data_layout
    for fn in mod.functions:
        if fn.is_declaration:
            declarations.append(fn.name)
            continue
        place = sources[len(functions)] if len(functions) < len(sources) else (0, [])
        shown = texts[len(functions)] if len(functions) < len(texts) else []
        f = _function(fn, place, shown, raw, {"module": mod})
        if len(place[1]) == len(f.instructions):
            for ins, (no, _) in zip(f.instructions, place[1], strict=True):
                d = _DBG.search(_unquoted(raw_lines[no - 1]))
                ins.dbg = at_given(d.group(1)) if d else None
        elif not functions or len(shown) == len(f.instructions):
            # The module's printing (or the first function's alone, numbered the same way).
            for ins in f.instructions:
                d = _DBG.search(_unquoted(ins.text))
                ins.dbg = at_printed(d.group(1)) if d else None
        # else: printed alone, not the module's numbering: no location rather than a wrong one
        total += len(f.instructions)
        if total > MAX_INSTRUCTIONS:
            raise LlirError(f"more than {MAX_INSTRUCTIONS} instructions")
        functions.append(f)
    for f in functions:
        f.datalayout = layout
    return Module(functions, declarations, metadata)


def _function(
    fn: Any,
    place: tuple[int, list[tuple[int, int]]],
    shown: list[str],
    raw: _Raw | None = None,
    parents: dict[str, Any] | None = None,
) -> Function:
    fline, where = place
    params = [Param(_param_name(a, i), str(a.type)) for i, a in enumerate(fn.arguments)]
    arg_of = {_key(a): i for i, a in enumerate(fn.arguments)}
    blocks: list[Block] = []
    block_of: dict[int, int] = {}
    # Per instruction: llvmlite's object, or its address where the C functions walk.
    found: list[tuple[Any, int]] = []
    for b in fn.blocks:
        block_of[_key(b)] = len(blocks)
        blocks.append(Block(len(blocks), b.name))
        inside = (raw.each(raw.instructions, raw.next_instruction, raw.end_instructions,
                           _key(b)) if raw is not None else b.instructions)  # fmt: skip
        for ins in inside:
            blocks[-1].instructions.append(len(found))
            found.append((ins, len(blocks) - 1))
            if len(found) > MAX_INSTRUCTIONS:
                raise LlirError(f"@{fn.name}: more than {MAX_INSTRUCTIONS} instructions")
    index_of = {(ins if raw is not None else _key(ins)): i for i, (ins, _) in enumerate(found)}
    lines = where if len(where) == len(found) else []  # the input's lines, when they line up
    attrs = " ".join(a.decode("utf-8", "replace") if isinstance(a, bytes) else str(a)
                     for a in fn.attributes)  # fmt: skip
    out = Function(fn.name, fline, params, blocks, [], attrs)
    out.linkage = getattr(fn.linkage, "name", str(fn.linkage))
    t = _THREADS.search(attrs)
    if t:
        n = 1
        for g in t.groups():
            n *= int(g) if g else 1
        out.threads = n
    refs: _Refs = (index_of, arg_of, block_of, {})
    printed = shown if len(shown) == len(found) else []
    for i, (ins, blk) in enumerate(found):
        line, col = lines[i] if lines else (fline, 1)
        if raw is not None:
            view = _RawInstruction(raw, ins, parents or {})
            text = printed[i] if printed else str(view.ref()).strip()
            out.instructions.append(_instruction(view, text, i, blk, line, col, refs))
        else:
            text = printed[i] if printed else str(ins).strip()
            out.instructions.append(_instruction(ins, text, i, blk, line, col, refs))
    # A value's type is its instruction's: read here rather than asked of LLVM per use.
    for ins in out.instructions:
        for o in (*ins.operands, *([ins.callee] if ins.callee is not None else [])):
            if o.kind == "value" and not o.type and 0 <= o.ref < len(out.instructions):
                o.type = out.instructions[o.ref].type
    return out


class _RawValue:
    """A value at an address: its type through the C functions, llvmlite's object for it
    (``ref``) for what is read rarely."""

    __slots__ = ("raw", "p", "parents")
    kind = "value"  # llvmlite's name for what it wraps

    def __init__(self, raw: _Raw, p: int, parents: dict[str, Any]) -> None:
        self.raw, self.p, self.parents = raw, p, parents

    def ref(self) -> Any:
        return self.raw.wrap(self.p, self.kind, self.parents)

    @property
    def type(self) -> int:
        return int(self.raw.type_of(self.p))


class _RawInstruction(_RawValue):
    """An instruction at an address, answering what ``_instruction`` asks of llvmlite's
    object (its type, operands and a phi's incoming blocks) through the C functions."""

    __slots__ = ()
    kind = "instruction"

    @property
    def opcode(self) -> str:
        return str(self.ref().opcode)

    @property
    def operands(self) -> list[_RawOperand]:
        r = self.raw
        return [_RawOperand(r, o, self.parents)
                for o in r.each(r.operands, r.next_operand, r.end_operands, self.p)]  # fmt: skip

    @property
    def incoming_blocks(self) -> list[int]:
        r = self.raw
        return r.each(r.incoming, r.next_incoming, r.end_incoming, self.p)


class _RawOperand(_RawValue):
    """An operand at an address: its kind and type through the C functions, the rest (rare:
    constants, globals, inline asm) through llvmlite's object for it."""

    __slots__ = ()
    kind = "operand"

    @property
    def value_kind(self) -> Any:
        return self.raw.kinds[self.raw.kind(self.p)]

    @property
    def name(self) -> str:
        return str(self.ref().name)

    def get_constant_value(self, signed_int: bool = False) -> Any:
        r = self.raw
        if r.kinds[r.kind(self.p)].name != "constant_int":
            return self.ref().get_constant_value(signed_int=signed_int)
        # An integer's words as llvmlite reads them (signed over the words, as it does).
        words, little = r.int_words(self.p), ctypes.c_bool(False)
        data = ctypes.string_at(r.int_data(self.p, ctypes.byref(little)), 8 * words)
        return int.from_bytes(data, "little" if little.value else "big", signed=signed_int)

    def __str__(self) -> str:
        return str(self.ref())


def _param_name(a: Any, i: int) -> str:
    return "%" + a.name if a.name else f"%{i}"


# Per function: instruction, argument and block indexes by identity, and the types' texts.
_Refs = tuple[dict[int, int], dict[int, int], dict[int, int], dict[int, str]]


def _instruction(ins: Any, text: str, i: int, blk: int, line: int, col: int,
                 refs: _Refs) -> Instruction:  # fmt: skip
    m = _ASSIGN.match(text)
    # The opcode and name as LLVM printed them (asking LLVM costs calls per instruction):
    # the printer writes ``%name = [tail] opcode``, and a value without a name has no result.
    g = _OPCODE.match(text, m.end()) if m else _OPCODE.match(text)
    op = g.group(1) if g else ins.opcode
    name = m.group(1) if m else ""
    operands = [_operand(o, refs) for o in ins.operands]
    out = Instruction(i, op, name, _type_text(ins.type, refs[3]), operands, text, blk, line, col)
    body = _unquoted(text)
    if "!" in body:
        for key, val in _ATTACH.findall(body):
            out.metadata[key[1:]] = val
    rhs = body[m.end() :].strip() if m else body
    if rhs[:1] in ("t", "m", "n"):
        rhs = _TAIL.sub("", rhs)
    if op == "br":
        blocks = [o.ref for o in operands if o.kind == "block"]
        out.targets = blocks[::-1] if len(blocks) == 2 else blocks  # LLVM keeps them reversed
    elif op in ("switch", "indirectbr", "callbr", "invoke"):
        out.targets = [o.ref for o in operands if o.kind == "block"]
    elif op == "phi":
        out.incoming = [refs[2].get(_key(b), -1) for b in ins.incoming_blocks]
    elif op in ("icmp", "fcmp"):
        words = rhs.split()
        words = [w for w in words[1:] if w not in ("samesign", "fast", "nnan", "ninf", "nsz")]
        out.predicate = words[0] if words else ""
    elif op == "getelementptr":
        g = re.match(r"getelementptr\s+(?:(?:inbounds|nuw|nusw|inrange\([^)]*\))\s+)*", rhs)
        if g:
            out.source_type = split_top(rhs[g.end() :], 1)[0]
    elif op in ("extractvalue", "insertvalue"):
        # The indices are the trailing plain integers (the aggregate and an inserted value are
        # typed, never a bare integer): no need to split a wide struct type at its commas.
        t = _INDICES.search(_META_TAIL.sub("", rhs))
        out.indices = [int(x) for x in t.group(1).replace(",", " ").split()] if t else []
    elif op == "call" and operands:
        out.callee = operands[-1]
        out.operands = operands[:-1]
    return out


def _type_text(t: Any, types: dict[int, str]) -> str:
    """A type's text, printed once per type of a function (LLVM keeps one object per type)."""
    if type(t) is int:  # an address from the C functions
        raw = _RAW[0] if _RAW else None
        assert raw is not None
        return raw.type_text(t, types)
    k = _key(t)
    got = types.get(k)
    if got is None:
        got = types[k] = str(t)
    return got


def _operand(o: Any, refs: _Refs) -> Operand:
    kind = o.value_kind.name
    if kind == "instruction":
        ref = refs[0].get(_key(o), -1)
        # Its type is filled in from the instruction (``_function``) unless it is unknown.
        return Operand("value", "" if ref >= 0 else _type_text(o.type, refs[3]), ref)
    ty = _type_text(o.type, refs[3])
    if kind == "argument":
        return Operand("arg", ty, refs[1].get(_key(o), -1))
    if kind == "basic_block":
        return Operand("block", "label", refs[2].get(_key(o), -1))
    if kind == "global_variable":
        return Operand("global", ty, name=o.name)
    if kind == "function":
        return Operand("function", ty, name=o.name)
    if kind == "constant_int":
        if ty == "i1":
            return Operand("bool", ty, value=int(o.get_constant_value()))
        return Operand("int", ty, value=int(o.get_constant_value(signed_int=True)))
    if kind in ("constant_pointer_null", "constant_aggregate_zero"):
        return Operand("null", ty)
    if kind in ("undef_value", "poison_value"):
        return Operand("undef", ty)
    if kind == "inline_asm":
        m = _ASM.search(str(o))
        if m:
            return Operand("asm", ty, text=_unescape(m.group(1)), constraints=m.group(2))
        return Operand("other", ty)
    if kind in ("constant_expr", "constant_vector", "constant_data_vector", "constant_struct",
                "constant_array", "constant_data_array"):  # fmt: skip
        return _constant(str(o))
    return Operand("other", ty)


def _unescape(text: str) -> str:
    """An LLVM string's hex escapes decoded (asm text uses \\0A, \\09, \\22, \\5C)."""
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _locator(meta: dict[str, str]) -> Callable[[str], str | None]:
    """``_dbg_loc`` over one metadata table, each reference resolved once."""
    seen: dict[str, str | None] = {}

    def at(ref: str) -> str | None:
        if ref not in seen:
            seen[ref] = _dbg_loc(ref, meta)
        return seen[ref]

    return at


def _dbg_loc(ref: str, meta: dict[str, str]) -> str | None:
    loc = meta.get(ref, "")
    # LLVM leaves out a column of 0 (a location of a whole line, such as the kernel's own).
    lm = re.search(r"line: (\d+), (?:column: (\d+), )?scope: (![-\w.]+)", loc)
    if not lm:
        return None
    file = "?"
    scope = meta.get(lm.group(3), "")
    for _ in range(16):  # lexical blocks lead to their subprogram, which names the file
        fm = re.search(r"file: (![-\w.]+)", scope)
        if fm:
            fl = re.search(r'filename: "([^"]*)"', meta.get(fm.group(1), ""))
            if fl:
                file = fl.group(1)
            break
        sm = re.search(r"scope: (![-\w.]+)", scope)
        if not sm:
            break
        scope = meta.get(sm.group(1), "")
    return f"{file}:{lm.group(1)}:{lm.group(2) or 0}"


# --- constants, from LLVM's printing of them -----------------------------------------------------


def split_top(text: str, limit: int = -1) -> list[str]:
    """Split at commas outside brackets and strings, each part stripped: LLVM's type and
    operand lists, and PTX operand lists (vector operands keep their braces). ``limit``: at
    most that many splits (the rest is the last part), as ``str.split`` takes it."""
    if _NESTING.search(text) is None:  # no bracket or string: commas split it all
        parts = [p.strip() for p in text.split(",", limit)]
        return parts if parts[-1] else parts[:-1]
    out: list[str] = []
    depth, start, quoted = 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
            if len(out) == limit:
                break
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out


def split_type(text: str) -> tuple[str, str]:
    """``TYPE rest`` split where TYPE may hold brackets (``<4 x i32>``, ``ptr addrspace(3)``)."""
    text = text.strip()
    depth = 0
    for i, ch in enumerate(text):
        if ch in "<[{(":
            depth += 1
        elif ch in ">]})":
            depth -= 1
        elif ch == " " and depth == 0:
            head = text[:i]
            if head == "ptr" and text[i:].lstrip().startswith("addrspace("):
                continue
            return head, text[i + 1 :].strip()
    return text, ""


_CAST = ("ptrtoint", "inttoptr", "addrspacecast", "bitcast", "trunc", "zext", "sext")
_CONST_BINOPS = ("add", "sub", "mul", "xor", "shl", "and", "or")


def _constant(typed: str, depth: int = 0) -> Operand:
    """A typed constant as LLVM prints it (``i32 ptrtoint (ptr addrspace(3) @g to i32)``)."""
    ty, tok = split_type(typed)
    return _value(ty, tok, depth)


def _value(ty: str, tok: str, depth: int) -> Operand:
    tok = tok.strip()
    if depth > MAX_CONST_DEPTH:
        return Operand("other", ty)
    if re.fullmatch(r"-?\d+", tok):
        if ty == "i1":
            return Operand("bool", ty, value=int(tok) & 1)
        return Operand("int", ty, value=int(tok))
    if tok in ("true", "false"):
        return Operand("bool", ty, value=int(tok == "true"))
    if tok in ("null", "zeroinitializer"):
        return Operand("null", ty)
    if tok in ("undef", "poison"):
        return Operand("undef", ty)
    if re.fullmatch(_GLOBAL_NAME, tok):
        return Operand("global", ty, name=tok[1:].strip('"'))
    if tok.startswith("<") and tok.endswith(">") and not tok.startswith("<{"):
        return Operand("vector", ty,
                       elems=[_constant(x, depth + 1) for x in split_top(tok[1:-1])])  # fmt: skip
    sp = re.fullmatch(r"splat\s*\((.*)\)", tok)
    if sp:
        return Operand("splat", ty, elems=[_constant(sp.group(1), depth + 1)])
    m = re.match(r"([a-z]+)\s+((?:(?:inbounds|nuw|nsw|nusw|exact|inrange\([^)]*\))\s+)*)\((.*)\)$",
                 tok)  # fmt: skip
    if m:
        op, flags, inner = m.group(1), tuple(m.group(2).split()), m.group(3)
        if op == "getelementptr":
            parts = split_top(inner)
            if len(parts) >= 2:
                return Operand("expr", ty, opcode=op, text=parts[0], flags=flags,
                               elems=[_constant(p, depth + 1) for p in parts[1:]])  # fmt: skip
        elif op in _CAST:
            c = re.match(r"(.*)\s+to\s+(.+)$", inner)
            if c:
                return Operand("expr", ty, opcode=op, flags=flags,
                               elems=[_constant(c.group(1), depth + 1)])  # fmt: skip
        elif op in _CONST_BINOPS:
            parts = split_top(inner)
            if len(parts) == 2:
                return Operand("expr", ty, opcode=op, flags=flags,
                               elems=[_constant(p, depth + 1) for p in parts])  # fmt: skip
    return Operand("other", ty, text=tok[:200])
