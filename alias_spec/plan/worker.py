"""Run one Triton release's own shared-memory allocation on a TTGIR module and print the result.

Protocol: stdin holds one JSON object ``{"text": TTGIR, "prepasses": "release" | "as_written" |
"none"}``;
stdout gets one JSON object ``{"ok": true, "version": ..., "module": printed module, "debug":
allocator debug text, "before": {function: local_alloc count}, "after": {...}}`` or
``{"ok": false, "error": one line}``. The runner sets ``TRITON_LLVM_DEBUG_ONLY`` so that the
allocator writes each buffer's size to fd 2, which this script captures: the printed module
carries only offsets in older releases. With ``--serve`` it answers one such request per line
of stdin, one reply per line of stdout, until stdin closes.

"release" runs the passes the NVIDIA backend runs before lowering to LLVM, up to and including
the allocation, each added only if this release has it. One of them (the inliner) canonicalizes
the module, which deletes unused allocations and ops: the census of ``ttg.local_alloc`` ops per
function before and after those passes lets the runner see what they removed. "as_written"
leaves out the passes that fold, so the allocator sees every op of the module. "none" runs no
pass before the allocation, as Triton's own allocation test pass does (the warp-group pass, for
one, would add partitions to a ``ttg.warp_specialize``).

This file imports only Triton and the standard library, so it runs inside any virtual
environment that has the Triton release under test. An input that aborts the compiler kills
this process: the runner treats that as unreadable input. Temporary files are removed before
the reply is written, whatever happens.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile

# The pid of the process that started this one (the runner sets it): see die_with_parent.
ENV_PARENT = "ALIAS_SPEC_PARENT_PID"
_PR_SET_PDEATHSIG = 1  # linux/prctl.h

_FUNC = re.compile(r"^\s*(?:tt\.func|func\.func)\b[^@]*@(\"(?:[^\"\\]|\\.)*\"|[\w.$-]+)")
_CALL = re.compile(r"\btt\.call\b")


def die_with_parent(parent: int | None) -> None:
    """End this process when ``parent`` (the pid that started it) dies, so that killing the
    command leaves no allocation running under init. Linux: the kernel's parent-death signal;
    elsewhere a thread that watches the parent id. A parent that died before this call is seen
    at once. (``alias_spec.ir.procs`` does the same for the package's own processes; this file
    runs in interpreters without the package, and the runner may start it from any thread,
    where a ``preexec_fn`` is not safe.)"""
    if parent is None:
        return
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError, ValueError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _capability(text: str) -> int:
    m = re.search(r'ttg\.target\s*=\s*"cuda:(\d+)', text)
    return int(m.group(1)) if m else 90


def _ptx_version(capability: int) -> int:
    """The PTX version the backend would pass; a fixed recent one when it cannot be asked."""
    try:
        from triton.backends.compiler import GPUTarget
        from triton.backends.nvidia import compiler as nv

        backend = nv.CUDABackend(GPUTarget("cuda", capability, 32))
        options = backend.parse_options({})
        return int(nv.get_ptx_version_from_options(options, capability))
    except Exception:  # any release-specific difference: the allocation barely depends on it
        return 84


def _add(pm, owner, name: str, *extra) -> None:
    fn = getattr(owner, name, None)
    if fn is None:
        return
    try:
        fn(pm, *extra)
    except TypeError:  # a later release added a flag (e.g. allocate_warp_groups' consan)
        fn(pm, *extra, False)


def census(printed: str) -> dict[str, list[int]]:
    """Per function of a printed module: [ttg.local_alloc ops, tt.call ops]."""
    out: dict[str, list[int]] = {}
    current: list[int] | None = None
    for line in printed.splitlines():
        m = _FUNC.match(line)
        if m:
            current = out.setdefault(m.group(1).strip('"'), [0, 0])
            continue
        if current is not None:
            current[0] += line.count("ttg.local_alloc")
            current[1] += len(_CALL.findall(line))
    return out


def _allocate(text: str, prepasses: str, tmp: str) -> dict:
    from triton._C.libtriton import ir, nvidia, passes

    path = os.path.join(tmp, "module.ttgir")
    with open(path, "w") as f:
        f.write(text)
    ctx = ir.context()
    ir.load_dialects(ctx)
    try:
        nvidia.load_dialects(ctx)
    except AttributeError:
        pass
    mod = ir.parse_mlir_module(path, ctx)
    before = census(str(mod))
    capability = _capability(text)
    if prepasses != "none":
        pre = ir.pass_manager(ctx)
        _add(pre, passes.ttgpuir, "add_combine_tensor_select_and_if")
        _add(pre, passes.ttgpuir, "add_allocate_warp_groups")
        _add(pre, passes.convert, "add_scf_to_cf")
        if prepasses == "release":
            _add(pre, passes.gluon, "add_inliner")  # inlines calls, then canonicalizes
        pre.run(mod, "alias-spec-plan")
    after = census(str(mod))
    pm = ir.pass_manager(ctx)
    nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, capability, _ptx_version(capability))
    pm.run(mod, "alias-spec-plan")
    # Locations that name the module itself name this temporary file: keep only its name.
    module = str(mod).replace(path, "module.ttgir")
    return {"module": module, "before": before, "after": after}


def _answer(request: dict, version: str) -> dict:
    """The reply to one request (the allocator's fd-2 output captured as its debug text)."""
    prepasses = request.get("prepasses", "release")
    tmp = tempfile.mkdtemp(prefix="alias-spec-plan-")
    diag_path = os.path.join(tmp, "diag.txt")
    debug = ""
    try:
        with open(diag_path, "w+b") as diag:
            saved = os.dup(2)
            os.dup2(diag.fileno(), 2)
            try:
                result = {"ok": True, "version": version,
                          **_allocate(request["text"], prepasses, tmp)}  # fmt: skip
            except Exception as exc:  # a parse or pass failure: one line for the user
                first = str(exc).strip().splitlines()
                result = {"ok": False, "error": first[0] if first else type(exc).__name__}
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
                os.close(saved)
            diag.seek(0)
            debug = diag.read().decode("utf-8", errors="replace")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not result["ok"]:
        found = re.search(r"error: (.*)", debug)
        if found:
            result["error"] = found.group(1).strip()
    result["debug"] = debug
    return result


def main() -> int:
    parent = os.environ.get(ENV_PARENT, "")
    die_with_parent(int(parent) if parent.isdigit() else None)
    import triton

    if "--serve" not in sys.argv[1:]:
        sys.stdout.write(json.dumps(_answer(json.loads(sys.stdin.read()), triton.__version__)))
        return 0
    # Serving: one request per line in, one reply per line out, until stdin closes (Triton
    # imported once, not once per module). Replies get a descriptor of their own; anything
    # else written to stdout goes to stderr, so that it cannot be taken for a reply.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    for line in sys.stdin:
        if line.strip():
            replies.write(json.dumps(_answer(json.loads(line), triton.__version__)) + "\n")
            replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
