"""Nothing in the repository points outside it: no issue numbers, no source specifications by number, no product
document beside the checkout. A reader of the repository (or of the installed package's docstrings) could follow none
of them; sources are cited as papers or public projects instead. The one exception is the documented default of
the real datasets' folder, ``../shared/data`` (``FAIRNESS_TEST_DATA`` overrides it)."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = {".py", ".md", ".toml", ".ini", ".cfg", ".yml", ".yaml", ".html", ".j2", ".txt", ".sh", ""}
OUTSIDE = re.compile(r"\b(?i:issues?) #?\d+|\bARCHITECTURE\.md|\bARCHITECTURE ?§|\bseeds? 00\d|\.\./shared/(?!data\b)")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    # This file is left out: its first test shows the pattern what it must find.
    return [ROOT / n for n in names
            if Path(n).suffix in TEXT and (ROOT / n).is_file() and ROOT / n != Path(__file__).resolve()]


def test_the_pattern_finds_each_kind_of_outside_reference():
    for text in ("(issue 42, item 7)", "Issue 48's targets", "see ARCHITECTURE.md", "ARCHITECTURE §5.3", "Borkan et al.; seed 000",
                 "`../shared/seeds/`"):
        assert OUTSIDE.search(text), text
    for text in ("an issue of numbers", "../shared/data", "Efron & Tibshirani 1993, §14.3", "random seed 7"):
        assert not OUTSIDE.search(text), text


def test_no_file_refers_outside_the_repository():
    files = tracked_text_files()
    assert len(files) > 300 and any(f.name == "README.md" for f in files)
    found = [f"{f.relative_to(ROOT)}:{i}: {line.strip()[:100]}"
             for f in files for i, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not found, "\n".join(found)
