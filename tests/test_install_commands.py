"""No instruction installs this project by a bare name: it is not published, so `pip install fairness-core` fails
today and would install a stranger's code the day someone registers the name. Every install is of the checkout
(`pip install '.[spark]'`) or of the built wheel."""

from __future__ import annotations

import re

from tests.support import ROOT

BY_NAME = re.compile(r"pip3? install\s+(?:-[-\w]+\s+)*['\"]?fairness[-_]core(?=[\[\s'\"`),;.]|$)", re.I)


def test_no_instruction_or_message_installs_the_project_by_name():
    places = [ROOT / "README.md", ROOT / "Makefile", *(ROOT / "docs").rglob("*.md")]
    for folder in ("fairness_core", "fairness_dashboard", "pages", "benchmarks"):
        places += (ROOT / folder).rglob("*.py")
    assert len(places) > 100
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}" for p in places
             for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if BY_NAME.search(line)]
    assert found == []


def test_the_pattern_finds_an_install_by_name_and_passes_paths_and_wheels():
    assert BY_NAME.search("pip install 'fairness-core[spark]'") and BY_NAME.search("pip install fairness_core")
    assert BY_NAME.search("run `pip install fairness-core`.")
    assert not BY_NAME.search("pip install '.[spark]'")
    assert not BY_NAME.search("pip install 'dist/fairness_core-0.5.0-py3-none-any.whl[spark]'")
    assert not BY_NAME.search("pip install fairness_core-0.5.0-py3-none-any.whl")
