"""Saved reviews side by side in time (fairness_core.review_history and `python -m fairness_core history`): ordered
by the time each was created, verdicts and key metrics as each review recorded them, a warning wherever the
configurations differ, and every file that is not a saved review refused with one line (exit 2)."""

from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._cli import main

CREATED = ["2026-01-05T09:00:00+00:00", "2026-02-05T09:00:00+00:00", "2026-03-05T09:00:00+00:00"]


def frame(seed: int, n: int = 1500) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    group = rng.choice(["A", "B"], n)
    score = np.clip(0.35 + 0.3 * y - np.where(group == "B", 0.05 * seed, 0) + rng.normal(0, 0.12, n), 0, 1)
    return pd.DataFrame({"y": y, "group": group, "score": score.round(4)})


def review(seed: int, threshold: float, created: str, name: str = "scores.csv"):
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("group",),
                               positive_outcome="favourable")
    config = fc.ReviewConfig(mapping=mapping, thresholds=(("score", threshold),), n_boot=200)
    data = frame(seed)
    built = fc.build_review(data, config, source={"name": name}, data=data.to_csv(index=False).encode())
    return dataclasses.replace(built, created=created)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Three saved reviews, March's with another threshold; written in the order March, January, February."""
    folder = tmp_path_factory.mktemp("reviews")
    reviews = [review(1, 0.5, CREATED[0]), review(2, 0.5, CREATED[1]), review(3, 0.6, CREATED[2])]
    paths = []
    for month, built in zip(["january", "february", "march"], reviews):
        path = folder / f"{month}.json"
        path.write_text(built.to_json(), encoding="utf-8")
        paths.append(path)
    return reviews, [paths[2], paths[0], paths[1]]


def test_history_orders_by_creation_and_flags_the_other_threshold(saved):
    reviews, paths = saved
    history = fc.review_history(paths)
    assert list(history.reviews["created"]) == CREATED
    assert [p.rsplit("/", 1)[-1] for p in history.reviews["file"]] == ["january.json", "february.json", "march.json"]
    assert list(history.reviews["exit_status"]) == [r.exit_status() for r in reviews]
    assert list(history.reviews["sha256"]) == [r.source["sha256"] for r in reviews]
    assert history.differences[["review", "setting", "before", "after"]].values.tolist() == [
        [3, "thresholds", '{"score": 0.5}', '{"score": 0.6}']]
    for number, built in enumerate(reviews, start=1):
        mine = history.verdicts[history.verdicts["review"] == number]
        expected = ([("labels", v) for v in built.dataset_verdicts]
                    + [(m.name, v) for m in built.models for v in m.verdicts])
        assert list(zip(mine["model"], mine["rule"], mine["status"])) == [
            (m, v.rule.name, v.status) for m, v in expected]
        np.testing.assert_allclose(mine["value"].to_numpy(float), [v.value for _, v in expected], rtol=1e-12)
        metrics = history.metrics[history.metrics["review"] == number].set_index(["model", "metric"])["value"]
        assert metrics["score", "p_percent_score"] == built.models[0].p_percent.value
        assert metrics["score", "false_positive_rate"] == built.models[0].rates["false_positive_rate"].value
        assert metrics["labels", "base_rate"] == built.base_rate[0]


def test_history_of_reviews_made_alike_has_no_warning(saved):
    _, paths = saved
    assert fc.review_history(paths[1:]).differences.empty   # January and February: the same settings


@pytest.mark.parametrize("setting, change", [
    ("minimum size", lambda d: d["context"]["configuration"]["mapping"].update(min_size=50)),
    ("weights", lambda d: d["context"]["configuration"]["mapping"].update(weight="w")),
    ("favourable outcome", lambda d: d["context"]["configuration"]["mapping"].update(positive_outcome="adverse")),
    ("subgroups", lambda d: d["context"]["configuration"]["mapping"].update(protected=["group", "region"])),
    ("engine", lambda d: d["context"]["source"].update(engine="duckdb")),
    ("rules", lambda d: d["context"]["configuration"]["options"].update(rate_max_difference=0.05)),
])
def test_each_setting_that_differs_is_flagged(saved, setting, change):
    reviews, _ = saved
    first = reviews[0].to_dict()
    second = copy.deepcopy(reviews[1].to_dict())
    change(second)
    differences = fc.review_history([second, first]).differences
    assert list(differences["setting"]) == [setting] and list(differences["review"]) == [2]


def test_history_command_writes_the_page_and_warns(saved, tmp_path, capsys):
    reviews, paths = saved
    out = tmp_path / "history.html"
    assert main(["history", *map(str, paths), "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"warning: review 3 ({CREATED[2]}) was made with other settings than the one before it: thresholds "
                   '{"score": 0.5} before, {"score": 0.6} there.']
    html = out.read_text(encoding="utf-8")
    assert html.count('<tr class="differs">') == 2   # one warning row in each table, before the third review
    assert ("Review 3 was made with other settings than review 2: thresholds: {&quot;score&quot;: 0.5} before, "
            "{&quot;score&quot;: 0.6} here.") in html
    assert "<h2 class=\"first\">Verdicts per rule</h2>" in html and "<h2>Key metrics</h2>" in html
    assert html.count("Plotly.newPlot") == fc.review_history(paths).metrics["metric"].nunique()
    as_json = tmp_path / "history.json"
    assert main(["history", *map(str, paths), "--json", "--out", str(as_json)]) == 0
    assert json.loads(as_json.read_text(encoding="utf-8")) == fc.review_history(paths).to_dict()


def test_history_escapes_hostile_names(tmp_path, capsys):
    hostile = "<script>alert(1)</script>"
    built = review(1, 0.5, CREATED[0], name=hostile + ".csv")
    path = tmp_path / "review.json"
    path.write_text(built.to_json(), encoding="utf-8")
    out = tmp_path / "history.html"
    assert main(["history", str(path), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert hostile not in html and "&lt;script&gt;alert(1)&lt;/script&gt;.csv" in html


def one_error_line(capsys) -> str:
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in lines[0], lines
    return lines[0]


@pytest.mark.parametrize("content, expected", [
    (fc.table_to_json(pd.DataFrame({"a": [1]}), {"software": "fairness_core"}), "is not a review saved by fairness_core"),
    (fc.ReviewConfig(mapping=fc.ColumnMapping(label="y", positive_label=1)).to_json(), "no 'fairness_core.review/1'"),
    ("[1, 2]", "its JSON is not an object"),
    ("not json at all", "not JSON text"),
    (json.dumps({"schema": "fairness_core.review/2", "context": {"software": "fairness_core 9.0"}}),
     "a review of a layout this version cannot read (schema 'fairness_core.review/2'"),
    (json.dumps({"schema": "something/else"}), "its schema is 'something/else'"),
])
def test_a_file_that_is_not_a_review_is_refused_with_one_line(saved, tmp_path, capsys, content, expected):
    _, paths = saved
    bad = tmp_path / "other.json"
    bad.write_text(content, encoding="utf-8")
    assert main(["history", str(paths[0]), str(bad), "--out", str(tmp_path / "h.html")]) == 2
    line = one_error_line(capsys)
    assert expected in line and "other.json" in line
    assert not (tmp_path / "h.html").exists()


def test_history_needs_an_output_and_readable_files(saved, tmp_path, capsys):
    _, paths = saved
    assert main(["history", str(paths[0])]) == 2
    assert "give --out FILE" in one_error_line(capsys)
    assert main(["history", str(tmp_path / "missing.json"), "--json"]) == 2
    assert "cannot be read" in one_error_line(capsys)
    with pytest.raises(ValueError, match="at least one saved review"):
        fc.review_history([])
