"""Every test file has a tier (tests/tiers.py): ``make check`` before each commit, ``make test`` in CI."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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


@pytest.mark.full   # a collection of the whole suite in a child process: half a minute
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


def test_doctests_run_once_through_their_test_module():
    # fairness_core's docstring examples run in tests/fairness_core/test_docstring_examples.py, one test per module;
    # pytest's own --doctest-modules (in pytest.ini or a make target) would run them a second time
    ini = (ROOT / "pytest.ini").read_text()
    make = [line for line in (ROOT / "Makefile").read_text().splitlines() if "-m pytest" in line]
    assert len(make) == 2 and "--doctest" not in ini and not [line for line in make if "--doctest" in line], make
    assert "doctest.testmod(" in (ROOT / "tests" / "fairness_core" / "test_docstring_examples.py").read_text()


def test_ci_never_runs_fewer_property_examples_than_a_developer():
    from hypothesis import settings

    from tests.support import EXAMPLES_SCALE

    assert settings.get_profile("ci").max_examples >= settings.get_profile("dev").max_examples
    assert EXAMPLES_SCALE["ci"] >= EXAMPLES_SCALE["dev"]
    assert settings.get_profile("ci").derandomize and settings.get_profile("ci").database is None


def test_the_browser_tests_are_split_into_two_groups_of_existing_modules():
    # make test drives the browser from two xdist workers, one group each (tests/conftest.py)
    from tests.conftest import SECOND_BROWSER_GROUP, browser_group

    modules = {p.stem for p in (ROOT / "tests" / "browser").glob("test_*.py")}
    assert SECOND_BROWSER_GROUP < modules, SECOND_BROWSER_GROUP - modules   # no stale name; the first not empty
    assert {browser_group(m) for m in modules} == {"browser-1", "browser-2"}
    assert browser_group("test_local_source_browser", own_server=True) == "browser-test_local_source_browser"


@pytest.mark.full   # a pytest run with two xdist workers in a child process
def test_xdist_groups_take_effect(tmp_path):
    # `make test` relies on --dist loadgroup to run each browser group's tests on one worker (one app server and one
    # Chromium each) and every Spark test on one JVM. Twelve tests in two groups, on two workers: each group's tests
    # all ran on one worker. Without tests/conftest.keep_group, pytest 9.2 made each test a group of its own and
    # spread them over both workers.
    (tmp_path / "conftest.py").write_text(
        "import pytest\nfrom tests.conftest import keep_group\n\n\n"
        "@pytest.hookimpl(tryfirst=True)\ndef pytest_collection_modifyitems(config, items):\n"
        "    for item in items:\n        keep_group(item, config)\n")
    (tmp_path / "test_groups.py").write_text(
        "import os\nimport pytest\n\n\n"
        "@pytest.mark.parametrize('group', [pytest.param(g, marks=pytest.mark.xdist_group(g))\n"
        "                                   for g in ['one'] * 6 + ['two'] * 6])\n"
        "def test_placed(group):\n"
        "    with open(os.path.join(os.path.dirname(__file__), 'ran.txt'), 'a') as out:\n"
        "        out.write(f\"{group} {os.environ['PYTEST_XDIST_WORKER']}\\n\")\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", "-p",
                           "no:cacheprovider", "-p", "no:randomly", str(tmp_path)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ran = [line.split() for line in (tmp_path / "ran.txt").read_text().splitlines()]
    assert len(ran) == 12
    workers = {group: {w for g, w in ran if g == group} for group in ("one", "two")}
    assert all(len(w) == 1 for w in workers.values()), workers
