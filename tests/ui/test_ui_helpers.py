"""ui helpers that do not need a running app: formatting, escaping, mapping guesses."""

import math

import numpy as np
import pandas as pd

import fairness_core as fc
from fairness_dashboard.data import loading, profiling
from fairness_dashboard.presentation import escape, formats


def test_numbers_say_undefined_and_infinity():
    assert formats.num(0.448468) == "0.4485"
    assert formats.num(math.nan) == "undefined"
    assert formats.num(math.inf) == "∞"


def test_markdown_escaping_shows_data_text_literally():
    assert escape.md("**bold** <b>x</b>") == r"\*\*bold\*\* \<b\>x\</b\>"


def test_guess_mapping_on_compas(compas_csv):
    frame = fc.read_table(compas_csv)
    profile = profiling.column_profile.__wrapped__("t", frame)
    mapping = profiling.guess_mapping(frame, profile)
    assert mapping.label == "two_year_recid"
    assert mapping.positive_label == 1
    assert mapping.scores == ("decile_score", "v_decile_score")
    assert mapping.protected == ("sex", "age_cat", "race")


def test_guess_positive_prefers_conventional_values():
    assert profiling.guess_positive(["nontoxic", "toxic"]) == "toxic"
    assert profiling.guess_positive([0, 1]) == 1
    assert profiling.guess_positive([False, True]) is True
    assert profiling.guess_positive(["A", "B"]) == "B"


def test_sample_mappings_validate():
    for key, sample in loading.SAMPLES.items():
        frame = fc.read_table(loading.SAMPLE_DIR / sample["file"])
        scored = fc.ScoredData.from_frame(frame, sample["mapping"])
        assert scored.n_rows == len(frame) - int(scored.exclusions["rows"].sum())
        assert len(scored.subgroups.names) >= 5, key


def test_label_values_are_sorted_and_exclude_missing():
    frame = pd.DataFrame({"y": ["b", None, "a", "b"]})
    assert profiling.label_values(frame, "y") == ["a", "b"]


def test_guess_mapping_on_madlibs(madlibs_csv):
    frame = fc.read_table(madlibs_csv)
    mapping = profiling.guess_mapping(frame, profiling.column_profile.__wrapped__("t", frame))
    assert (mapping.label, mapping.positive_label, mapping.scores) == ("toxicity", "toxic", ("TOXICITY@1", "TOXICITY@6"))


def test_against_gives_the_reference_its_article_once():
    from fairness_dashboard.presentation import labels

    assert labels.against("pairwise") == "every other subgroup (pairwise)"   # never "the every other subgroup"
    assert labels.against("rest") == "the rest of the population"
    assert labels.against("overall") == "the whole population"
    assert labels.against(fc.named_reference("rest")) == "the subgroup rest"


def test_weighted_auc_findings_and_captions_count_weights_as_weights():
    """With weights a caption read "56 rows: 25 positive, 45 negative" (25 + 45 != 56): sizes are
    effective sizes and the positives and negatives sums of weights, so they are said as such."""
    from tests.support import weighted_two_groups
    from fairness_dashboard.presentation import captions

    y, s, g, w = weighted_two_groups()
    table = fc.bias_auc_table(y, s, g, ci=0.95, sample_weight=w)
    sentences = fc.auc_findings(table)
    assert sentences and all("rows:" not in t for t in sentences)
    assert any("of weight" in t or "by weight" in t for t in sentences), sentences
    b = table.set_index("subgroup").loc["b"]
    want = (f"{b['size']:,.0f} effective rows, weight {b['n_positive'] + b['n_negative']:,.0f} "
            f"({b['n_positive']:,.0f} positive and {b['n_negative']:,.0f} negative by weight)")
    caption = captions.power_mean_caption(type("R", (), {"power_mean_ci": {}})(), table, "subgroup_auc", True, None)
    assert want in caption, caption
    plain = captions.power_mean_caption(type("R", (), {"power_mean_ci": {}})(), fc.bias_auc_table(y, s, g),
                                        "subgroup_auc", True, None)
    assert "rows: " in plain and "weight" not in plain
