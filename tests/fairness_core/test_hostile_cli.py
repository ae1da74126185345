"""The command line on hostile configurations, weights and flags: exit 2 with one line that says what is wrong and
what to do, never a traceback (exit 3), never a silent pass."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import ROOT

CREDIT = ROOT / "sample_data" / "credit_decisions.csv"
FLAGS = ["--label", "repaid", "--positive", "1", "--score", "score_logistic", "--protected", "sex"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fairness_core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.mark.parametrize("items, expected", [
    (3_000_000, "is larger than a review configuration can be (at most 512 KiB)"),
    (20_000, "slice.0.values: 20,000 items; a configuration lists at most 10,000"),
])
def test_a_huge_config_file_is_refused_with_one_line(tmp_path, items, expected):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"version": 1, "mapping": {"label": "repaid", "positive_label": 1},
                                "slice": [{"column": "a", "values": [{}] * items}]}))
    line = one_error_line(cli("metrics", str(CREDIT), "--config", str(path), "--out", str(tmp_path / "o.json")))
    assert expected in line
    assert len(line) < 400


@pytest.mark.parametrize("value, word", [("1e308", "large"), ("1e-320", "small")])
@pytest.mark.parametrize("engine", [[], ["--engine", "duckdb"]])
def test_weights_out_of_a_float_s_range_get_one_line(tmp_path, value, word, engine):
    """N6 and N9: weights whose sums overflowed gave a JSON error and 73 lines of numpy warnings; 1e-320 a traceback."""
    import pandas as pd

    path = tmp_path / "weighted.csv"
    pd.read_csv(CREDIT).assign(w=float(value)).to_csv(path, index=False)
    line = one_error_line(cli("metrics", str(path), *FLAGS, "--weight", "w", *engine, "--out", str(tmp_path / "o")))
    assert f"The weight column 'w' has weights as {word} as" in line and "rescale the column" in line


def test_the_only_score_as_baseline_is_refused(tmp_path):
    """N11: --baseline naming the only score skipped the comparison silently and exited 0."""
    line = one_error_line(cli("metrics", str(CREDIT), *FLAGS, "--baseline", "score_logistic",
                              "--out", str(tmp_path / "o.json")))
    assert "'score_logistic' is the only score column" in line and "--score" in line


@pytest.mark.parametrize("value", ["1e308", "1.5", "-0.1", "nan"])
def test_max_worsening_is_bounded(tmp_path, value):
    line = one_error_line(cli("metrics", str(CREDIT), *FLAGS, "--score", "score_boosting", "--baseline",
                              "score_logistic", "--max-worsening", value, "--out", str(tmp_path / "o.json")))
    assert "expected a number from 0 to 1" in line


def test_many_unknown_gate_rules_give_a_short_line(tmp_path):
    rules = ",".join(f"rule_{i}" for i in range(10_000))
    line = one_error_line(cli("metrics", str(CREDIT), *FLAGS, "--gate", rules, "--out", str(tmp_path / "o.json")))
    assert "'rule_0', 'rule_1', 'rule_2', 'rule_3', 'rule_4' and 9,995 more" in line and len(line) < 1500


def test_the_exact_levels_tip_names_the_flag(tmp_path):
    """N10: the tip of too many exact AUC levels said auc_bins= on the command line; now a note on the review."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    path = tmp_path / "distinct.parquet"
    pd.DataFrame({"y": rng.integers(0, 2, 3000), "s": rng.random(3000), "g": rng.choice(["a", "b"], 3000)}) \
        .to_parquet(path)
    done = subprocess.run([sys.executable, "-c", (
        "import sys; from fairness_core import _cli; _cli.MAX_EXACT_LEVELS = 1000; sys.argv[0] = 'fairness-core'; "
        f"sys.exit(_cli.main({['metrics', str(path), '--engine', 'duckdb', '--auc-bins', 'exact', '--label', 'y', '--positive', '1', '--score', 's', '--protected', 'g', '--out', str(tmp_path / 'o.json')]!r}))")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    # The review is written with every AUC from the default bins, and the note says why
    assert done.returncode in (0, 1), done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("note: not computed: exact AUCs"))
    assert "3,000 distinct scores, more than the limit of 1,000" in line and "from 10,000 score bins" in line
    assert "auc_bins=" not in line


def test_help_examples_continue_their_lines():
    done = cli("--help")
    lines = done.stdout.splitlines()
    start = [i for i, line in enumerate(lines) if line.strip().startswith("python -m fairness_core")]
    for i in start:   # each example's wrapped lines end with a continuation
        j = i
        while j + 1 < len(lines) and lines[j + 1].startswith("      "):
            assert lines[j].endswith(" \\"), lines[j]
            j += 1
    assert any("loans.csv" in line and line.endswith("\\") for line in lines)
