"""The first mapping guess on real layouts: label, positive value, every score
column, the predicted label, every protected attribute and identity column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._data.mapping_guess import (MISSING_GROUPS, MISSING_LABEL, MISSING_OUTPUT, MappingGuess, guess_mapping,
                                    guess_positive, words)
from tests.support import ROOT

MADLIBS_IDENTITIES = (
    "lesbian", "gay", "bisexual", "transgender", "trans", "cis", "queer", "lgbt", "lgbtq", "homosexual", "straight",
    "heterosexual", "male", "female", "nonbinary", "african", "african_american", "black", "white", "european",
    "hispanic", "latino", "latina", "latinx", "mexican", "canadian", "american", "asian", "indian", "middle_eastern",
    "chinese", "japanese", "christian", "muslim", "jewish", "buddhist", "catholic", "protestant", "sikh", "taoist",
    "old", "older", "young", "younger", "teenage", "millenial", "middle_aged", "elderly", "blind", "deaf", "paralyzed")


def german(path) -> pd.DataFrame:
    """German credit with the attribute names of german.doc for the roles, and a model score added."""
    frame = pd.read_csv(path, sep=r"\s+", header=None, names=[f"attribute_{i}" for i in range(1, 22)])
    frame = frame.rename(columns={"attribute_9": "personal_status_sex", "attribute_13": "age",
                                  "attribute_20": "foreign_worker", "attribute_21": "class"})
    frame["model_score"] = np.random.default_rng(0).random(len(frame))
    return frame


def law_school(path) -> pd.DataFrame:
    frame = fc.read_table(path)
    frame["model_score"] = np.random.default_rng(1).random(len(frame))
    return frame


LAYOUTS = {
    "compas": ("compas/compas-scores-two-years.csv", fc.read_table, dict(
        label="two_year_recid", positive_label=1, scores=("decile_score", "v_decile_score"), predicted_label=None,
        protected=("sex", "age_cat", "race"), indicators=())),
    "madlibs": ("jigsaw_madlibs/madlibs_identities.csv", fc.read_table, dict(
        label="toxicity", positive_label="toxic", scores=("TOXICITY@1", "TOXICITY@6"), predicted_label=None,
        protected=(), indicators=MADLIBS_IDENTITIES)),
    "adult_scored": ("adult/adult_rf_binary.csv", fc.read_table, dict(
        label="label_value", positive_label=1, scores=(), predicted_label="score", protected=("gender", "race"),
        indicators=())),
    "german_credit": ("german_credit/german.data", german, dict(
        label="class", positive_label=1, scores=("model_score",), predicted_label=None,
        protected=("personal_status_sex", "age", "foreign_worker"), indicators=())),
    "law_school": ("law_school/law_data.csv", law_school, dict(
        label="first_pf", positive_label=1, scores=("model_score",), predicted_label=None, protected=("race", "sex"),
        indicators=())),
}
SAMPLES = {
    "credit sample": ("credit_decisions.csv", dict(
        label="repaid", positive_label=1, scores=("score_logistic", "score_boosting"), predicted_label="approved",
        protected=("sex", "age_group", "ethnicity"), indicators=())),
    "moderation sample": ("text_moderation.csv", dict(
        label="toxicity", positive_label="toxic", scores=("toxicity_score", "toxicity_score_v2"),
        predicted_label=None, protected=(),
        indicators=("female", "male", "christian", "white", "muslim", "black", "gay", "transgender"))),
}


def roles(mapping: fc.ColumnMapping) -> dict:
    return {k: getattr(mapping, k) for k in ("label", "positive_label", "scores", "predicted_label", "protected",
                                              "indicators")}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_real_layouts(layout, data_file):
    relative, read, expected = LAYOUTS[layout]
    guess = guess_mapping(read(data_file(relative)))
    assert roles(guess.mapping) == expected and guess.missing == ()


@pytest.mark.parametrize("sample", list(SAMPLES))
def test_bundled_samples(sample):
    name, expected = SAMPLES[sample]
    guess = guess_mapping(fc.read_table(ROOT / "sample_data" / name))
    assert roles(guess.mapping) == expected and guess.missing == ()


def test_two_models_on_adult_as_in_the_issue(data_file):
    """y_true, p_hgb, p_logreg, sex, race, age: both scores and every attribute (age binned later)."""
    rng = np.random.default_rng(2)
    n = 500
    frame = pd.DataFrame({"age": rng.integers(17, 90, n), "sex": rng.choice(["Male", "Female"], n),
                          "race": rng.choice(["White", "Black", "Asian-Pac-Islander"], n),
                          "y_true": rng.integers(0, 2, n), "p_hgb": rng.random(n), "p_logreg": rng.random(n)})
    guess = guess_mapping(frame)
    assert roles(guess.mapping) == dict(label="y_true", positive_label=1, scores=("p_hgb", "p_logreg"),
                                        predicted_label=None, protected=("age", "sex", "race"), indicators=())
    # the guess validates: the first screen is not an error
    data = fc.ScoredData.from_frame(frame, guess.mapping)
    assert data.n_rows == n and len(data.subgroups.names) > 1


def test_what_is_missing_is_said_one_sentence_per_role():
    frame = pd.DataFrame({"a": [1.5, 2.5, 3.5], "b": ["x", "y", "z"]})
    guess = guess_mapping(frame)
    assert guess.missing == (MISSING_LABEL, MISSING_OUTPUT, MISSING_GROUPS)
    assert guess.mapping.label == "a"  # something to start from, never None for a table with columns
    only_groups = pd.DataFrame({"outcome": [0, 1, 0, 1], "gender": list("FMFM")})
    assert guess_mapping(only_groups).missing == (MISSING_OUTPUT,)
    assert guess_mapping(pd.DataFrame()) == MappingGuess(None, (MISSING_LABEL, MISSING_OUTPUT, MISSING_GROUPS))


def test_a_duplicated_score_column_is_proposed_once_and_value_rule_only_without_named_scores():
    rng = np.random.default_rng(3)
    p = rng.random(100)
    frame = pd.DataFrame({"label": rng.integers(0, 2, 100), "risk_score": p, "risk_score.1": p,
                          "index_value": rng.random(100), "race": rng.choice(list("AB"), 100)})
    assert guess_mapping(frame).mapping.scores == ("risk_score",)
    unnamed = frame.drop(columns=["risk_score", "risk_score.1"])
    assert guess_mapping(unnamed).mapping.scores == ("index_value",)  # in [0, 1], many values


def test_words_and_positive_value():
    assert words("TOXICITY@1") == ["toxicity", "1"] and words("predictedLabel") == ["predicted", "label"]
    assert guess_positive([0, 1]) == 1 and guess_positive(["<=50K", ">50K"]) == ">50K"
    assert guess_positive(["nontoxic", "toxic"]) == "toxic" and guess_positive(["a", "b"]) == "b"
    assert guess_positive([]) is None
