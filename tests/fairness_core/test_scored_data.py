"""ScoredData.from_frame: the validated boundary."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._counts.scored_data import (LABEL_VALUES, LABEL_TOO_FEW, MISSING_COLUMN, NO_GROUPS, NO_MODEL,
    NO_ROWS_LEFT, POSITIVE_MISSING, PREDICTED_POSITIVE, ROLE_CLASH, SCORE_TYPE)


@pytest.fixture
def comments():
    return pd.DataFrame({
        "toxicity": ["toxic", "nontoxic", None, "toxic", "nontoxic", "toxic", "nontoxic"],
        "score": [0.9, 0.1, 0.5, np.nan, 0.2, 0.6, 0.45],
        "other_score": [0.8, 0.3, 0.4, 0.7, np.nan, 0.5, 0.5],
        "group": ["a", "b", "a", "b", "a", "b", None],
        "flag": [1, 0, 1, 1, 0, 0, 1],
        "word": ["x", "y", "x", "y", "x", "y", "x"],
    })


def mapping(**kw):
    base = dict(label="toxicity", positive_label="toxic", scores=("score",), protected=("group",), min_size=1)
    base.update(kw)
    return fc.ColumnMapping(**base)


def test_string_labels_are_mapped_and_missing_rows_excluded(comments):
    sd = fc.ScoredData.from_frame(comments, mapping())
    # Row 2: missing label; row 3: missing score. Kept: rows 0, 1, 4, 5, 6.
    np.testing.assert_array_equal(sd.rows, [0, 1, 4, 5, 6])
    np.testing.assert_array_equal(sd.y_true, [1, 0, 0, 1, 0])
    assert sd.y_true.dtype == np.int8
    np.testing.assert_array_equal(sd.scores["score"], [0.9, 0.1, 0.2, 0.6, 0.45])
    assert (sd.n_input, sd.n_rows) == (7, 5)
    assert sd.base_rate == pytest.approx(2 / 5, abs=1e-15)
    exclusions = dict(zip(sd.exclusions["reason"], sd.exclusions["rows"]))
    assert exclusions == {"missing label": 1, "missing or infinite score in 'score'": 1}
    assert int(sd.exclusions["rows"].sum()) == sd.n_input - sd.n_rows
    assert sd.subgroups.names == ["a", "b", fc.MISSING]  # a missing attribute is a visible subgroup
    np.testing.assert_array_equal(sd.subgroups.membership[:, 2], [False, False, False, False, True])


def test_each_excluded_row_is_counted_once_under_its_first_reason(comments):
    sd = fc.ScoredData.from_frame(comments, mapping(scores=("score", "other_score")))
    # Row 2: missing label (its scores are present); row 3: missing score; row 4: missing other_score.
    exclusions = dict(zip(sd.exclusions["reason"], sd.exclusions["rows"]))
    assert exclusions == {"missing label": 1, "missing or infinite score in 'score'": 1,
                          "missing or infinite score in 'other_score'": 1}
    np.testing.assert_array_equal(sd.rows, [0, 1, 5, 6])
    both_missing = comments.assign(score=[np.nan] * 3 + [0.4] * 4)  # row 2: no label and no score
    sd = fc.ScoredData.from_frame(both_missing, mapping())
    assert dict(zip(sd.exclusions["reason"], sd.exclusions["rows"])) == {
        "missing or infinite score in 'score'": 2, "missing label": 1}


def test_an_infinite_score_is_excluded_and_a_table_without_rows_is_refused_with_its_reason(comments):
    sd = fc.ScoredData.from_frame(comments.assign(score=[np.inf] + [0.5] * 6), mapping())
    exclusions = dict(zip(sd.exclusions["reason"], sd.exclusions["rows"]))
    assert exclusions == {"missing label": 1, "missing or infinite score in 'score'": 1}   # row 0 is inf
    with pytest.raises(ValueError, match="The table has no rows"):
        fc.ScoredData.from_frame(comments.iloc[:0], mapping())


def test_nothing_excluded_gives_an_empty_exclusion_table(comments):
    clean = comments.dropna(subset=["toxicity", "score"])
    sd = fc.ScoredData.from_frame(clean, mapping())
    assert len(sd.exclusions) == 0 and list(sd.exclusions.columns) == ["reason", "rows"]
    np.testing.assert_array_equal(sd.rows, np.arange(len(clean)))


def test_boolean_labels():
    frame = pd.DataFrame({"y": [True, False, True, False], "s": [3, 1, 2, 5], "g": ["p", "p", "q", "q"]})
    sd = fc.ScoredData.from_frame(frame, fc.ColumnMapping(label="y", positive_label=True, scores=("s",),
                                                          protected=("g",)))
    np.testing.assert_array_equal(sd.y_true, [1, 0, 1, 0])
    np.testing.assert_array_equal(sd.scores["s"], [3.0, 1.0, 2.0, 5.0])
    negative_is_positive = fc.ScoredData.from_frame(
        frame, fc.ColumnMapping(label="y", positive_label=False, scores=("s",), protected=("g",)))
    np.testing.assert_array_equal(negative_is_positive.y_true, [0, 1, 0, 1])


def test_integer_labels_with_missing_values():
    frame = pd.DataFrame({"y": [1, 0, None, 1], "s": [0.5, 0.2, 0.1, 0.9], "g": ["p", "q", "p", "q"]})
    sd = fc.ScoredData.from_frame(frame, fc.ColumnMapping(label="y", positive_label=1, scores=("s",),
                                                          protected=("g",)))
    np.testing.assert_array_equal(sd.y_true, [1, 0, 1])
    np.testing.assert_array_equal(sd.rows, [0, 1, 3])


def test_three_label_values_raise(comments):
    frame = comments.assign(toxicity=["toxic", "nontoxic", "severe", "toxic", "nontoxic", "toxic", "nontoxic"])
    message = LABEL_VALUES.format(col="toxicity", n=3, values="'toxic', 'nontoxic', 'severe'")
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.ScoredData.from_frame(frame, mapping())


def test_one_label_value_raises(comments):
    with pytest.raises(ValueError, match=re.escape(LABEL_TOO_FEW.format(col="toxicity", n=1, values="'toxic'"))):
        fc.ScoredData.from_frame(comments.assign(toxicity="toxic"), mapping())
    with pytest.raises(ValueError, match=re.escape(LABEL_TOO_FEW.format(col="toxicity", n=1, values="'toxic'"))):
        fc.ScoredData.from_frame(comments.assign(toxicity="toxic"), mapping(all_classes=True))


MULTI = pd.DataFrame({
    "status": ["on_time", "late", "default", "on_time", "late", "default", 2.0],
    "predicted": ["on_time", "default", "default", "late", "late", "on_time", 2],
    "group": ["a", "a", "a", "b", "b", "b", "b"],
})


def test_three_classes_need_all_classes():
    m = fc.ColumnMapping(label="status", positive_label="default", predicted_label="predicted", protected=("group",))
    values = "'on_time', 'late', 'default', 2.0"
    with pytest.raises(ValueError, match=re.escape(LABEL_VALUES.format(col="status", n=4, values=values))):
        fc.ScoredData.from_frame(MULTI, m)


def test_all_classes_keeps_every_class_and_binarises_against_the_positive_label():
    m = fc.ColumnMapping(label="status", positive_label="default", predicted_label="predicted", protected=("group",),
                         all_classes=True)
    data = fc.ScoredData.from_frame(MULTI, m)
    assert data.y_true.tolist() == [0, 0, 1, 0, 0, 1, 0]
    assert data.predicted.tolist() == [0, 1, 1, 0, 0, 0, 0]
    assert data.classes.tolist() == ["on_time", "late", "default", "on_time", "late", "default", "2"]
    assert data.predicted_classes.tolist() == ["on_time", "default", "default", "late", "late", "on_time", "2"]


def test_binary_predicted_classes_use_the_label_vocabulary(comments):
    data = fc.ScoredData.from_frame(comments, mapping(predicted_label="flag"))
    expected = np.where(data.predicted == 1, "toxic", "nontoxic")
    assert data.predicted_classes.tolist() == expected.tolist()
    assert set(data.classes) == {"toxic", "nontoxic"}
    assert (data.classes == "toxic").tolist() == (data.y_true == 1).tolist()


def test_positive_label_not_present_raises(comments):
    message = POSITIVE_MISSING.format(value="offensive", col="toxicity", values="'toxic', 'nontoxic'")
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.ScoredData.from_frame(comments, mapping(positive_label="offensive"))


@pytest.mark.parametrize("column, dtype_source", [("word", "word"), ("bool_score", "bool_score")])
def test_non_numeric_score_raises(comments, column, dtype_source):
    frame = comments.assign(bool_score=[True, False] * 3 + [True])
    message = SCORE_TYPE.format(col=column, dtype=frame[dtype_source].dtype)
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.ScoredData.from_frame(frame, mapping(scores=(column,)))


def test_a_column_in_two_roles_raises(comments):
    with pytest.raises(ValueError, match=re.escape(ROLE_CLASH.format(col="score", a="a score",
                                                                     b="a protected attribute"))):
        fc.ScoredData.from_frame(comments, mapping(protected=("group", "score")))
    with pytest.raises(ValueError, match=re.escape(ROLE_CLASH.format(col="toxicity", a="the label",
                                                                     b="an identity column"))):
        fc.ScoredData.from_frame(comments, mapping(indicators=("toxicity",)))


def test_missing_column_no_model_no_groups(comments):
    available = "'toxicity', 'score', 'other_score', 'group', 'flag', 'word'"
    with pytest.raises(ValueError, match=re.escape(MISSING_COLUMN.format(col="nope", role="a score",
                                                                         available=available))):
        fc.ScoredData.from_frame(comments, mapping(scores=("nope",)))
    with pytest.raises(ValueError, match=re.escape(NO_MODEL)):
        fc.ScoredData.from_frame(comments, mapping(scores=()))
    with pytest.raises(ValueError, match=re.escape(NO_GROUPS)):
        fc.ScoredData.from_frame(comments, mapping(protected=()))


def test_no_rows_left_raises(comments):
    frame = comments.assign(score=np.nan)
    with pytest.raises(ValueError, match=re.escape(NO_ROWS_LEFT.split("{reasons}")[0])):
        fc.ScoredData.from_frame(frame, mapping())


def test_predicted_label_column_with_zero_and_one(comments):
    sd = fc.ScoredData.from_frame(comments, mapping(predicted_label="flag"))
    np.testing.assert_array_equal(sd.y_pred(), [1, 0, 0, 0, 1])  # flag at kept rows 0, 1, 4, 5, 6
    assert sd.y_pred().dtype == np.int8


def test_predicted_label_with_the_label_values(comments):
    frame = comments.assign(pred=["toxic", "toxic", "nontoxic", "nontoxic", "nontoxic", "toxic", "toxic"])
    sd = fc.ScoredData.from_frame(frame, mapping(predicted_label="pred"))
    np.testing.assert_array_equal(sd.y_pred(), [1, 1, 0, 1, 1])


def test_ambiguous_predicted_label_raises(comments):
    frame = comments.assign(pred=["hi", "lo"] * 3 + ["hi"])
    message = PREDICTED_POSITIVE.format(col="pred", values="'hi', 'lo'", positive="toxic")
    with pytest.raises(ValueError, match=re.escape(message)):
        fc.ScoredData.from_frame(frame, mapping(predicted_label="pred"))


def test_missing_predicted_label_is_an_exclusion(comments):
    frame = comments.assign(flag=[1, 0, 1, 1, np.nan, 0, 1])
    sd = fc.ScoredData.from_frame(frame, mapping(predicted_label="flag"))
    assert dict(zip(sd.exclusions["reason"], sd.exclusions["rows"]))["missing predicted label in 'flag'"] == 1
    np.testing.assert_array_equal(sd.rows, [0, 1, 5, 6])


def test_y_pred_from_a_score_is_score_at_least_threshold(comments):
    sd = fc.ScoredData.from_frame(comments, mapping())
    # kept scores 0.9, 0.1, 0.2, 0.6, 0.45
    np.testing.assert_array_equal(sd.y_pred("score", 0.45), [1, 0, 0, 1, 1])  # 0.45 >= 0.45
    np.testing.assert_array_equal(sd.y_pred("score", 0.6), [1, 0, 0, 1, 0])
    for missing in (None, float("nan")):
        with pytest.raises(ValueError, match="threshold .a number, not NaN. is needed"):
            sd.y_pred("score", missing)
    with pytest.raises(ValueError, match="not mapped"):
        sd.y_pred("other_score", 0.5)
    with pytest.raises(ValueError, match="No predicted label column"):
        sd.y_pred()


def test_identity_indicators_and_attributes_together(comments):
    sd = fc.ScoredData.from_frame(comments, mapping(indicators=("flag",)))
    assert sd.subgroups.names == ["a", "b", fc.MISSING, "flag"]
    np.testing.assert_array_equal(sd.subgroups.membership[:, 3], [True, False, False, False, True])


def test_subgroup_table(comments):
    sd = fc.ScoredData.from_frame(comments, mapping(min_size=2))
    table = sd.subgroup_table()
    # kept rows: group a, b, a, b, None with labels 1, 0, 0, 1, 0
    assert list(table["subgroup"]) == ["a", "b", fc.MISSING]
    assert list(table["size"]) == [2, 2, 1]
    assert list(table["n_positive"]) == [1, 1, 0]
    assert list(table["n_negative"]) == [1, 1, 1]
    assert list(table["share"]) == pytest.approx([0.4, 0.4, 0.2], abs=1e-15)
    assert list(table["small"]) == [False, False, True]


def test_mapping_is_hashable():
    assert hash(mapping()) == hash(mapping())
    assert mapping() == mapping() and mapping() != mapping(min_size=2)


def test_too_many_subgroups_is_refused_before_masks_are_built():
    from fairness_core._subgroups.subgroups import TOO_MANY_MESSAGE

    frame = pd.DataFrame({"y": [0, 1] * 250, "s": np.linspace(0, 1, 500), "id": [f"p{i}" for i in range(500)]})
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("id",))
    with pytest.raises(ValueError) as err:
        fc.ScoredData.from_frame(frame, mapping)
    assert str(err.value) == TOO_MANY_MESSAGE.format(n=500, max=200)
    # without intersections every value counts too
    with pytest.raises(ValueError, match="500 subgroups"):
        fc.ScoredData.from_frame(frame, fc.ColumnMapping(label="y", positive_label=1, scores=("s",),
                                                         protected=("id",), intersect=False))
