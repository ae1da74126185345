"""AppTest of the app on data counted where it lies: boolean identity columns are mappable, mapping edits
are applied together (one count), a threshold change with intervals on a counted edge is answered from the counted
atoms (no scan, the scan's numbers), and a threshold between the edges says so and offers the edges near it."""

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import fairness_core as fc
from fairness_core import engines
from fairness_core.engines import _result, _scored_counts
from tests.app.helpers import ROOT, count_calls, metrics, open_section, scored_table, widget
from fairness_dashboard import local_paths
from fairness_dashboard.data import local
from fairness_dashboard.presentation import labels

FILES = "Parquet or CSV files: a path, a folder or a glob"
APPLY = "Apply mapping"
IDENTITIES = [f"id_{j}" for j in range(10)]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A folder with ids.parquet: 20,000 generated rows and ten boolean identity columns (the benchmark's layout:
    overlapping, prevalence 3 % to 30 %), the last a nullable boolean with missing values."""
    folder = tmp_path_factory.mktemp("counted")
    rows = scored_table(20_000, seed=24)
    rng = np.random.default_rng(24)
    for j, name in enumerate(IDENTITIES):
        rows[name] = rng.random(len(rows)) < 0.03 * (j + 1)
    last = pd.array(rows[IDENTITIES[-1]], dtype="boolean")
    last[rng.random(len(rows)) < 0.02] = pd.NA
    rows[IDENTITIES[-1]] = last
    rows.to_parquet(folder / "ids.parquet", index=False)
    return folder


def _opened(monkeypatch, root) -> AppTest:
    monkeypatch.setenv(local_paths.ENV, str(root))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    widget(at, "radio", "Source").set_value("local").run()
    widget(at, "text_input", FILES).set_value("ids.parquet").run()
    widget(at, "multiselect", labels.PROTECTED).set_value(["race"]).run()
    widget(at, "multiselect", labels.SCORE_COLUMN).set_value(["score_a"]).run()
    _apply(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _apply(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == APPLY).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _add_identities(at: AppTest, names) -> None:
    for name in names:   # one at a time, as an analyst picks them
        box = widget(at, "multiselect", labels.IDENTITY)
        box.set_value([*box.value, name]).run()
        assert not at.exception and not at.error, [e.value for e in at.error]


def _mapping(identities=tuple(IDENTITIES)) -> fc.ColumnMapping:
    return fc.ColumnMapping(label="label", positive_label=1, scores=("score_a",), predicted_label="approved",
                            protected=("race",), indicators=tuple(identities))


def test_boolean_identity_columns_are_mappable_and_counted_as_in_memory(root, monkeypatch):
    at = _opened(monkeypatch, root)
    assert set(IDENTITIES) <= set(widget(at, "multiselect", labels.IDENTITY).options)   # bool and nullable boolean
    widget(at, "multiselect", labels.IDENTITY).set_value(IDENTITIES[:2] + IDENTITIES[-1:]).run()
    _apply(at)
    shown = at.dataframe[0].value.set_index("subgroup")
    rows = pd.read_parquet(root / "ids.parquet")
    expected = fc.ScoredData.from_frame(rows, _mapping(IDENTITIES[:2] + IDENTITIES[-1:])).subgroup_table()
    expected = expected.set_index("subgroup")
    assert list(shown.index) == list(expected.index) == ["Asian", "Black", "Hispanic", "White",
                                                         "id_0", "id_1", "id_9"]
    for column in ("size", "n_positive", "n_negative"):
        assert shown[column].tolist() == expected[column].tolist(), column
    assert shown.loc["id_9", "size"] == int((rows["id_9"] == True).sum())   # noqa: E712 (missing: in neither side)


def test_ten_identity_columns_added_one_at_a_time_cost_one_count(root, monkeypatch):
    at = _opened(monkeypatch, root)
    before = at.dataframe[0].value
    seen = count_calls(monkeypatch, engines, ["scored_counts"])
    atoms = count_calls(monkeypatch, engines.ScoredCounts, ["with_atoms"])
    _add_identities(at, IDENTITIES)
    assert seen["scored_counts"] == 0 and atoms["with_atoms"] == 0   # edits wait: nothing is counted
    pending = [m.value for m in at.markdown if m.value.startswith("**Mapping not applied yet**")]
    assert pending and all(f"+ id\\_{j}" in pending[0] for j in range(10)), pending
    assert at.dataframe[0].value.equals(before)   # the summary is still the applied mapping's
    _apply(at)
    assert seen["scored_counts"] == 1 and atoms["with_atoms"] == 1   # one count (and its atoms) for ten edits
    assert not [m.value for m in at.markdown if m.value.startswith("**Mapping not applied yet**")]
    assert at.dataframe[0].value["subgroup"].tolist()[-10:] == IDENTITIES
    assert at.session_state["mapping"].indicators == tuple(IDENTITIES)
    at.switch_page("pages/rate_disparities.py").run()   # the other pages read the applied mapping: no count again
    assert not at.exception and not at.error and seen["scored_counts"] == 1


def test_discarding_edits_restores_the_applied_mapping_without_a_count(root, monkeypatch):
    at = _opened(monkeypatch, root)
    seen = count_calls(monkeypatch, engines, ["scored_counts"])
    _add_identities(at, IDENTITIES[:3])
    next(b for b in at.button if b.label == "Discard the edits").click().run()
    assert not at.exception and not at.error
    assert widget(at, "multiselect", labels.IDENTITY).value == []
    assert not [b for b in at.button if b.label == APPLY] and seen["scored_counts"] == 0


def _queries(monkeypatch) -> list:
    """The SQL of every engine query (each one a scan where the data lie) of the counts made from now on."""
    seen, real = [], _scored_counts._runner

    def counting(*args, **kwargs):
        run, columns, name = real(*args, **kwargs)
        return (lambda sql: seen.append(sql) or run(sql)), columns, name

    monkeypatch.setattr(_scored_counts, "_runner", counting)
    return seen


def _rate_page(at: AppTest, threshold: float) -> tuple:
    """(tiles, tables) of the Rate disparities page, intervals on, at `threshold`."""
    at.switch_page("pages/rate_disparities.py").run()
    widget(at, "number_input", labels.THRESHOLD).set_value(threshold).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert widget(at, "checkbox", labels.SHOW_INTERVALS).value
    return metrics(at), [d.value for d in at.dataframe], [c.value for c in at.caption]


def test_a_threshold_on_a_counted_edge_with_intervals_needs_no_scan_and_equals_the_scan(root, monkeypatch):
    monkeypatch.setenv(local_paths.ENV, str(root))
    source = local.LocalSource.from_files("ids.parquet")
    counted = local.counts(source, _mapping(IDENTITIES[:4]), local.AUC_LEVELS["bins"]).with_atoms()
    edges = counted.atom_thresholds("score_a")
    edge = float(edges[np.searchsorted(edges, 0.4)])   # a counted edge near 0.4 (at most 256 groups of levels)
    assert 0.35 < edge < 0.45 and not counted.auc["score_a"].exact

    shown = []
    for read_off in (True, False):
        queries = _queries(monkeypatch)   # before the counts: their engine runs every later query through it
        at = _opened(monkeypatch, root)
        _add_identities(at, IDENTITIES[:4])
        _apply(at)
        if not read_off:   # the scan's answer: the atoms counted again where the data lie, at this threshold
            monkeypatch.setattr(_result, "confusion_of_patterns", lambda counts, threshold: None)
        _rate_page(at, 0.5)
        queries.clear()
        tiles, tables, captions = _rate_page(at, edge)
        patterns = [q for q in queries if "__fc_cells" in q]
        if read_off:
            assert queries == [], queries   # no engine query at all: read off the counted atoms
            assert not any("between the edges" in c for c in captions)
        else:
            assert len(patterns) == 1   # one pattern query at this threshold
        shown.append((tiles, tables))
        monkeypatch.undo()
    (tiles, tables), (scan_tiles, scan_tables) = shown
    assert tiles == scan_tiles
    assert len(tables) == len(scan_tables) and any(any(c.endswith("_ci_low") for c in t.columns) for t in tables)
    for table, scan in zip(tables, scan_tables):
        pd.testing.assert_frame_equal(table, scan)


def test_a_threshold_between_the_edges_says_so_and_a_button_moves_it_to_an_edge(root, monkeypatch):
    queries = _queries(monkeypatch)   # before the counts: their engine runs every later query through it
    at = _opened(monkeypatch, root)
    _add_identities(at, IDENTITIES[:2])
    _apply(at)
    at.switch_page("pages/rate_disparities.py").run()
    queries.clear()
    _, _, captions = _rate_page(at, 0.4)
    note = [c for c in captions if "between the edges of the score groups" in c]
    assert note and "a scan where the data lie" in note[0], captions
    assert len([q for q in queries if "__fc_cells" in q]) == 1   # the scan it announces
    use = [b for b in at.button if b.label.startswith("Use ")]
    assert len(use) == 2
    queries.clear()
    use[1].click().run()   # the edge above 0.4
    assert not at.exception and not at.error
    threshold = widget(at, "number_input", labels.THRESHOLD).value
    assert threshold > 0.4 and f"{threshold:.6g}" == use[1].label.removeprefix("Use ")
    assert queries == []   # answered from the counted atoms
    assert not any("between the edges of the score groups" in c.value for c in at.caption)


@pytest.mark.parametrize("auc_bins", [10_000, "exact"])
@pytest.mark.parametrize("identities", [(), tuple(IDENTITIES[:3]) + (IDENTITIES[-1],)])
def test_the_counted_edges_give_the_pattern_query_s_atoms(root, auc_bins, identities):
    """``ScoredCounts.confusion_at`` with atoms at each kind of counted edge (the first, inner ones, below and above
    every score) reads the AUC counts' atoms, equal pattern for pattern to the engine's pattern query at that
    threshold (so the same seed gives the same intervals); between the edges it asks the engine (needs_query)."""
    counts = engines.scored_counts(str(root / "ids.parquet"), _mapping(identities), auc_bins=auc_bins).with_atoms()
    edges = counts.atom_thresholds("score_a")
    assert 100 < len(edges) <= 256 and np.all(np.diff(edges) > 0)
    for threshold in (edges[0], edges[1], edges[len(edges) // 2], edges[-1], -1.0, 2.0):
        assert not counts.needs_query("score_a", threshold)
        read = _result.confusion_of_patterns(counts.auc["score_a"], threshold)
        scanned = counts._atom_queries.confusion("score_a", float(threshold))
        for field in ("member", "background", "overall"):
            np.testing.assert_array_equal(getattr(read, field), getattr(scanned, field))
        for field in ("counts", "member", "background"):
            np.testing.assert_array_equal(getattr(read.atoms, field), getattr(scanned.atoms, field))
        kw = dict(ci=0.95, n_boot=200, random_state=0)
        assert read.equalized_odds(**kw).table.equals(scanned.equalized_odds(**kw).table)
    between = float(edges[len(edges) // 2] + edges[len(edges) // 2 + 1]) / 2
    assert counts.needs_query("score_a", between) and _result.confusion_of_patterns(counts.auc["score_a"], between) is None
    assert not counts.needs_query("score_a", counts.threshold)


def test_the_explorer_slider_moves_to_the_nearest_counted_edge_without_a_scan(root, monkeypatch):
    """On counted rows with intervals the explorer's slider lands on the nearest counted edge (no scan; a slider
    step of 0.01 would otherwise cost a scan of every row per move); the page says so under it."""
    queries = _queries(monkeypatch)   # before the counts: their engine runs every later query through it
    at = _opened(monkeypatch, root)
    _add_identities(at, IDENTITIES[:2])
    _apply(at)
    at.switch_page("pages/rate_disparities.py").run()
    open_section(at, "rates:section", "Threshold explorer")
    assert not at.exception and not at.error, [e.value for e in at.error]
    source = local.LocalSource.from_files("ids.parquet")
    edges = local.counts(source, _mapping(IDENTITIES[:2]), local.AUC_LEVELS["bins"]).with_atoms().atom_thresholds(
        "score_a")
    assert any(f"nearest of the {len(edges):,} counted edges" in c.value for c in at.caption)
    queries.clear()
    widget(at, "slider", "Move the threshold").set_value(0.4).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    threshold = widget(at, "number_input", labels.THRESHOLD).value
    nearest = float(edges[np.argmin(np.abs(edges - 0.4))])
    assert threshold == nearest != 0.4
    assert [q for q in queries if "__fc_cells" in q] == []   # read off the counted atoms: no pattern query
    assert not any("between the edges of the score groups" in c.value for c in at.caption)
