"""Every test file has a tier (tests/tiers.py): ``make check`` before each commit, ``make test`` in CI."""

from __future__ import annotations

import subprocess
import sys

from tests import tiers
from tests.support import ROOT


def _test_files():
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py"))


def test_every_test_file_has_a_tier_and_each_listed_file_exists():
    files = _test_files()
    assert len(files) > 100
    assert {tiers.tier(f) for f in files} == {"check", "full"}
    for entry in (*tiers.FULL_FILES, *tiers.CHECK_FILES):   # no stale entry
        assert (ROOT / entry).exists(), entry
    assert all(tiers.tier(f) == "full" for f in files if f.startswith("tests/browser/"))
    assert tiers.tier("tests/app/test_pages.py") == "check"   # a short AppTest of every page in the fast tier


def test_the_check_tier_touches_every_package_and_leaves_the_browser_and_spark_out():
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not full", "-p",
                           "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    folders = {i.split("::")[0].rsplit("/", 1)[0] for i in ids}
    assert {"tests/fairness_core", "tests/ui", "tests/app", "tests"} <= folders
    assert not [i for i in ids if i.startswith("tests/browser/")]
    spark_tests = {"test_spark_local_mode_counts_equal_the_in_memory_library", "test_spark_weighted_counts_equal_the_"
                   "in_memory_tables", "test_spark_reads_a_file_uri_as_duckdb_reads_the_folder"}
    assert not [i for i in ids if i.split("::")[-1].split("[")[0] in spark_tests]
    assert len(ids) > 1500
