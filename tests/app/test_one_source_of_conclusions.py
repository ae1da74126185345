"""AppTest: each metric page, the Overview, the review's exports (report and JSON) and the command line give the
same findings and verdicts for the same configuration: one test per page.

The page's findings and verdicts are read as rendered; the review is built from the configuration the app saves,
by ``fc.build_review`` and by ``python -m fairness_core metrics --config`` (in-process).

Three of the pages (Rate disparities, Calibration, Dataset metrics) save the same configuration (their view entries
aside, which no review reads), so the review and the command line's output are computed once per configuration
(:func:`reference_outputs`) and every test compares with them: the command line alone (the credit sample has a time
column, so it computes the review over time too) took about 12 of the 18 CPU-seconds of each test. The module's
tests share one xdist worker (their group) so that the shared outputs are computed once in a run.
"""

from __future__ import annotations

import html
import json

import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._cli import main as cli
from tests.app.helpers import ROOT, widget
from tests.app.review_helpers import downloads, prepare  # noqa: F401
from fairness_dashboard.presentation import captions, escape

pytestmark = pytest.mark.xdist_group("one-source-of-conclusions")

CREDIT_PATH = ROOT / "sample_data" / "credit_decisions.csv"
CREDIT = pd.read_csv(CREDIT_PATH)
BADGE = ":"   # a verdict's markdown starts with its coloured badge, e.g. ":red-badge[Fail] ..."


def shown_findings(app) -> list[str]:
    """The Findings panel's bullets as rendered (Markdown lines): the markdown right after the 'Findings' subheader."""
    main = list(app.main)
    at = next(i for i, el in enumerate(main) if getattr(el, "type", "") == "subheader" and el.value == "Findings")
    return [line for line in main[at + 1].value.split("\n") if line.startswith("- ")]


def shown_verdicts(app) -> list[str]:
    """Every policy verdict's markdown on the page, in order."""
    return [m.value for m in app.markdown if m.value.startswith(BADGE) and "-badge[" in m.value.split(" ")[0]]


def block_of(shown: list, expected: list) -> int:
    """Where `shown` (non-empty) sits in `expected` as one contiguous block; fails when it does not."""
    assert shown, "the page shows nothing to compare"
    starts = [i for i in range(len(expected) - len(shown) + 1) if expected[i:i + len(shown)] == shown]
    assert starts, f"the page's\n{shown}\nis not a block of the review's\n{expected}"
    return starts[0]


def rendered(findings) -> list[str]:
    return [f"- {escape.md(s)}" for s in findings]


def _classwise_mapping(app) -> None:
    widget(app, "selectbox", "Label column").set_value("repayment_status").run()
    widget(app, "selectbox", "Positive label").set_value("default").run()
    widget(app, "selectbox", "Predicted label column").set_value("predicted_status").run()
    widget(app, "multiselect", "Protected attributes").set_value(["sex", "ethnicity"]).run()


def _auc_rule(app) -> None:
    app.switch_page("pages/subgroup_aucs.py").run()
    widget(app, "checkbox", "Require a minimum bias AUC score").set_value(True).run()


# page -> (its setup on the bundled credit sample, the review part it must equal: a model's name or "dataset")
PAGES = {
    "pages/subgroup_aucs.py": (_auc_rule, "score_logistic"),
    "pages/rate_disparities.py": (None, "score_logistic"),
    "pages/calibration.py": (None, "score_logistic"),
    "pages/dataset_metrics.py": (None, "dataset"),
    "pages/classwise.py": (_classwise_mapping, "predicted_status"),
}


# The outputs of a configuration (its JSON without its view entries) already computed in this process.
_OUTPUTS: dict[str, tuple] = {}


def reference_outputs(config: fc.ReviewConfig, folder) -> tuple:
    """(the review ``fc.build_review`` builds from `config` on the credit sample, the JSON the command line writes
    given the same configuration and file, and its exit status), computed once per configuration: the same
    configuration gives the same review whichever page saved it (a view entry changes what the app shows, not the
    review)."""
    saved = config.to_dict()
    saved.pop("view", None)
    key = json.dumps(saved, sort_keys=True, default=str)
    if key not in _OUTPUTS:
        review = fc.build_review(CREDIT, config)
        (folder / "config.json").write_text(config.to_json())
        status = cli(["metrics", str(CREDIT_PATH), "--config", str(folder / "config.json"),
                      "--out", str(folder / "review.json")])
        _OUTPUTS[key] = (review, json.loads((folder / "review.json").read_text()), status)
    return _OUTPUTS[key]


@pytest.mark.parametrize("page", list(PAGES))
def test_page_overview_exports_and_command_line_agree(app, downloads, tmp_path, page):
    setup, part = PAGES[page]
    if setup is not None:
        setup(app)
    app.switch_page(page).run()
    assert not app.exception and not app.error, (app.exception, app.error)
    findings, verdicts = shown_findings(app), shown_verdicts(app)

    # The Overview shows the page's findings as one block and each of its verdicts.
    app.switch_page("pages/overview.py").run()
    assert not app.exception
    overview = [m.value for m in app.markdown]
    assert "\n".join(findings) in overview
    assert all(v in overview for v in verdicts)

    # The review built from the saved configuration has them, as a block, in the same order.
    prepare(app)
    config = fc.ReviewConfig.from_json(downloads.ending("review-config.json").decode())
    review, printed, status = reference_outputs(config, tmp_path)
    own = (review.dataset_findings, review.dataset_verdicts) if part == "dataset" else next(
        (m.findings, m.verdicts) for m in review.models if m.name == part)
    at = block_of(findings, rendered(own[0]))
    plain = own[0][at:at + len(findings)]
    if page == "pages/classwise.py":
        assert not verdicts   # no policy rule applies to the unweighted average bias (own[1]: the rate rules)
    else:
        block_of(verdicts, [captions.verdict_markdown(v) for v in own[1]])

    # The app's exports: the review's JSON holds the same sentences, the HTML report prints them.
    exported = json.loads(downloads.ending("review.json"))
    expected = review.to_dict()
    key = (lambda d: d["dataset"]) if part == "dataset" else (
        lambda d: next(m for m in d["models"] if m["name"] == part))
    assert key(exported)["findings"] == key(expected)["findings"]
    assert key(exported)["verdicts"] == key(expected)["verdicts"]
    report = downloads.ending("review.html").decode()
    assert all(html.escape(s) in report for s in plain)

    # The command line, given the same configuration and file (reference_outputs).
    assert status in (0, 1)
    assert key(printed)["findings"] == key(expected)["findings"]
    assert key(printed)["verdicts"] == key(expected)["verdicts"]
