"""The docs site builds with `mkdocs build --strict` and no other message than its progress
lines, every built page is in the navigation, and every page reads whole in a real browser
(headless Chromium, offline, a 1280x900 window): tables fit the content column inside a
wrapper that scrolls, no text is cut off by a box or the window or runs past the column, a rule
id stays on one line and a wrapped name breaks only between words. Rule pages render their
formulas as MathML. Screenshots of each kind of page are committed in docs/screenshots/
(``UPDATE_SCREENSHOTS=1`` rewrites them).

Skips without mkdocs-material (pip) or without Chromium (Debian package `chromium`).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from alias_spec.docgen import docsite
from alias_spec.model.catalogue import RULES
from tests.paths import ROOT

# Injected into a copy of a built page: reports each formula's box and whether a superscript
# (2^31 in INT32_MAX) sits above its base, which only a MathML layout engine does.
PROBE = """<script>
window.addEventListener("load", () => {
  const boxes = [...document.querySelectorAll("math.rule-formula")].map(m => {
    const r = m.getBoundingClientRect(); return [r.width, r.height]; });
  const sups = [...document.querySelectorAll("math msup")].map(s => {
    const [base, exp] = s.children;
    return exp.getBoundingClientRect().bottom < base.getBoundingClientRect().bottom - 1; });
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify({boxes, sups});
  document.body.appendChild(out);
});
</script>"""


# Progress lines; any other line of the build's output is a warning or a notice to act on.
PROGRESS = re.compile(
    r"INFO +- +(Cleaning site directory|Building documentation to directory: .*"
    r"|Documentation built in [0-9.]+ seconds)"
)


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The built site and the build's whole output (stdout and stderr)."""
    if not docsite.mkdocs_available():
        pytest.skip("mkdocs-material is not installed")
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run(
        docsite.mkdocs_command("build", strict=True, root=ROOT, site_dir=out),
        cwd=ROOT,
        env=docsite.mkdocs_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return out, r.stdout + r.stderr


@pytest.fixture(scope="module")
def site(build: tuple[Path, str]) -> Path:
    return build[0]


def test_the_build_prints_nothing_but_progress(build: tuple[Path, str]) -> None:
    extra = [line for line in build[1].splitlines() if line.strip() and not PROGRESS.match(line)]
    assert not extra, "\n".join(extra)


def _nav_pages(site: Path) -> set[str]:
    """Pages the navigation links to, read from the home page's sidebar."""
    home = (site / "index.html").read_text()
    nav = home.split('class="md-nav md-nav--primary"', 1)[1].split("</nav>\n</div>", 1)[0]
    hrefs = re.findall(r'<a href="([^"#]*)" class="md-nav__link', nav)
    return {(h.rstrip("/") + "/index.html").lstrip("./").removeprefix("/") for h in hrefs}


def _built_pages(site: Path) -> set[str]:
    return {str(p.relative_to(site)) for p in site.rglob("*.html") if p.name != "404.html"}


def test_every_page_is_in_the_navigation(site: Path) -> None:
    nav, built = _nav_pages(site), _built_pages(site)
    assert "triton-agreement/index.html" in nav and "theorems/index.html" in nav
    assert built == nav, (sorted(built - nav), sorted(nav - built))


def test_every_rule_has_a_page_in_the_navigation(site: Path) -> None:
    home = (site / "index.html").read_text()
    for r in RULES:
        page = site / "rules" / r.id / "index.html"
        assert page.exists(), r.id
        assert f"rules/{r.id}/" in home, f"{r.id} missing from the navigation"


def test_rule_pages_carry_formulas(site: Path) -> None:
    for r in RULES:
        text = (site / "rules" / r.id / "index.html").read_text()
        assert text.count('<math display="block" class="rule-formula">') >= 1, r.id
        assert r.message in text.replace("&#39;", "'").replace("&quot;", '"'), r.id


def test_rule_pages_render_their_modules(site: Path) -> None:
    """Every MLIR example of a rule page comes out as a titled code block, none swallowed."""
    shown = 0
    for r in RULES:
        source = (ROOT / "docs" / "rules" / f"{r.id}.md").read_text()
        text = (site / "rules" / r.id / "index.html").read_text()
        want = source.count("<!-- example: mlir ")
        assert text.count(".mlir</span>") == want, r.id
        shown += want
    assert shown > 0


def test_no_page_loads_anything_from_the_network(site: Path) -> None:
    for page in site.rglob("*.html"):
        for url in re.findall(r'(?:src|href)="(https?://[^"]+)"', page.read_text()):
            assert not url.endswith((".js", ".css", ".woff2")), (page, url)


def _page_text(page: Path) -> str:
    """A built page's article as a reader sees it: tags dropped, entities read, spaces merged."""
    body = page.read_text().split("<article", 1)[1].split(">", 1)[1].split("</article>")[0]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())


def test_agreement_page_shows_triton_messages_whole(site: Path) -> None:
    """Abort messages are C++ text (``ArrayRef<unsigned int>::operator[](size_t)``): each is
    shown verbatim and whole, not read as HTML tags or links, nor cut short."""
    data = json.loads((ROOT / "docs" / "triton-agreement.json").read_text())
    text = _page_text(site / "triton-agreement" / "index.html")
    shown = [e for r in data["releases"].values() for e in r["aborts"]]
    assert any("<" in e["triton_error"] and "[](" in e["triton_error"] for e in shown)
    for e in shown:
        assert " ".join(e["triton_error"].split()) in text, e["triton_error"]
        for side in ("source", "result"):
            assert e["request"][side] in text, e["request"][side]


@pytest.fixture(scope="module")
def browser() -> str:
    binary = docsite.chromium()
    if binary is None:
        pytest.skip("chromium is not installed")
    return binary


def test_formulas_render_in_chromium(site: Path, browser: str, tmp_path: Path) -> None:
    page = site / "rules" / "alias.offset.i32" / "index.html"
    probed = page.with_name("probed.html")
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    dom = docsite.dump_dom(browser, tmp_path / "profile", probed.as_uri())
    m = re.search(r'<pre id="probe">(.*?)</pre>', dom)
    assert m, dom[-2000:]
    probe = json.loads(m.group(1).replace("&quot;", '"'))
    assert len(probe["boxes"]) >= 2  # the formula and its guard
    assert all(w > 20 and h > 5 for w, h in probe["boxes"]), probe
    assert probe["sups"] and all(probe["sups"]), probe  # 2^31 is typeset as a superscript


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def test_screenshots(site: Path, browser: str, tmp_path: Path) -> None:
    """One screenshot per kind of page; ``UPDATE_SCREENSHOTS=1`` commits them."""
    out = ROOT / "docs" / "screenshots" if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path
    shots = docsite.take_screenshots(site, out, tmp_path / "profile")
    assert [p.name for p in shots] == list(docsite.SCREENSHOTS)
    for png in shots:
        assert _png_size(png) == docsite.WINDOW
        assert png.stat().st_size > 20_000, png  # a blank page compresses to far less
    committed = ROOT / "docs" / "screenshots"
    for name in docsite.SCREENSHOTS:
        assert _png_size(committed / name) == docsite.WINDOW, name
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)


# --- every page in the browser ------------------------------------------------------------

# Runs in a frame's document after its scripts ran; returns what it found, per kind.
AUDIT_JS = r"""// Audits one rendered page (document d, window w) at its viewport: tables, cut-off text,
// text past the content column, rule ids on one line, names wrapped only between words.
function auditPage(d, w, ruleIds) {
  const out = {tables: [], cut: [], spill: [], broken: [], midword: []};
  const article = d.querySelector("article.md-content__inner");
  if (!article) return {error: "no article"};
  const h1 = article.querySelector("h1");
  out.title = h1 ? h1.textContent.replace(/\u00b6/g, "").trim() : null;
  out.images = [...article.querySelectorAll("img")].map(i => ({
    src: i.getAttribute("src"), file: new URL(i.src).pathname,
    loaded: i.complete && i.naturalWidth > 0}));
  const colRight = article.getBoundingClientRect().right;
  const viewRight = d.documentElement.clientWidth;
  const style = el => w.getComputedStyle(el);
  const shown = el => {
    for (let e = el; e; e = e.parentElement) {
      const s = style(e);
      if (s.display === "none" || s.visibility !== "visible" || s.opacity === "0") return false;
    }
    return el.getClientRects().length > 0;
  };
  const where = (el, text) => el.tagName.toLowerCase() + "." +
    String(el.className || "").trim().split(/\s+/).join(".") + ": " + text.trim().slice(0, 70);
  // A scroller in the content column (a table's wrapper, a code block, a formula) may hold
  // text wider than itself: the reader scrolls it. Tables are held to fit below.
  const contentScroller = el => article.contains(el) && ["auto", "scroll"].includes(style(el).overflowX);
  for (const t of article.querySelectorAll("table")) {
    const wrap = t.closest(".md-typeset__scrollwrap");
    out.tables.push({table: where(t, t.textContent), wrapped: !!wrap,
                     scrolls: !!wrap && ["auto", "scroll"].includes(style(wrap).overflowX),
                     width: wrap ? wrap.scrollWidth : t.scrollWidth,
                     room: wrap ? wrap.clientWidth : article.clientWidth});
  }
  const range = d.createRange();
  const walker = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.data.trim() || !el || !shown(el)) continue;
    range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    if (!rects.length) continue;
    const right = Math.max(...rects.map(r => r.right)), left = Math.min(...rects.map(r => r.left));
    let clip = el;
    while (clip && style(clip).overflowX === "visible") clip = clip.parentElement;
    if (clip && contentScroller(clip)) continue;
    if (clip && clip !== d.documentElement && clip !== d.body) {
      const box = clip.getBoundingClientRect();
      const inner = box.left + clip.clientLeft;
      if (right > inner + clip.clientWidth + 1 || left < inner - 1)
        out.cut.push(where(el, n.data) + ` (${Math.round(left)}..${Math.round(right)} in ${Math.round(inner)}..${Math.round(inner + clip.clientWidth)})`);
    }
    if (right > viewRight + 1) out.cut.push(where(el, n.data) + " (past the window)");
    if (article.contains(el) && right > colRight + 1)
      out.spill.push(where(el, n.data) + ` (+${Math.round(right - colRight)}px)`);
  }
  for (const c of article.querySelectorAll("code")) {
    if (c.closest("pre") || !shown(c)) continue;
    const text = c.textContent.trim();
    if (c.getClientRects().length < 2) continue;
    if (ruleIds.includes(text)) out.broken.push(text);
    const inner = d.createTreeWalker(c, NodeFilter.SHOW_TEXT);
    let prev = "", prevTop = null;
    for (let t = inner.nextNode(); t; t = inner.nextNode()) {
      for (let i = 0; i < t.length; i++) {
        range.setStart(t, i); range.setEnd(t, i + 1);
        const box = range.getClientRects()[0];
        const ch = t.data[i];
        if (box && !/\s/.test(ch)) {
          if (prevTop !== null && box.top > prevTop + 2 && /\w/.test(prev) && /\w/.test(ch))
            out.midword.push(text.slice(0, 80));
          prevTop = box.top;
        }
        prev = ch;
      }
    }
  }
  return out;
}
"""

# A page of the site that opens every other page in a 1280x900 frame, one at a time, audits
# it and writes the results into <pre id="audit"> (read back through --dump-dom).
HARNESS = """<!doctype html><html><body style="margin:0">
<iframe id="f" style="width:1280px;height:900px;border:0"></iframe><pre id="audit"></pre>
<script>%(js)s
const pages = %(pages)s, ruleIds = %(rules)s, results = {};
const frame = document.getElementById("f");
let next = 0;
function step() {
  if (next >= pages.length) {
    document.getElementById("audit").textContent = JSON.stringify(results);
    return;
  }
  const page = pages[next++];
  frame.onload = () => setTimeout(() => {
    try { results[page] = auditPage(frame.contentDocument, frame.contentWindow, ruleIds); }
    catch (e) { results[page] = {error: String(e)}; }
    step();
  }, 300);
  frame.src = page;
}
step();
</script></body></html>"""


def audit(site: Path, browser: str, profile_dir: Path) -> dict[str, dict]:
    """What AUDIT_JS finds on every built page."""
    pages = sorted(_built_pages(site))
    harness = site / "audit.html"
    harness.write_text(
        HARNESS
        % {"js": AUDIT_JS, "pages": json.dumps(pages), "rules": json.dumps([r.id for r in RULES])}
    )
    try:
        dom = docsite.dump_dom(
            browser, profile_dir, harness.as_uri(), budget_ms=600_000, local_files=True
        )
    finally:
        harness.unlink()
    m = re.search(r'<pre id="audit">(.*?)</pre>', dom, re.S)
    assert m and m.group(1), dom[-2000:]
    results: dict[str, dict] = json.loads(html.unescape(m.group(1)))
    assert sorted(results) == pages
    return results


@pytest.fixture(scope="module")
def audited(site: Path, browser: str, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return audit(site, browser, tmp_path_factory.mktemp("profile"))


def _found(audited: dict[str, dict], kind: str) -> dict[str, list]:
    return {
        page: r.get(kind, r.get("error"))
        for page, r in audited.items()
        if r.get(kind, r.get("error"))
    }


def test_every_page_was_audited(audited: dict[str, dict]) -> None:
    assert not {p: r["error"] for p, r in audited.items() if "error" in r}
    # The audit saw real pages: their tables and code (not blank frames).
    assert sum(len(r["tables"]) for r in audited.values()) > 100


def test_tables_fit_the_content_column(audited: dict[str, dict]) -> None:
    bad = {
        page: [t for t in r["tables"] if not t["scrolls"] or t["width"] > t["room"]]
        for page, r in audited.items()
    }
    assert not {p: t for p, t in bad.items() if t}


def test_no_text_is_cut_off(audited: dict[str, dict]) -> None:
    assert not _found(audited, "cut")


def test_no_text_runs_past_the_content_column(audited: dict[str, dict]) -> None:
    assert not _found(audited, "spill")


def test_rule_ids_stay_on_one_line(audited: dict[str, dict]) -> None:
    assert not _found(audited, "broken")


def test_names_wrap_only_between_words(audited: dict[str, dict]) -> None:
    assert not _found(audited, "midword")


# --- the navigation, entry by entry ---------------------------------------------------------


def _nav_sources() -> list[tuple[str, str]]:
    """(title, source page) of every navigation entry mkdocs.yml writes (the hook adds the
    rule pages and the measured results)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    # mkdocs.yml may carry Python tags (!!python/name:...): read them as plain text.
    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    out: list[tuple[str, str]] = []

    def walk(items: list) -> None:
        for item in items:
            for title, target in item.items() if isinstance(item, dict) else [(None, item)]:
                if isinstance(target, list):
                    walk(target)
                elif isinstance(target, str) and target.endswith(".md"):
                    out.append((title or target, target))

    walk(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)["nav"])
    return out


def _heading(source: str) -> str:
    for line in source.splitlines():
        if line.startswith("# "):
            return re.sub(r"[`*]", "", line[2:]).strip()  # as rendered: code marks dropped
    raise AssertionError("no level-1 heading")


def _page_of(source: str) -> str:
    stem = source.removesuffix(".md")
    return "index.html" if stem == "index" else f"{stem.removesuffix('/index')}/index.html"


def test_every_navigation_entry_opens_its_own_page(site: Path, audited: dict[str, dict]) -> None:
    """Each entry of the navigation opens the page its source is, titled as its source says:
    the Benchmarks entry opened "Measured results" (the hook injected benchmarks/results.md
    under the name of docs/benchmarks.md), and the navigation listed Benchmarks twice."""
    home = (site / "index.html").read_text()
    nav = home.split('class="md-nav md-nav--primary"', 1)[1].split("</nav>\n</div>", 1)[0]
    titles = [
        " ".join(html.unescape(re.sub(r"<[^>]+>", "", t)).split())
        for t in re.findall(r'<a href="[^"#]*" class="md-nav__link[^"]*">(.*?)</a>', nav, re.S)
    ]
    assert len(titles) == len(set(titles)), sorted(t for t in titles if titles.count(t) > 1)
    entries = _nav_sources() + [("Measured results", docsite.RESULTS_PAGE)]
    for title, source in entries:
        page = _page_of(source)
        assert page in audited, (title, source)
        path = ROOT / "docs" / source
        text = path.read_text() if path.exists() else (ROOT / docsite.BENCHMARKS).read_text()
        assert audited[page]["title"] == _heading(text), (title, source, audited[page]["title"])


def test_every_image_loads_and_every_copied_image_is_shown(
    site: Path, audited: dict[str, dict]
) -> None:
    """docs/benchmarks.md's three plots were copied to the site and shown by no page."""
    shown: set[str] = set()
    for page, r in audited.items():
        for img in r["images"]:
            assert img["loaded"], (page, img["src"])
            shown.add(Path(img["file"]).name)
    copied = {p.name for p in (site / "img").glob("*") if p.is_file()}
    assert copied <= shown, sorted(copied - shown)
    assert {"benchmarks-smem.png", "benchmarks-tflops.png", "benchmarks-planning.png"} <= shown
