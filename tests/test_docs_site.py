"""The docs site builds with `mkdocs build --strict` and its rule pages render their formulas
in a real browser (headless Chromium), offline.

Skips without mkdocs-material (pip) or without Chromium (Debian package `chromium`).
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from alias_spec.docgen import docsite
from alias_spec.model.catalogue import RULES

ROOT = Path(__file__).resolve().parent.parent

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


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not docsite.mkdocs_available():
        pytest.skip("mkdocs-material is not installed")
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run(
        docsite.mkdocs_command("build", strict=True, root=ROOT, site_dir=out),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return out


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
    shots = docsite.take_screenshots(site, tmp_path / "shots", tmp_path / "profile")
    for png in shots:
        assert _png_size(png) == (1280, 1000)
        assert png.stat().st_size > 20_000, png  # a blank page compresses to far less
    committed = ROOT / "docs" / "screenshots"
    for name in docsite.SCREENSHOTS:
        assert _png_size(committed / name) == (1280, 1000), name
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)
