"""The measured coverage of the intervals (benchmarks/coverage.py) where users read them: the table the app reads
is the one in docs/coverage.md, a page whose intervals leave 93–97 % says so with the measured numbers, and the
Metric definitions page lists every such quantity."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

from streamlit.testing.v1 import AppTest

import fairness_core as fc
from tests.app.helpers import ROOT, open_section, unescape, widget
from fairness_dashboard.presentation import coverage


def _benchmark():
    spec = importlib.util.spec_from_file_location("coverage_benchmark", ROOT / "benchmarks" / "coverage.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)   # its dataclasses look their module up
    spec.loader.exec_module(sys.modules[spec.name])
    module = sys.modules[spec.name]
    return module


def test_the_app_reads_the_table_of_the_documented_run():
    documented = _benchmark().measured((ROOT / "docs" / "coverage.md").read_text(encoding="utf-8"))
    shipped = json.loads((ROOT / "fairness_dashboard" / "measured_coverage.json").read_text(encoding="utf-8"))
    assert shipped == documented
    assert len(shipped["rows"]) > 100 and shipped["settings"] == ["disjoint", "disparity", "indicators", "weighted",
                                                                   "identities", "calibrated", "miscalibrated"]
    assert shipped["run"].startswith("Run ")


def test_a_note_names_each_quantity_outside_the_band_with_its_range():
    rows = {r["quantity"]: [v for v in r["coverage"].values() if v is not None] for r in coverage.MEASURED["rows"]}
    out = [q for q, v in rows.items() if min(v) < 93 or max(v) > 97]
    inside = [q for q, v in rows.items() if q not in out and not any(o.startswith(q) for o in out)]
    assert out and inside
    quantity = out[0]
    assert f"{quantity} {min(rows[quantity]):.1f}–{max(rows[quantity]):.1f} %" in coverage.note([quantity])
    assert coverage.note([inside[0]]) == ""
    assert list(coverage.table()["Quantity"]) == out


def test_pages_say_where_their_intervals_leave_the_band(app):
    # The calibration page names the measured rows of what it shows; those outside 93-97 % (the Brier score of a
    # small subgroup, for one) are named in its interval caption.
    app.switch_page("pages/calibration.py").run()
    assert not app.exception
    shown = ["ℓ2 ECE per subgroup", "Brier score per subgroup", "ℓ2 ECE of the rest", "reliability diagram"]
    outside = [q for q in shown if coverage.note([q])]
    assert outside
    captions = [unescape(c.value) for c in app.caption]
    for quantity in outside:
        assert any(quantity in c and "Measured coverage" in c for c in captions), (quantity, captions)
    # Intervals off: no note.
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    assert not any("Measured coverage" in c.value for c in app.caption)


def test_the_definitions_page_lists_every_quantity_outside_the_band():
    at = AppTest.from_file(str(ROOT / "pages" / "definitions.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert any(h.value == "How far to trust the intervals" for h in at.header)
    shown = next(d.value for d in at.dataframe if "Quantity" in d.value.columns)
    assert list(shown["Quantity"]) == list(coverage.table()["Quantity"])
    assert any(re.search(r"Reproduce with .*benchmarks/coverage\.py", c.value) for c in at.caption)


def test_the_model_comparison_says_how_far_its_difference_intervals_cover(app):
    # The bundled sample maps two scores, so the Subgroup AUCs page compares them: the paired DeLong intervals of the
    # AUC differences carry their measured coverage.
    app.switch_page("pages/subgroup_aucs.py").run()
    open_section(app, "auc:section", "Compare models")
    widget(app, "toggle", "Compare models").set_value(True).run()
    assert not app.exception
    expected = coverage.note([f"difference between models: {kind}"
                              for kind in ("subgroup AUC", "BPSN AUC", "BNSP AUC", "overall AUC")])
    assert expected and "difference between models" in expected
    assert any(c.value.startswith("Difference: model - baseline") and c.value.endswith(expected)
               for c in app.caption), [c.value for c in app.caption]


def test_every_name_a_page_asks_for_is_a_measured_quantity():
    # fairness_dashboard.presentation.coverage keeps the benchmark's short rate names: a renamed row there must not silently drop a page's note.
    quantities = [r["quantity"] for r in coverage.MEASURED["rows"]]
    asked = []
    for adjust in (None, *coverage.ADJUSTED):
        for distance in ("diff", "ratio"):
            asked += coverage.rate_prefixes(list(coverage.SHORT), distance, "max", adjust)
            asked += coverage.comparisons(f"base rate {distance}", adjust)
        asked += coverage.comparisons("excess ℓ2 ECE diff", adjust)   # a ratio of ECEs has no interval
    for metric in ("recall", "precision", "fscore"):
        for reduction in coverage.CLASSWISE:
            asked += coverage.classwise_prefixes(metric, reduction)
    asked += ["ℓ2 ECE per subgroup", "excess ℓ2 ECE diff, max", "base rate diff, max", "smoothed EDF",
              "difference between models: ECE", "difference between models: BNSP AUC", "correlation score",
              "consistency"]
    for reference in ("overall", "pairwise", fc.named_reference("any subgroup")):
        # measured against these references: the selection rate, FPR and FNR (pairwise: the FPR difference)
        rates = ["false_positive_rate"] if reference == "pairwise" else ["selection_rate", "false_positive_rate",
                                                                          "false_negative_rate"]
        for rate in rates:
            asked += coverage.rate_prefixes([rate], "diff", "max", None, reference)[::2][:2]   # its max, per comparison
    for prefix in asked:
        assert any(q.startswith(prefix) for q in quantities), prefix
    # An adjusted table's note reads the adjusted rows, not the per-comparison ones it replaces.
    adjusted = coverage.rate_prefixes(["false_positive_rate"], "diff", "max", "holm")
    assert "FPR diff, per comparison" not in adjusted and "Bonferroni or Holm: FPR diff, " in adjusted


def test_an_adjusted_table_says_how_far_its_adjusted_intervals_cover(app):
    # With Holm, the comparison tables show Bonferroni's intervals, measured as a family (every comparison's truth
    # held at once); their note reads those rows instead of the unadjusted per-comparison ones.
    app.switch_page("pages/rate_disparities.py").run()

    def caption():
        return next(unescape(c.value) for c in app.caption if "Each subgroup is compared" in c.value)

    assert "Bonferroni or Holm:" not in caption()
    widget(app, "selectbox", "Multiple comparisons").set_value("holm").run()
    assert not app.exception
    adjusted = caption()
    assert "adjusted per table (Holm)" in adjusted and "Measured coverage" in adjusted
    assert "Bonferroni or Holm:" in adjusted and ", per comparison " not in adjusted
