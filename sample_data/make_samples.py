"""Generate the synthetic sample datasets shipped with the fairness dashboard.

Running ``python sample_data/make_samples.py [OUTPUT_DIR]`` writes two small,
deterministic CSV files (``OUTPUT_DIR`` defaults to the folder holding this
script):

``credit_decisions.csv``
    Synthetic loan applicants with numeric features, protected attributes
    (``sex``, ``age_group``, ``ethnicity``), the outcome ``repaid`` and the
    scores of two scikit-learn models that are trained inside this script on
    a separate, never-written training split, and the ``decision_date`` of
    each decision over 24 months (one group's approvals drop in the last six).
``text_moderation.csv``
    Synthetic comment-moderation records in the layout of the Jigsaw
    Unintended Bias in Toxicity Classification competition: a string label
    ``toxicity``, two model scores and overlapping 0/1 identity columns.

Everything is simulated: no network access, no external data, and no real
person is described. The disparities between groups are built in on purpose
(see ``sample_data/README.md``) so that every page of the dashboard has
something to show. All randomness comes from ``np.random.default_rng`` with
the fixed seeds below and from fixed scikit-learn ``random_state`` values, and
floats are rounded before writing, so rerunning the script reproduces the
committed files.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

#: Seed of the random generator used for ``credit_decisions.csv``.
CREDIT_SEED = 20240611
#: Seed of the random generator used for ``text_moderation.csv``.
TEXT_SEED = 20240612
#: ``random_state`` passed to the scikit-learn models.
MODEL_RANDOM_STATE = 0
#: Offset of the seed of the three-class status columns (a generator of their own).
STATUS_SEED_OFFSET = 7
#: Extra predicted late-payment risk given to women (a class-wise disparity to find).
STATUS_FEMALE_SHIFT = 0.8

#: Offset of the seed of the decision dates (a generator of their own, so no other column changes).
DATE_SEED_OFFSET = 11
#: First and last day of the decisions: 24 months of daily dates.
FIRST_DECISION_DAY = "2023-01-01"
LAST_DECISION_DAY = "2024-12-31"
#: The subgroup whose approvals drop over the last months (a change over time to find).
DRIFT_GROUP = "Group B"
#: First month of the drop.
DRIFT_START = "2024-07"
#: The drift group's selection (approval) rate in each month from ``DRIFT_START`` on.
DRIFT_SELECTION = (0.60, 0.52, 0.44, 0.36, 0.28, 0.20)

#: Number of simulated applicants used only to train the two credit models.
N_CREDIT_TRAIN = 12_000
#: Number of held-out applicants that are scored and written to the CSV.
N_CREDIT_OUTPUT = 6_000
#: Number of rows of ``text_moderation.csv``.
N_TEXT = 8_000

CREDIT_FILENAME = "credit_decisions.csv"
TEXT_FILENAME = "text_moderation.csv"

SEX_LEVELS = np.array(["Female", "Male"])
SEX_SHARES = np.array([0.45, 0.55])

AGE_LEVELS = np.array(["18-24", "25-39", "40-59", "60+"])
AGE_SHARES = np.array([0.14, 0.39, 0.32, 0.15])
#: Inclusive lower and exclusive upper bound (in years) of each age band.
AGE_BOUNDS = np.array([[18, 25], [25, 40], [40, 60], [60, 80]])
#: Share of applicants whose ``age_group`` is blanked out (missing).
AGE_MISSING_SHARE = 0.01

#: Neutral labels: the synthetic disparities must not be read as statements
#: about real ethnic groups.
ETHNICITY_LEVELS = np.array(["Group A", "Group B", "Group C", "Group D", "Group E"])
ETHNICITY_SHARES = np.array([0.60, 0.20, 0.11, 0.08, 0.01])

NUMERIC_FEATURES = [
    "income",
    "debt_to_income",
    "credit_history_years",
    "n_late_payments",
    "loan_amount",
]

#: Identity columns of ``text_moderation.csv`` and their prevalence.
IDENTITY_PREVALENCE = {
    "female": 0.13,
    "male": 0.10,
    "christian": 0.08,
    "white": 0.06,
    "muslim": 0.05,
    "black": 0.045,
    "gay": 0.03,
    "transgender": 0.015,
}
#: Shift of the latent toxicity log-odds when a comment mentions an identity
#: (identity mentions are more often part of attacks).
IDENTITY_TOXICITY_SHIFT = {
    "female": 0.2,
    "male": 0.1,
    "christian": 0.2,
    "white": 0.4,
    "muslim": 0.7,
    "black": 0.7,
    "gay": 0.8,
    "transgender": 0.6,
}
#: Score shift (on the latent scale) for NON-toxic comments that mention the
#: identity: positive values make the model false-positive-prone (low BPSN AUC).
IDENTITY_SHIFT_NONTOXIC = {
    "female": 0.2,
    "male": 0.0,
    "christian": 0.0,
    "white": 0.0,
    "muslim": 1.0,
    "black": 1.0,
    "gay": 1.3,
    "transgender": 1.0,
}
#: Score shift (on the latent scale) for TOXIC comments that mention the
#: identity: negative values make the model miss toxicity (low BNSP AUC).
IDENTITY_SHIFT_TOXIC = {
    "female": 0.0,
    "male": 0.0,
    "christian": -1.1,
    "white": -0.9,
    "muslim": 0.3,
    "black": 0.3,
    "gay": 0.3,
    "transgender": 0.2,
}
#: Fraction of the identity shifts kept by the second ("v2") model.
V2_SHIFT_FACTOR = 0.3


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """Apply the logistic function element-wise.

    Parameters
    ----------
    x : numpy.ndarray
        Log-odds.

    Returns
    -------
    numpy.ndarray
        Probabilities ``1 / (1 + exp(-x))`` with the shape of ``x``.
    """
    return 1.0 / (1.0 + np.exp(-x))


def simulate_applicants(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Simulate loan applicants, their features and whether they repaid.

    Group differences are structural: income depends on ethnicity, sex and
    age; credit history length depends on age and ethnicity. The outcome is
    drawn from a logistic model of the features plus an unobserved term that
    differs by group (``Group C`` and women repay more often than their
    observed features suggest), so models trained on the features are
    miscalibrated for those groups.

    Parameters
    ----------
    n : int
        Number of applicants to simulate.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    pandas.DataFrame
        One row per applicant with the columns ``sex``, ``age_group``,
        ``ethnicity``, the five ``NUMERIC_FEATURES`` (already rounded) and
        ``repaid`` (1 = repaid, 0 = default). ``age_group`` is missing for
        about ``AGE_MISSING_SHARE`` of the rows.
    """
    sex_idx = rng.choice(len(SEX_LEVELS), size=n, p=SEX_SHARES)
    age_idx = rng.choice(len(AGE_LEVELS), size=n, p=AGE_SHARES)
    eth_idx = rng.choice(len(ETHNICITY_LEVELS), size=n, p=ETHNICITY_SHARES)
    female = sex_idx == 0

    low, high = AGE_BOUNDS[age_idx, 0], AGE_BOUNDS[age_idx, 1]
    age = low + rng.random(n) * (high - low)

    # Income in thousands: log-normal with group-dependent location.
    eth_income = np.array([0.10, -0.15, -0.05, -0.30, -0.35])[eth_idx]
    age_income = np.array([-0.45, 0.0, 0.15, -0.05])[age_idx]
    log_income = (
        np.log(48.0) + eth_income + age_income - 0.18 * female + rng.normal(0.0, 0.45, n)
    )
    income = np.round(np.maximum(np.exp(log_income), 8.0), 2)

    debt_to_income = rng.beta(2.0, 5.0, n) + 0.08 * (np.log(48.0) - np.log(income))
    debt_to_income = np.round(np.clip(debt_to_income, 0.01, 0.95), 4)

    # Credit history: a share of the adult years, shorter for Groups D and E.
    eth_history = np.array([0.0, 0.0, 0.0, 4.0, 5.0])[eth_idx]
    history = (age - 18.0) * rng.uniform(0.3, 1.0, n) - eth_history
    history = np.round(np.maximum(history, 0.0), 1)

    late_rate = np.exp(-0.8 + 2.0 * debt_to_income - 0.02 * history)
    n_late = rng.poisson(late_rate)

    loan_amount = income * np.exp(rng.normal(np.log(0.35), 0.5, n))
    loan_amount = np.round(np.maximum(loan_amount, 1.0), 2)

    # Unobserved, group-dependent part of the repayment log-odds.
    hidden = np.array([0.0, 0.0, 1.0, 0.0, 0.0])[eth_idx] + 0.3 * female
    logit = (
        0.6
        + 1.2 * (np.log(income) - np.log(48.0))
        - 3.0 * (debt_to_income - 0.3)
        + 0.04 * (history - 10.0)
        - 0.45 * n_late
        - 1.0 * (loan_amount / income - 0.4)
        + hidden
    )
    repaid = (rng.random(n) < _sigmoid(logit)).astype(np.int64)

    age_group = AGE_LEVELS[age_idx].astype(object)
    age_group[rng.random(n) < AGE_MISSING_SHARE] = np.nan

    return pd.DataFrame(
        {
            "sex": SEX_LEVELS[sex_idx],
            "age_group": age_group,
            "ethnicity": ETHNICITY_LEVELS[eth_idx],
            "income": income,
            "debt_to_income": debt_to_income,
            "credit_history_years": history,
            "n_late_payments": n_late.astype(np.int64),
            "loan_amount": loan_amount,
            "repaid": repaid,
        }
    )


def _boosting_features(frame: pd.DataFrame) -> np.ndarray:
    """Build the design matrix of the gradient-boosting model.

    Parameters
    ----------
    frame : pandas.DataFrame
        Applicants as returned by :func:`simulate_applicants`.

    Returns
    -------
    numpy.ndarray
        The numeric features followed by a one-hot encoding of ``age_group``
        (one column per level in ``AGE_LEVELS``; a missing age group is all
        zeros).
    """
    one_hot = (frame["age_group"].to_numpy()[:, None] == AGE_LEVELS[None, :]).astype(float)
    return np.hstack([frame[NUMERIC_FEATURES].to_numpy(dtype=float), one_hot])


def make_credit_decisions(
    n_train: int = N_CREDIT_TRAIN,
    n_output: int = N_CREDIT_OUTPUT,
    seed: int = CREDIT_SEED,
) -> pd.DataFrame:
    """Simulate applicants, train two models and score held-out applicants.

    A logistic regression (standardised numeric features only) and a
    histogram gradient-boosting classifier (numeric features plus one-hot
    ``age_group``) are fitted on ``n_train`` simulated applicants. Neither
    model sees ``sex`` or ``ethnicity``. A further ``n_output`` applicants,
    drawn from the same process, are scored and returned.

    Parameters
    ----------
    n_train : int, optional
        Number of applicants used only for training.
    n_output : int, optional
        Number of held-out applicants in the returned table.
    seed : int, optional
        Seed for ``np.random.default_rng``.

    Returns
    -------
    pandas.DataFrame
        The columns ``applicant_id``, ``decision_date`` (see
        :func:`decision_dates`), ``sex``, ``age_group``, ``ethnicity``,
        the numeric features, ``repaid``, ``score_logistic``,
        ``score_boosting``, ``approved`` (``score_logistic >= 0.5`` as 0/1), and the
        three-class ``repayment_status`` and ``predicted_status``.
    """
    rng = np.random.default_rng(seed)
    applicants = simulate_applicants(n_train + n_output, rng)
    train = applicants.iloc[:n_train]
    output = applicants.iloc[n_train:].reset_index(drop=True)

    logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    logistic.fit(train[NUMERIC_FEATURES].to_numpy(dtype=float), train["repaid"].to_numpy())

    boosting = HistGradientBoostingClassifier(
        max_iter=150,
        learning_rate=0.05,
        max_leaf_nodes=15,
        early_stopping=False,
        random_state=MODEL_RANDOM_STATE,
    )
    boosting.fit(_boosting_features(train), train["repaid"].to_numpy())

    score_logistic = np.round(
        logistic.predict_proba(output[NUMERIC_FEATURES].to_numpy(dtype=float))[:, 1], 6
    )
    score_boosting = np.round(boosting.predict_proba(_boosting_features(output))[:, 1], 6)

    output.insert(0, "applicant_id", np.arange(1, n_output + 1, dtype=np.int64))
    output["score_logistic"] = score_logistic
    output["score_boosting"] = score_boosting
    output["approved"] = (score_logistic >= 0.5).astype(np.int64)
    _add_repayment_status(output, np.random.default_rng(seed + STATUS_SEED_OFFSET))
    output.insert(1, "decision_date", decision_dates(output, np.random.default_rng(seed + DATE_SEED_OFFSET)))
    return output


def decision_dates(output: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
    """Give every applicant a decision day, with a planted drop in one subgroup's approvals over the last months.

    Every row draws a day uniformly from ``FIRST_DECISION_DAY`` to ``LAST_DECISION_DAY``. The rows of
    ``DRIFT_GROUP`` then swap days among themselves (so the group's number of rows per month is as drawn):
    the days of month ``m`` from ``DRIFT_START`` on go to rows of the group drawn so that their approval
    rate is ``DRIFT_SELECTION[m]`` and their repayment rate is the group's own (the labels do not change,
    the decisions do: the group's selection and true positive rates fall); the group's other rows take the
    earlier days in random order. No value of any other column changes: only which day each row has.

    Parameters
    ----------
    output : pandas.DataFrame
        Scored applicants with ``ethnicity``, ``repaid`` and ``approved``.
    rng : numpy.random.Generator
        A generator of its own (the other columns' draws are unchanged).

    Returns
    -------
    numpy.ndarray
        One ``YYYY-MM-DD`` string per row.

    Raises
    ------
    ValueError
        When the group has too few rows of some (repaid, approved) kind for the planted rates.
    """
    days = pd.date_range(FIRST_DECISION_DAY, LAST_DECISION_DAY, freq="D")
    day = rng.integers(0, len(days), len(output))
    month = days.to_period("M")[day]
    group = np.flatnonzero((output["ethnicity"] == DRIFT_GROUP).to_numpy())
    repaid = output["repaid"].to_numpy()[group]
    approved = output["approved"].to_numpy()[group]
    pools = {(r, a): list(rng.permutation(group[(repaid == r) & (approved == a)])) for r in (0, 1) for a in (0, 1)}
    slots = group[np.argsort(day[group], kind="stable")]   # the group's rows in day order: their days are its slots
    slot_days = day[slots]
    slot_months = month[slots]
    repaid_share = repaid.mean()
    taken = []
    for offset, selection in enumerate(DRIFT_SELECTION):
        in_month = np.flatnonzero(slot_months == pd.Period(DRIFT_START, "M") + offset)
        n = len(in_month)
        n_repaid = int(round(n * repaid_share))
        n_approved = int(round(n * selection))
        approved_repaid = int(round(n_approved * n_repaid / n)) if n else 0
        wanted = {(1, 1): approved_repaid, (1, 0): n_repaid - approved_repaid,
                  (0, 1): n_approved - approved_repaid, (0, 0): n - n_repaid - n_approved + approved_repaid}
        chosen = []
        for kind, k in wanted.items():
            if k < 0 or k > len(pools[kind]):
                raise ValueError(f"{DRIFT_GROUP} has too few rows with (repaid, approved) = {kind} for month "
                                 f"{offset + 1} of the drift.")
            chosen += pools[kind][:k]
            del pools[kind][:k]
        taken.append((in_month, rng.permutation(np.array(chosen, dtype=np.intp))))
    late = np.concatenate([slot for slot, _ in taken]) if taken else np.array([], dtype=np.intp)
    early_slots = np.setdiff1d(np.arange(len(slots)), late)
    rest = rng.permutation(np.array([row for pool in pools.values() for row in pool], dtype=np.intp))
    day = day.copy()
    day[rest] = slot_days[early_slots]
    for in_month, rows in taken:
        day[rows] = slot_days[in_month]
    return np.asarray(days[day].strftime("%Y-%m-%d"), dtype=object)


def _add_repayment_status(output: pd.DataFrame, rng: np.random.Generator) -> None:
    """Add a three-class outcome and a three-class prediction, for class-wise metrics.

    ``repayment_status`` refines ``repaid``: ``"default"`` when not repaid; otherwise ``"late"``
    with a probability that grows with past late payments, else ``"on_time"``.
    ``predicted_status`` is ``"default"`` when ``score_logistic < 0.5``; otherwise ``"late"`` when
    a noisy late-payment risk (which over-weights women by ``STATUS_FEMALE_SHIFT``) is high, else
    ``"on_time"``. A separate generator is used, so the other columns do not change.

    Parameters
    ----------
    output : pandas.DataFrame
        Scored applicants (modified in place).
    rng : numpy.random.Generator
    """
    female = (output["sex"] == "Female").to_numpy(dtype=float)
    late_logit = -1.6 + 0.55 * output["n_late_payments"].to_numpy(dtype=float)
    late = rng.random(len(output)) < _sigmoid(late_logit)
    repaid = output["repaid"].to_numpy() == 1
    output["repayment_status"] = np.where(~repaid, "default", np.where(late, "late", "on_time"))
    risk = late_logit + STATUS_FEMALE_SHIFT * female + rng.normal(0.0, 0.8, len(output))
    predicted_default = output["score_logistic"].to_numpy() < 0.5
    output["predicted_status"] = np.where(predicted_default, "default", np.where(risk > -1.0, "late", "on_time"))


def make_text_moderation(n: int = N_TEXT, seed: int = TEXT_SEED) -> pd.DataFrame:
    """Simulate toxicity labels, two model scores and identity mentions.

    Each comment has a latent severity ``2.1 * toxic + noise``. The first
    model adds identity-dependent shifts to that severity: non-toxic comments
    mentioning ``gay``, ``muslim``, ``black`` or ``transgender`` are pushed up
    (false positives, low BPSN AUC) and toxic comments mentioning
    ``christian`` or ``white`` are pushed down (missed toxicity, low BNSP
    AUC). The second model keeps only ``V2_SHIFT_FACTOR`` of those shifts and
    has slightly less noise.

    Parameters
    ----------
    n : int, optional
        Number of comments.
    seed : int, optional
        Seed for ``np.random.default_rng``.

    Returns
    -------
    pandas.DataFrame
        The columns ``comment_id``, ``toxicity`` (``"toxic"`` or
        ``"nontoxic"``), ``toxicity_score``, ``toxicity_score_v2`` and one
        0/1 column per identity in ``IDENTITY_PREVALENCE``.
    """
    rng = np.random.default_rng(seed)
    names = list(IDENTITY_PREVALENCE)
    prevalence = np.array([IDENTITY_PREVALENCE[k] for k in names])
    identities = (rng.random((n, len(names))) < prevalence[None, :]).astype(np.int64)
    # Comments about transgender people often also mention gay people.
    gay, trans = names.index("gay"), names.index("transgender")
    identities[:, gay] |= (identities[:, trans] == 1) & (rng.random(n) < 0.3)

    def effect(table: dict[str, float]) -> np.ndarray:
        """Sum an identity effect table over the identities of each row.

        Parameters
        ----------
        table : dict of str to float
            Effect per identity name.

        Returns
        -------
        numpy.ndarray
            Row-wise sum of the effects of the mentioned identities.
        """
        return identities @ np.array([table[k] for k in names], dtype=float)

    toxic_logit = -1.75 + effect(IDENTITY_TOXICITY_SHIFT)
    toxic = (rng.random(n) < _sigmoid(toxic_logit)).astype(np.int64)

    shared_noise = rng.normal(0.0, 1.0, n)
    v1_noise = rng.normal(0.0, 0.3, n)
    v2_noise = rng.normal(0.0, 0.25, n)
    severity = 2.1 * toxic + shared_noise
    shift = np.where(toxic == 1, effect(IDENTITY_SHIFT_TOXIC), effect(IDENTITY_SHIFT_NONTOXIC))

    score_v1 = _sigmoid(1.8 * (severity + v1_noise + shift - 1.6))
    score_v2 = _sigmoid(1.8 * (severity + v2_noise + V2_SHIFT_FACTOR * shift - 1.6))

    frame = pd.DataFrame(
        {
            "comment_id": np.arange(1, n + 1, dtype=np.int64),
            "toxicity": np.where(toxic == 1, "toxic", "nontoxic"),
            "toxicity_score": np.round(score_v1, 6),
            "toxicity_score_v2": np.round(score_v2, 6),
        }
    )
    for j, name in enumerate(names):
        frame[name] = identities[:, j]
    return frame


def write_samples(output_dir: str | Path) -> dict[str, Path]:
    """Generate both datasets and write them as CSV files.

    Parameters
    ----------
    output_dir : str or pathlib.Path
        Folder to write into; created if it does not exist.

    Returns
    -------
    dict of str to pathlib.Path
        Paths of the written files, keyed by file name.
    """
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = {
        CREDIT_FILENAME: make_credit_decisions(),
        TEXT_FILENAME: make_text_moderation(),
    }
    paths = {}
    for filename, table in tables.items():
        path = out / filename
        table.to_csv(path, index=False, lineterminator="\n")
        paths[filename] = path
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and write the sample files.

    Parameters
    ----------
    argv : sequence of str, optional
        Command-line arguments without the program name; ``sys.argv[1:]``
        when omitted.

    Returns
    -------
    None
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "output_dir",
        nargs="?",
        default=str(Path(__file__).resolve().parent),
        help="folder to write the CSV files into (default: the script's folder)",
    )
    args = parser.parse_args(argv)
    for path in write_samples(args.output_dir).values():
        print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
