"""Paths and the missing-prerequisite rule shared by every test folder."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The real datasets: FAIRNESS_TEST_DATA when set (e.g. for a second checkout elsewhere), else ../shared/data beside
# the project root, where CI and every developer's machine have them.
DATA_ENV = "FAIRNESS_TEST_DATA"
SHARED_DATA = Path(os.environ[DATA_ENV]) if os.environ.get(DATA_ENV) else ROOT.parent / "shared" / "data"


def fail_or_skip(message: str) -> None:
    """A missing prerequisite (data file, browser) fails the test in CI and skips it elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message + " (CI is set: this must be present, so the test fails.)", pytrace=False)
    pytest.skip(message)


# Set by the project's own CI (.ci/run), where the real datasets are always present: a missing one fails there. Any
# other run (a hosted CI of a fork sets CI too) skips the tests that read a missing dataset, saying which.
REQUIRE_DATA_ENV = "FAIRNESS_REQUIRE_DATA"


def missing_data(what: str) -> None:
    """A missing real dataset (or its folder): fail under the project's own CI ($FAIRNESS_REQUIRE_DATA set), skip
    elsewhere, saying where the data should be."""
    message = (f"{what} is missing. The tests read the real datasets from ../shared/data beside the project root, "
               f"or from ${DATA_ENV}.")
    if os.environ.get(REQUIRE_DATA_ENV):
        pytest.fail(message + f" (${REQUIRE_DATA_ENV} is set: it must be present, so the test fails.)", pytrace=False)
    pytest.skip(message)


def require_file(path: Path) -> Path:
    """Return `path`, or fail / skip (:func:`missing_data`) naming it."""
    if not path.is_file():
        missing_data(f"Real dataset {path}")
    return path


# Hypothesis profiles (loaded in tests/conftest.py): "ci" when the environment variable CI is set (.ci/run), else
# HYPOTHESIS_PROFILE ("dev" by default; "thorough" for a long run by hand).
EXAMPLES_SCALE = {"ci": 1.0, "dev": 1.0, "thorough": 10.0}   # CI never runs fewer examples than a developer


def hypothesis_profile() -> str:
    """The name of the hypothesis profile this run loads: "ci" under CI, else $HYPOTHESIS_PROFILE or "dev"."""
    return "ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev")


def examples(n: int) -> int:
    """`max_examples` of a property test written with `n` examples for a developer's run: as many (at least 10)
    in CI's derandomized profile; ten times as many under ``HYPOTHESIS_PROFILE=thorough``."""
    return max(10, round(n * EXAMPLES_SCALE.get(hypothesis_profile(), 1.0)))


def three_groups(levels: int, seed: int = 4, n: int = 3_000):
    """(y, score, group) of three groups with different base rates and score distributions, the scores on
    `levels` + 1 values in [0, 1]: per-group thresholds differ (tests of group_thresholds and its page)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = (rng.random(n) < np.where(g == "a", 0.5, 0.3)).astype(int)
    shift = np.where(g == "b", 0.15, np.where(g == "c", -0.1, 0.0))
    return y, np.clip(np.round((0.4 * y + 0.6 * rng.random(n) + shift) * levels) / levels, 0, 1), g


def two_models_frame():
    """A label, a race attribute and two scores: the candidate (score_b) halves the scores of subgroup a's positives,
    so it is worse than the current model (score_a) for them (tests of the release gate in the app)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(5)
    n = 3_000
    race = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    current = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1).round(4)
    candidate = current.copy()
    candidate[(race == "a") & (y == 1)] *= 0.5    # worse for the positives of subgroup a
    return pd.DataFrame({"label": y, "race": race, "score_a": current, "score_b": candidate.round(4)})


def weighted_two_groups(seed: int = 3, n: int = 3_000):
    """(y, score, group, weight) of two groups, the score informative in a only, weights uniform in [0.5, 3]
    (tests of weighted AUC findings and captions)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    s = np.where(g == "a", np.clip(0.3 + 0.4 * y + rng.normal(0, 0.15, n), 0, 1), rng.random(n))
    return y, s, g, rng.uniform(0.5, 3.0, n)


def literal_simultaneous_level(samples, level: float) -> float:
    """The per-column level of fairness_core's simultaneous intervals, by brute force: of the levels 1 - 2 i / (n - 1)
    at which numpy's linear-interpolation percentile interval of a column of n defined replicates falls on a
    replicate, the smallest one whose intervals hold a share `level` of the replicates in every column at once (NaN is
    inside), clipped to [level, the Bonferroni level]. An independent reading of Mandel & Betensky (2008)."""
    import numpy as np

    x = np.asarray(samples, dtype=float)
    keep = (~np.isnan(x)).sum(axis=0) >= 2
    x = x[:, keep]
    m = x.shape[1]
    if m < 2:
        return level
    sizes = (~np.isnan(x)).sum(axis=0)
    tails = sorted({i / (n - 1) for n in sizes for i in range(n // 2 + 1)}, reverse=True)
    for t in tails:   # from the narrowest intervals outward: the first that holds enough
        inside = np.ones(len(x), dtype=bool)
        for k in range(m):
            col = x[:, k]
            defined = col[~np.isnan(col)]
            lo, hi = np.quantile(defined, t), np.quantile(defined, 1 - t)
            inside &= np.isnan(col) | ((col >= lo - 1e-12) & (col <= hi + 1e-12))
        if inside.mean() >= level - 1e-12:
            return float(min(max(1 - 2 * t, level), 1 - (1 - level) / m))
    return 1 - (1 - level) / m
