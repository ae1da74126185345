"""AppTest: with an adverse positive label (deny = yes) every page names the rules for what they compare and the
findings say who was predicted and labelled what in the data's own words: the label's values as written, or the
words given on the Data page ("denied" / "approved"), which the saved configuration, the link and the printed
report keep."""

import json

import fairness_core as fc
from tests.app.helpers import PAGES, start, widget
from tests.app.review_helpers import downloads, prepare, restore  # noqa: F401 (a fixture)
from tests.app.test_intervals_ui import upload
from tests.fairness_core.test_outcome import credit
from fairness_dashboard.presentation import labels
from fairness_dashboard.session import state
from fairness_dashboard.settings import review_url

# Names a rule of an adverse outcome must not have: these numbers are of the favourable prediction (approvals).
WRONG_NAMES = ("Selection-rate ratio", "True-positive-rate ratio", "Four-fifths rule on true positive rates",
               "Four-fifths rule: p% score")


def _texts(app) -> str:
    """Every text a page shows: Markdown, captions, alerts, tile labels, widget options and its charts' specs."""
    parts = [el.value for kind in ("markdown", "caption", "info", "warning", "error", "success")
             for el in getattr(app, kind)]
    parts += [m.label for m in app.metric]
    parts += [str(o) for w in app.selectbox for o in w.options]
    parts += [el.proto.spec for el in app.main if getattr(el, "type", "") == "plotly_chart"]
    return "\n".join(parts).replace("\\", "")


def _open(frame) -> object:
    """The app with `frame` uploaded as bank.csv, its positive label deny = yes (proposed adverse), at 0.5."""
    app = start()
    upload(app, "bank.csv", frame.to_csv(index=False).encode())
    widget(app, "selectbox", labels.POSITIVE_LABEL).set_value("yes").run()
    assert widget(app, "radio", labels.OUTCOME).value == "adverse"
    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "number_input", labels.THRESHOLD).set_value(0.5).run()
    app.switch_page("pages/data.py").run()
    assert not app.exception and not app.error
    return app


def _every_page(app) -> dict:
    shown = {}
    for page in PAGES:
        app.switch_page(page).run()
        assert not app.exception and not app.error, (page, app.exception, [e.value for e in app.error])
        shown[page] = _texts(app)
    return shown


def _rate_findings(text: str) -> list:
    return [line for line in text.split("\n") if line.startswith("- ") and "at this sample size" not in line
            and " rate of " in line]


def test_without_words_the_pages_write_the_labels_values_and_name_the_rules_for_approvals():
    app = _open(credit(n=3000, seed=7))
    shown = _every_page(app)
    for page, text in shown.items():
        for wrong in WRONG_NAMES:
            assert wrong not in text, (page, wrong)
    assert "Favourable-prediction-rate ratio" in shown["pages/overview.py"]   # the scorecard's rows
    assert "True-negative-rate ratio" in shown["pages/overview.py"]
    rates = _rate_findings(shown["pages/rate_disparities.py"])
    assert rates, shown["pages/rate_disparities.py"]
    for sentence in rates:   # the values as the data writes them; never "positive" for a denial
        assert "predicted deny = yes" in sentence or "predicted deny ≠ yes" in sentence, sentence
        assert "labelled deny" in sentence and "actually" not in sentence and "positive" not in sentence.split("(")[0]
    # the Data page says no word is given: the boxes are empty, their placeholders the values as written
    app.switch_page("pages/data.py").run()
    box = widget(app, "text_input", labels.WORD_POSITIVE)
    assert box.value == "" and box.placeholder == "as written: predicted deny = yes"
    assert app.session_state[state.MAPPING].label_words == ()


def test_words_given_on_the_data_page_are_used_everywhere_and_kept(downloads):
    frame = credit(n=3000, seed=7)
    app = _open(frame)
    widget(app, "text_input", labels.WORD_POSITIVE).input("denied").run()
    widget(app, "text_input", labels.WORD_NEGATIVE).input("approved").run()
    assert not app.exception and not app.error
    mapping = app.session_state[state.MAPPING]
    assert dict(mapping.label_words) == {"yes": "denied", "no": "approved"}
    assert any("(said “denied” in the findings)" in m.value and "favourable prediction (approved)" in m.value
               for m in app.markdown)
    shown = _every_page(app)
    for page, text in shown.items():
        for wrong in WRONG_NAMES:
            assert wrong not in text, (page, wrong)
        assert "predicted deny" not in text and "labelled deny" not in text, page   # the words replace the values
    rates = _rate_findings(shown["pages/rate_disparities.py"])
    assert rates
    # The false positive rate: people labelled approved who were denied (the threshold is 0.5, seed 7).
    fpr = next(s for s in rates if "false positive rate" in s)
    assert "who were labelled approved were denied at " in fpr, fpr
    assert "people who were labelled approved)" in fpr, fpr
    fnr = next(s for s in rates if "false negative rate" in s)
    assert "who were labelled denied were approved at " in fnr, fnr
    assert rates[0] in shown["pages/overview.py"]   # the Overview lists the same sentences
    aucs = [line for line in shown["pages/subgroup_aucs.py"].split("\n") if line.startswith("- The BPSN AUC")]
    assert all("labelled approved" in s and "were denied (false positives)" in s for s in aucs), aucs

    # The link keeps the words; the printed report (the library's, from the app's configuration) uses them.
    param = app.query_params["review"]
    config = review_url.decode(param[0] if isinstance(param, list) else param)
    assert dict(config.mapping.label_words) == {"yes": "denied", "no": "approved"}
    assert json.loads(config.to_json())["mapping"]["label_words"] == {"yes": "denied", "no": "approved"}
    html = fc.render_report(fc.build_review(frame, config))
    assert "who were labelled approved were denied at " in html
    assert "predicted deny = yes" not in html
    prepare(app)   # the report the app offers for download: the same words
    report = downloads.ending(".html").decode("utf-8")
    assert "who were labelled approved were denied at " in report and "predicted deny = yes" not in report

    # Restored onto the same file in a new session, the boxes show the words again.
    fresh = start()
    upload(fresh, "bank.csv", frame.to_csv(index=False).encode())
    restore(fresh, "review-config.json", config.to_json().encode())
    assert not fresh.exception and not fresh.error
    fresh.switch_page("pages/data.py").run()
    assert widget(fresh, "text_input", labels.WORD_POSITIVE).value == "denied"
    assert widget(fresh, "text_input", labels.WORD_NEGATIVE).value == "approved"
    assert dict(fresh.session_state[state.MAPPING].label_words) == {"yes": "denied", "no": "approved"}


def test_words_are_text_never_markup():
    """A word is data text: Markdown in it is shown as written, not rendered."""
    app = _open(credit(n=1500, seed=3))
    widget(app, "text_input", labels.WORD_POSITIVE).input("**denied** <b>x</b>").run()
    assert not app.exception
    sentence = next(m.value for m in app.markdown if m.value.startswith("A positive prediction means"))
    assert "\\*\\*denied\\*\\*" in sentence and "\\<b\\>" in sentence, sentence
