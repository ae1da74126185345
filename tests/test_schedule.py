"""The order in which `make test` hands tests to its xdist workers (tests/conftest.py, schedule_rank): browser tests,
then the longest tests, then the rest of the full tier, then the check tier's short tests."""

from types import SimpleNamespace

from tests import conftest
from tests.support import ROOT


def _item(nodeid: str, *markers: str):
    """A stand-in for a collected test: its node id and the markers it carries."""
    return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: name if name in markers else None)


def test_every_longest_first_path_names_a_test_file():
    # a renamed file would silently lose its place at the front
    assert conftest.LONGEST_FIRST and all((ROOT / path).is_file() for path in conftest.LONGEST_FIRST)


def test_browser_then_longest_then_full_then_check():
    items = [_item("tests/fairness_core/test_rates.py::test_a"),
             _item("tests/app/test_overview.py::test_b", "full"),
             _item("tests/test_benchmark_smoke.py::test_c", "full"),
             _item("tests/browser/test_app_browser.py::test_d@browser-1", "browser", "full"),
             _item("tests/fairness_core/test_rates.py::test_e")]
    ordered = sorted(items, key=conftest.schedule_rank)
    assert [i.nodeid.split("::")[1] for i in ordered] == ["test_d@browser-1", "test_c", "test_b", "test_a", "test_e"]
    assert [conftest.schedule_rank(i) for i in ordered] == [0, 1, 2, 3, 3]
