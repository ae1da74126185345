"""The documentation: the site MkDocs builds from docs/ (mkdocs.yml) with warnings as errors, its API reference
covering the public API, the README's links, its length, and no page pointing outside the repository.

``mkdocs build --strict`` fails on any warning, and mkdocs.yml makes every broken link between pages, every
missing anchor or image, every page left out of the nav, and every docstring mkdocstrings cannot read a
warning. Links in README.md are checked here: the file or folder must exist, and an anchor into a docs page
must be one of the built page's ids. That no page refers to files outside the repository is
tests/test_references.py's check, over every tracked file."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fairness_core
from tests.support import ROOT, fail_or_skip

README_MAX_LINES = 150
# Markdown links and images: [text](target) / ![alt](target); the target up to a space or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built by ``mkdocs build --strict`` into a temporary folder."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None:
        fail_or_skip("MkDocs and mkdocstrings are missing: pip install -e '.[docs]' (in the test extra).")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(out)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr
    return out


def page_html(site: Path, markdown: str) -> str:
    """The built HTML of the docs page `markdown` (a path under docs/, e.g. "model-review.md")."""
    stem = markdown.removesuffix(".md")
    folder = site if stem == "index" else site / (stem.removesuffix("/index"))
    return (folder / "index.html").read_text(encoding="utf-8")


def test_the_site_builds_strict_with_every_page_and_screenshot(site):
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert {"index.md", "getting-started.md", "model-review.md", "intervals.md", "coverage.md", "weights.md",
            "data-beyond-memory.md", "security.md", "glossary.md", "architecture.md", "api/index.md"} <= set(pages)
    for page in pages:   # every page is built (mkdocs.yml's nav lists it: an omitted page fails the build)
        assert "<h1" in page_html(site, page), page
    # one page per dashboard page, each with its screenshot
    dashboard = [p for p in pages if p.startswith("dashboard/") and p != "dashboard/index.md"]
    assert len(dashboard) == len(list((ROOT / "pages").glob("*.py"))) == 10
    for page in dashboard:
        assert re.search(r'<img alt="[^"]+" src="[^"]*screenshots/\w+\.png"', page_html(site, page)), page


def test_the_api_reference_documents_every_public_name(site):
    api = " ".join(page_html(site, p.relative_to(ROOT / "docs").as_posix())
                   for p in (ROOT / "docs" / "api").glob("*.md"))
    documented = set(re.findall(r'id="fairness_core\.(\w+)"', api))
    assert set(fairness_core.__all__) <= documented
    assert not documented - set(fairness_core.__all__) - {"engines", "plotting"}
    # each entry is written once, in one place
    entries = [n for p in (ROOT / "docs" / "api").glob("*.md")
               for n in re.findall(r"^::: fairness_core\.(\w+)$", p.read_text(encoding="utf-8"), re.M)]
    assert sorted(entries) == sorted([*fairness_core.__all__, "engines", "plotting"])
    # the numpydoc sections are parsed (read in another style, they would be plain text: no "Parameters:" label)
    assert api.count("Parameters:") > 100 and api.count("Returns:") > 100


def test_the_readme_is_short_and_every_link_in_it_resolves(site):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    links = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]
    assert len(links) > 20
    for target in links:
        path, _, anchor = target.partition("#")
        assert (ROOT / path).exists(), target
        if anchor:
            assert path.startswith("docs/") and path.endswith(".md"), target
            assert f'id="{anchor}"' in page_html(site, path.removeprefix("docs/")), target
