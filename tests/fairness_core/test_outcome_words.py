"""The words of an outcome: one place gives the phrases of every finding from the label's name, its
positive value, the declared outcome and the optional words of the mapping; the words are kept by the review
configuration (JSON, the schema's bounds) and used by the library, the report's findings and the command line,
without changing any number."""

from __future__ import annotations

import json
import re

import pytest

import fairness_core as fc
from fairness_core._cli import main
from tests.fairness_core.test_outcome import credit

WORDS = {"yes": "denied", "no": "approved"}


def _mapping(**fields) -> fc.ColumnMapping:
    return fc.ColumnMapping(label="deny", positive_label="yes", scores=("score",), protected=("race",),
                            positive_outcome="adverse", **fields)


def test_phrases_write_the_values_as_the_data_does_and_the_words_when_given():
    plain = fc.outcome_phrases("deny", "yes", "adverse")
    assert (plain.predicted_positive, plain.predicted_negative) == ("predicted deny = yes", "predicted deny ≠ yes")
    assert (plain.labelled_positive, plain.labelled_negative) == ("labelled deny = yes", "labelled deny ≠ yes")
    assert plain.favourable_prediction == "predicted deny ≠ yes"   # adverse: the negative prediction is favourable
    assert fc.outcome_phrases("repaid", 1, "favourable").favourable_prediction == "predicted repaid = 1"
    worded = fc.outcome_phrases("deny", "yes", "adverse", WORDS)
    assert worded.texts() == {"positive_text": "denied", "negative_text": "approved",
                              "positive_outcome_text": "were labelled denied",
                              "negative_outcome_text": "were labelled approved"}
    assert worded.favourable_prediction == "approved"
    # One word only: the other side stays as written; words of several other classes name no negative prediction.
    half = fc.outcome_phrases("deny", "yes", "adverse", {"yes": "denied"})
    assert (half.predicted_positive, half.labelled_negative) == ("denied", "labelled deny ≠ yes")
    many = fc.outcome_phrases("grade", "A", "favourable", {"A": "top", "B": "middle", "C": "low"})
    assert (many.predicted_positive, many.predicted_negative) == ("top", "predicted grade ≠ A")
    # a number label: the keys are the values as text
    assert fc.outcome_phrases("recid", 1, "adverse", {"1": "flagged"}).predicted_positive == "flagged"


def test_the_mapping_keeps_words_as_hashable_pairs_and_refuses_what_is_not_words():
    mapping = _mapping(label_words={"yes": "  denied ", "no": "approved\n now", "maybe": ""})
    assert mapping.label_words == (("yes", "denied"), ("no", "approved now"))   # an empty word is none
    assert hash(mapping) == hash(_mapping(label_words=(("yes", "denied"), ("no", "approved now"))))
    with pytest.raises(ValueError, match="'label_words' of a ColumnMapping"):
        _mapping(label_words="denied")
    with pytest.raises(ValueError, match="'label_words' of a ColumnMapping"):
        _mapping(label_words=5)


def test_the_configuration_writes_the_words_as_an_object_and_checks_them():
    config = fc.ReviewConfig(mapping=_mapping(label_words=WORDS))
    data = json.loads(config.to_json())
    assert data["mapping"]["label_words"] == WORDS
    assert fc.ReviewConfig.from_json(config.to_json()) == config
    assert json.loads(fc.ReviewConfig(mapping=_mapping()).to_json())["mapping"]["label_words"] == {}
    for words, problem in (({"yes": 5}, "mapping.label_words.yes: 5 is not of type 'string'"),
                           ({"yes": "x" * (fc.CONFIG_BOUNDS["label_words"][1] + 1)}, "is too long"),
                           (["denied"], "mapping.label_words: ['denied'] is not of type 'object'")):
        data["mapping"]["label_words"] = words
        with pytest.raises(ValueError, match="review configuration is not valid") as caught:
            fc.ReviewConfig.from_dict(data)
        assert problem in str(caught.value)


def test_findings_use_the_words_and_no_number_changes():
    frame = credit(n=4000, seed=2)
    reviews = {}
    for name, words in (("plain", ()), ("worded", WORDS)):
        config = fc.ReviewConfig(mapping=_mapping(label_words=words), thresholds=(("score", 0.5),), n_boot=200)
        reviews[name] = fc.build_review(frame, config).models[0]
    plain, worded = reviews["plain"], reviews["worded"]
    # FPR: among the applicants labelled "no", the share denied; the subgroup Black is denied more often.
    fpr = next(f for f in worded.findings if "false positive rate" in f and f.startswith("People in"))
    assert fpr.startswith("People in Black who were labelled approved were denied at ")
    assert "people who were labelled approved)" in fpr
    assert next(f for f in plain.findings if "false positive rate" in f and f.startswith("People in")).startswith(
        "People in Black who were labelled deny ≠ yes were predicted deny = yes at ")
    # the numbers and verdicts are those of the same review without words; only the words differ
    assert [v.value for v in worded.verdicts] == [v.value for v in plain.verdicts]
    assert [v.status for v in worded.verdicts] == [v.status for v in plain.verdicts]
    assert len(worded.findings) == len(plain.findings)
    swap = {"labelled deny ≠ yes": "labelled approved", "labelled deny = yes": "labelled denied",
            "predicted deny = yes": "denied", "predicted deny ≠ yes": "approved"}
    for a, b in zip(plain.findings, worded.findings):
        for old, new in swap.items():
            a = a.replace(old, new)
        assert a == b


def test_the_command_line_reads_the_words_from_its_configuration(tmp_path, capsys):
    data = tmp_path / "bank.csv"
    frame = credit(n=3000, seed=4)
    frame["refused"] = frame["deny"]
    frame.to_csv(data, index=False)
    config = fc.ReviewConfig(mapping=_mapping(label_words=WORDS), thresholds=(("score", 0.5),), n_boot=200)
    path = tmp_path / "review.json"
    path.write_text(config.to_json(), encoding="utf-8")
    capsys.readouterr()
    status = main(["metrics", str(data), "--config", str(path), "--json"])
    out = capsys.readouterr().out
    assert status in (0, 1)
    review = json.loads(out)
    findings = [f for model in review["models"] for f in model["findings"]]
    assert any("who were labelled approved were denied at " in f for f in findings), findings
    assert not any("deny = yes" in f or "deny ≠ yes" in f for f in findings)
    # Another label given on the command line: the configuration's words name the other column's values, so none
    status = main(["metrics", str(data), "--config", str(path), "--label", "refused", "--positive", "yes", "--json"])
    findings = [f for model in json.loads(capsys.readouterr().out)["models"] for f in model["findings"]]
    assert any("who were labelled refused ≠ yes were predicted refused = yes at " in f for f in findings), findings
    assert not any("denied" in f or "approved" in f for f in findings)


def test_weighted_auc_findings_say_effective_rows_and_weights_in_the_labels_words():
    """Item 6: sizes are Kish's effective sizes and the labels' counts sums of weights; the parts add up to the
    weight, and each is named by the label's words."""
    from fairness_core._review.outcome_words import mapping_phrases
    from tests.support import weighted_two_groups

    y, s, g, w = weighted_two_groups()
    table = fc.bias_auc_table(y, s, g, ci=0.95, sample_weight=w)
    b = table.set_index("subgroup").loc["b"]
    sentences = fc.auc_findings(table, phrases=mapping_phrases(_mapping(label_words=WORDS)))
    subgroup = next(t for t in sentences if t.startswith("The subgroup AUC of b"))
    assert (f"; {b['size']:,.0f} effective rows, weight {b['n_positive'] + b['n_negative']:,.0f} "
            f"({b['n_positive']:,.0f} labelled denied and {b['n_negative']:,.0f} labelled approved by weight))"
            in subgroup), subgroup
    assert b["size"] < (g == "b").sum()   # an effective size, not the rows
    paired = [t for t in sentences if t.startswith(("The BPSN AUC", "The BNSP AUC"))]
    assert paired and all(re.search(r"; rows labelled (denied|approved) of weight [\d,]+ in the subgroup against rows "
                                    r"labelled (denied|approved) of weight [\d,]+ in the other rows\)", t)
                          for t in paired), paired


def test_the_reports_outcome_sentence_names_the_favourable_prediction_in_the_datas_words():
    from fairness_core._review.report import _outcome_text

    plain = fc.ColumnMapping(label="deny", positive_label="yes", scores=("s",), positive_outcome="adverse")
    assert _outcome_text(plain).endswith("compare the favourable prediction (predicted deny ≠ yes) across subgroups.")
    worded = fc.ColumnMapping(label="deny", positive_label="yes", scores=("s",), positive_outcome="adverse",
                              label_words={"yes": "denied", "no": "approved"})
    assert _outcome_text(worded).endswith("compare the favourable prediction (approved) across subgroups.")
    favourable = fc.ColumnMapping(label="repaid", positive_label=1, scores=("s",))
    assert _outcome_text(favourable).endswith("compare the positive prediction (predicted repaid = 1) across "
                                              "subgroups.")
