"""Tests for the synthetic sample datasets in ``sample_data/``.

The generator is rerun into a temporary folder and its output must match the
committed CSV files; the committed files must also show the disparities that
``sample_data/README.md`` promises.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
SCRIPT = SAMPLE_DIR / "make_samples.py"
CREDIT = "credit_decisions.csv"
TEXT = "text_moderation.csv"
IDENTITIES = ["female", "male", "christian", "white", "muslim", "black", "gay", "transgender"]


def _load_generator():
    """Import ``sample_data/make_samples.py`` from its file path.

    Returns
    -------
    module
        The generator module.
    """
    spec = importlib.util.spec_from_file_location("make_samples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    # Do not leave a __pycache__ folder next to the committed data.
    previous, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = previous
    return module


@pytest.fixture(scope="module")
def credit() -> pd.DataFrame:
    """Return the committed credit-decision sample.

    Returns
    -------
    pandas.DataFrame
        Contents of ``sample_data/credit_decisions.csv``.
    """
    return pd.read_csv(SAMPLE_DIR / CREDIT)


@pytest.fixture(scope="module")
def text() -> pd.DataFrame:
    """Return the committed text-moderation sample.

    Returns
    -------
    pandas.DataFrame
        Contents of ``sample_data/text_moderation.csv``.
    """
    return pd.read_csv(SAMPLE_DIR / TEXT)


def test_generator_reproduces_committed_files(tmp_path: Path) -> None:
    """Rerunning the seeded generator gives the committed files."""
    written = _load_generator().write_samples(tmp_path)
    assert sorted(written) == sorted([CREDIT, TEXT])
    for name in (CREDIT, TEXT):
        path = tmp_path / name
        assert path.stat().st_size < 1_000_000
        pd.testing.assert_frame_equal(
            pd.read_csv(path),
            pd.read_csv(SAMPLE_DIR / name),
            check_exact=False,
            rtol=1e-6,
            atol=1e-6,  # tolerate a flipped last digit of a 6-decimal score
        )


def test_credit_structure(credit: pd.DataFrame) -> None:
    """Row count, ids, score ranges, the approval rule and the missing ages."""
    assert len(credit) == 6000
    assert credit["applicant_id"].tolist() == list(range(1, 6001))
    for column in ("score_logistic", "score_boosting"):
        assert credit[column].between(0.0, 1.0).all()
    assert set(credit["repaid"].unique()) == {0, 1}
    expected = (credit["score_logistic"] >= 0.5).astype("int64")
    assert (credit["approved"] == expected).all()
    # Only age_group has missing values, in about 1 % of the rows.
    missing = credit.isna().sum()
    assert set(missing[missing > 0].index) == {"age_group"}
    assert 0.005 < credit["age_group"].isna().mean() < 0.015
    ethnicity_sizes = credit["ethnicity"].value_counts()
    assert ethnicity_sizes.iloc[0] / len(credit) > 0.5
    assert 40 <= ethnicity_sizes.iloc[-1] <= 80


def test_credit_disparities(credit: pd.DataFrame) -> None:
    """Selection rates and TPRs at 0.5 differ by sex and by ethnicity."""
    for attribute, min_gap in (("sex", 0.03), ("ethnicity", 0.10)):
        selection = credit.groupby(attribute)["approved"].mean()
        tpr = credit[credit["repaid"] == 1].groupby(attribute)["approved"].mean()
        assert selection.max() - selection.min() > min_gap
        assert tpr.max() - tpr.min() > min_gap


def test_text_structure(text: pd.DataFrame) -> None:
    """Row count, labels, score ranges and overlapping identity columns."""
    assert len(text) == 8000
    assert set(text["toxicity"].unique()) == {"toxic", "nontoxic"}
    assert 0.15 <= (text["toxicity"] == "toxic").mean() <= 0.25
    for column in ("toxicity_score", "toxicity_score_v2"):
        assert text[column].between(0.0, 1.0).all()
    identities = text[IDENTITIES].to_numpy()
    assert set(np.unique(identities)) == {0, 1}
    mentions = identities.sum(axis=1)
    assert (mentions >= 2).any()
    assert (mentions == 0).mean() > 0.5


def test_bpsn_and_bnsp_diverge(text: pd.DataFrame) -> None:
    """Some identity has BPSN << BNSP and another has BNSP << BPSN."""
    y = (text["toxicity"] == "toxic").to_numpy()
    score = text["toxicity_score"].to_numpy()
    gaps = {}
    for identity in IDENTITIES:
        in_group = text[identity].to_numpy() == 1
        bpsn = (in_group & ~y) | (~in_group & y)
        bnsp = (in_group & y) | (~in_group & ~y)
        gaps[identity] = roc_auc_score(y[bnsp], score[bnsp]) - roc_auc_score(y[bpsn], score[bpsn])
    assert max(gaps.values()) > 0.05
    assert min(gaps.values()) < -0.05


def test_credit_status_columns_show_the_documented_class_wise_disparity(credit):
    """The README's class-wise numbers: recall of on_time and late by sex."""
    assert set(credit["repayment_status"]) == {"default", "late", "on_time"}
    assert set(credit["predicted_status"]) == {"default", "late", "on_time"}
    assert ((credit["repayment_status"] == "default") == (credit["repaid"] == 0)).all()
    assert ((credit["predicted_status"] == "default") == (credit["approved"] == 0)).all()
    recall = {}
    for sex in ("Female", "Male"):
        rows = credit[credit["sex"] == sex]
        for cls in ("on_time", "late"):
            truth = rows["repayment_status"] == cls
            recall[sex, cls] = round(float((rows.loc[truth, "predicted_status"] == cls).mean()), 3)
    assert recall == {("Female", "on_time"): 0.274, ("Male", "on_time"): 0.621,
                      ("Female", "late"): 0.515, ("Male", "late"): 0.270}


def test_credit_decision_dates_span_24_months_with_the_planted_drop(credit: pd.DataFrame) -> None:
    """Daily dates over 2023-2024; Group B's approvals fall month by month over the last six months as planted,
    its repayment rate does not, and the other groups' approval rates stay level."""
    generator = _load_generator()
    dates = pd.to_datetime(credit["decision_date"], format="%Y-%m-%d")
    assert dates.min() >= pd.Timestamp(generator.FIRST_DECISION_DAY)
    assert dates.max() <= pd.Timestamp(generator.LAST_DECISION_DAY)
    month = dates.dt.to_period("M")
    assert month.nunique() == 24 and month.value_counts().min() >= 200
    group = credit["ethnicity"] == generator.DRIFT_GROUP
    late = month >= pd.Period(generator.DRIFT_START, "M")
    per_month = credit.loc[group & late].groupby(month[group & late])
    selection = per_month["approved"].mean().to_numpy()
    sizes = per_month.size().to_numpy()
    np.testing.assert_array_equal(np.round(selection * sizes), np.round(np.array(generator.DRIFT_SELECTION) * sizes))
    repaid_share = credit.loc[group, "repaid"].mean()
    assert np.abs(per_month["repaid"].mean().to_numpy() - repaid_share).max() < 0.02
    # before the drop, the group's approvals are those of everyone else; the others never drop
    early = credit.loc[group & ~late, "approved"].mean()
    others = credit.loc[~group].groupby(month[~group])["approved"].mean()
    assert abs(early - credit.loc[~group, "approved"].mean()) < 0.03
    assert others.min() > 0.65 and selection[-1] < 0.25
