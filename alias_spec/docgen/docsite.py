"""`alias-spec docs build|serve`: the documentation site (mkdocs with the Material theme).

Generated pages (alias_spec/docgen/gen_docs.py) are brought up to date first, then mkdocs runs
from the docs root the caller gives (``alias-spec docs build --root DIR``, default the current
directory: a checkout's top, holding mkdocs.yml and docs/). This file is also mkdocs' hook
module (``hooks:`` in mkdocs.yml): it fills the Rules section of the navigation from the
catalogue and adds benchmarks/results.md, when it exists, as the page "Measured results" (its
own page: ``docs/benchmarks.md`` is the Benchmarks page), so neither goes stale as rules are
added.
"""

from __future__ import annotations

import errno
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

SITE = "site"
BENCHMARKS = "benchmarks/results.md"
RESULTS_PAGE = "measured-results.md"  # where the site shows BENCHMARKS
# The docs extra: mkdocs-material (which brings mkdocs, pymdown-extensions and pygments) and
# the spec extra the generated pages need.
DOCS_EXTRA = "'tle-alias-spec[docs]'"


def regenerate(root: Path) -> list[str]:
    """Write every stale generated docs page under ``root`` and drop rule pages of rules that
    are gone."""
    from alias_spec.docgen import gen_docs

    written = []
    wanted = set()
    for rel, make in gen_docs.targets(root):
        wanted.add(rel)
        path = root / rel
        text = make()
        if not path.exists() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(rel)
    for page in sorted((root / "docs/rules").glob("*.md")):
        if str(page.relative_to(root)) not in wanted:
            page.unlink()
            written.append(f"{page.relative_to(root)} (removed)")
    return written


def mkdocs_available() -> bool:
    return (
        importlib.util.find_spec("mkdocs") is not None
        and importlib.util.find_spec("material") is not None
    )


def mkdocs_command(action: str, strict: bool, root: Path, site_dir: str | Path = SITE) -> list[str]:
    """The mkdocs command line for the site whose mkdocs.yml is in ``root``."""
    cmd = [sys.executable, "-m", "mkdocs", action, "-f", str(root / "mkdocs.yml")]
    if action == "build":
        cmd += ["-d", str(site_dir)]
    if strict:
        cmd.append("--strict")
    return cmd


def mkdocs_env() -> dict[str, str]:
    """The environment mkdocs runs in: without the theme's banner about its successor, which
    it prints as a warning on every run (the build log stays free of warnings)."""
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def main(action: str, root: Path, strict: bool = True, dev_addr: str | None = None) -> int:
    """``build``: regenerate pages under ``root`` if needed, then ``mkdocs build --strict``
    into ``root``/site/; ``serve``: the same pages, served with live reload (at ``dev_addr``,
    HOST:PORT, when given) until this process is stopped, which stops mkdocs too."""
    from alias_spec.docgen.gen_docs import InputError

    if action not in ("build", "serve"):
        print(f"alias-spec: error: unknown action {action!r} (build or serve)", file=sys.stderr)
        return 2
    if not (root / "mkdocs.yml").is_file():
        print(f"alias-spec: error: --root {root}: no mkdocs.yml there", file=sys.stderr)
        return 2
    if not mkdocs_available():
        print(
            f"alias-spec: error: mkdocs is not installed: pip install {DOCS_EXTRA}",
            file=sys.stderr,
        )
        return 2
    busy = address_problem(dev_addr or configured_addr(root)) if action == "serve" else None
    if busy is not None:  # mkdocs would say it in a 36-line traceback
        print(f"alias-spec: error: {busy}", file=sys.stderr)
        return 2
    try:
        written = regenerate(root)
    except InputError as exc:
        print(f"alias-spec: error: {exc}", file=sys.stderr)
        return 2
    for rel in written:
        print(f"wrote {rel}")
    cmd = mkdocs_command(action, strict, root)
    if action == "serve":
        if dev_addr is not None:
            cmd += ["-a", dev_addr]
        return serve(cmd, root)
    return subprocess.run(cmd, cwd=root, env=mkdocs_env()).returncode


DEFAULT_ADDR = "127.0.0.1:8000"  # mkdocs serve's own default


def configured_addr(root: Path) -> str:
    """The address mkdocs.yml's ``dev_addr`` names, else mkdocs' default."""
    try:
        text = (root / "mkdocs.yml").read_text()
    except (OSError, UnicodeDecodeError):
        return DEFAULT_ADDR
    m = re.search(r"""^dev_addr:\s*['"]?([^'"\s#]+)""", text, re.M)
    return m.group(1) if m else DEFAULT_ADDR


def address_problem(addr: str) -> str | None:
    """Why ``mkdocs serve`` could not listen at ``addr`` (HOST:PORT), in one line, or None.
    The port is bound once here the way mkdocs binds it (address reuse on, so a port left in
    TIME_WAIT is free) and released at once."""
    host, sep, port_text = addr.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return f"--addr {addr}: expected HOST:PORT, e.g. {DEFAULT_ADDR}"
    host = host.strip("[]")
    try:
        infos = socket.getaddrinfo(host, int(port_text), type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        return f"--addr {addr}: unknown host ({getattr(exc, 'strerror', None) or exc})"
    family, kind, proto, _, sockaddr = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(sockaddr)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (f"{addr} is in use (another server?): stop it, or serve elsewhere with "
                    "--addr HOST:PORT")  # fmt: skip
        return f"--addr {addr}: cannot listen there ({exc.strerror or exc})"
    return None


class _Stop(Exception):
    """A signal asking the server to stop."""


def serve(cmd: list[str], root: Path) -> int:
    """Run ``mkdocs serve`` in its own process group and take the whole group down when this
    process stops: Ctrl-C, SIGTERM or SIGHUP (a closed terminal), or its own death. Exit 130
    on Ctrl-C, 128 + the signal otherwise, mkdocs' status if it stops by itself."""
    from functools import partial

    from alias_spec.ir.procs import die_with_parent

    linux = sys.platform.startswith("linux")
    proc = subprocess.Popen(
        cmd,
        cwd=root,
        env=mkdocs_env(),
        start_new_session=True,  # a signal to our group does not reach it: we stop it
        # Sent SIGTERM when this process dies, even by SIGKILL (no chance to stop it then).
        preexec_fn=partial(die_with_parent, os.getpid()) if linux else None,
    )
    got: list[int] = []

    def stop(signum: int, _frame: Any) -> None:
        got.append(signum)
        raise _Stop

    handled = [sig for sig in ("SIGTERM", "SIGHUP") if hasattr(signal, sig)]
    previous: dict[int, Any] = {}
    try:
        for name in handled:
            sig = getattr(signal, name)
            previous[sig] = signal.signal(sig, stop)
    except ValueError:  # not the main thread: no handlers, the finally clause still stops it
        pass
    try:
        return proc.wait()
    except KeyboardInterrupt:
        return 130
    except _Stop:
        return 128 + got[0]
    finally:
        _stop_group(proc)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _stop_group(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """SIGTERM to the child's process group, SIGKILL after ``grace`` seconds."""
    if proc.poll() is not None:
        return
    killpg = getattr(os, "killpg", None)
    try:
        if killpg is not None:
            killpg(proc.pid, signal.SIGTERM)
        else:
            proc.terminate()
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        if killpg is not None:
            killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        proc.wait()
    except ProcessLookupError:
        pass


# ---------------------------------------------------------------------------------------------
# mkdocs hooks.


def _root(config: Any) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config: Any) -> Any:
    root = _root(config)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from alias_spec.model.catalogue import RULES

    groups: dict[str, list[dict[str, str]]] = {}
    for r in RULES:
        groups.setdefault(r.id.split(".", 1)[0], []).append({r.id: f"rules/{r.id}.md"})
    section: list[Any] = ["rules/index.md"]
    section += [{f"{name}.*": pages} for name, pages in groups.items()]
    nav = config.nav or []
    for i, item in enumerate(nav):
        if isinstance(item, dict) and "Rules" in item:
            nav[i] = {"Rules": section}
    if (root / BENCHMARKS).exists():
        nav.append({"Measured results": RESULTS_PAGE})
    config.nav = nav
    return config


def on_files(files: Any, config: Any) -> Any:
    bench = _root(config) / BENCHMARKS
    if bench.exists():
        from mkdocs.structure.files import File

        text = bench.read_text()
        note = f"\n\n*From `{BENCHMARKS}` in the repository.*\n"
        files.append(File.generated(config, RESULTS_PAGE, content=text + note))
    return files


# ---------------------------------------------------------------------------------------------
# Headless Chromium, for the site test and the committed screenshots.

CHROMIUM = ("/usr/bin/chromium", "chromium", "chromium-browser")


def chromium() -> str | None:
    import shutil

    for name in CHROMIUM:
        path = shutil.which(name)
        if path:
            return path
    return None


def _browser(binary: str, profile_dir: Path, *args: str, timeout: int = 120) -> str:
    cmd = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        f"--user-data-dir={profile_dir}",
        *args,
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"chromium failed ({r.returncode}): {r.stderr[-1000:]}")
    return r.stdout


def dump_dom(
    binary: str, profile_dir: Path, url: str, budget_ms: int = 5000, local_files: bool = False
) -> str:
    """The DOM after the page's scripts ran (``budget_ms`` of virtual time). ``local_files``
    lets a file:// page read the documents of file:// frames it opens (the site audit)."""
    extra = ["--allow-file-access-from-files", "--window-size=1300,1000"] if local_files else []
    return _browser(
        binary,
        profile_dir,
        *extra,
        f"--virtual-time-budget={budget_ms}",
        "--dump-dom",
        url,
        timeout=max(120, budget_ms // 1000 * 2),
    )


WINDOW = (1280, 900)  # the screenshots' viewport: a laptop screen


def screenshot(binary: str, profile_dir: Path, url: str, png: Path) -> None:
    _browser(
        binary, profile_dir, "--hide-scrollbars", f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--virtual-time-budget=3000", f"--screenshot={png}", url,
    )  # fmt: skip


# One screenshot per kind of page (docs/screenshots/NAME).
SCREENSHOTS = {
    "home.png": "index.html",
    "guide.png": "guides/getting-started/index.html",
    "rule.png": "rules/alias.offset.i32/index.html",
    "profiles.png": "profiles/index.html",
    "theorems.png": "theorems/index.html",
    "agreement.png": "triton-agreement/index.html",
}


def take_screenshots(site: Path, out_dir: Path, profile_dir: Path) -> list[Path]:
    """A screenshot of each kind of page of a built site. The committed ones in
    docs/screenshots/ are rewritten by
    ``UPDATE_SCREENSHOTS=1 pytest tests/docgen/test_docs_site.py``."""
    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium is not installed (apt-get install chromium)")
    out_dir.mkdir(parents=True, exist_ok=True)
    shots = []
    for name, page in SCREENSHOTS.items():
        screenshot(binary, profile_dir, (site / page).as_uri(), out_dir / name)
        shots.append(out_dir / name)
    return shots
