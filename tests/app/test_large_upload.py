"""AppTest at a million rows: a generated 10^6-row CSV is uploaded, mapped and every page renders with the
right numbers (times are measured by benchmarks/, never asserted); a file too large for the memory left gets
a message, not a crash; the configuration allows 1 GB uploads and shows Streamlit's running indicator."""

import gzip
import tomllib

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from streamlit.testing.v1 import AppTest

from tests.app.helpers import PAGES, ROOT, csv_bytes, metrics, open_section, scored_table, widget
from fairness_dashboard.data import loading as data, profiling
from fairness_dashboard.presentation import escape, formats, labels

N_ROWS = 1_000_000


@pytest.fixture(scope="module")
def big():
    """(frame, CSV bytes) of the generated 10^6-row table (race x sex, two scores, a predicted label)."""
    frame = scored_table(N_ROWS)
    return frame, csv_bytes(frame)


def upload(name: str, payload: bytes) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)  # generous: a loaded CI machine
    at.run()
    widget(at, "radio", "Source").set_value("upload").run()
    at.file_uploader[0].set_value((name, payload, "text/csv")).run()
    assert not at.exception, at.exception
    return at


def test_million_row_upload_visits_every_page(big):
    frame, payload = big
    at = upload("million.csv", payload)
    assert not at.error, [e.value for e in at.error]
    shown = metrics(at)
    assert (shown["Rows in file"], shown["Rows used"], shown["Rows excluded"]) == ("1,000,000", "1,000,000", "0")
    assert shown["Base rate (share positive)"] == formats.tile(frame["label"].mean())
    # the guess: label, the first score column and race; then race x sex, both scores and the given predictions
    assert widget(at, "selectbox", labels.LABEL_COLUMN).value == "label"
    widget(at, "multiselect", labels.PROTECTED).set_value(["race", "sex"]).run()
    widget(at, "multiselect", labels.SCORE_COLUMN).set_value(["score_a", "score_b"]).run()
    widget(at, "selectbox", labels.PREDICTED_COLUMN).set_value("approved").run()
    assert not at.exception and not at.error
    groups = at.dataframe[0].value
    sizes = frame.groupby(["race", "sex"]).size()
    assert len(groups) == 8 and groups["size"].sum() == N_ROWS
    assert sorted(groups["size"]) == sorted(sizes)

    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        assert not at.error, (page, [e.value for e in at.error])
        shown = metrics(at)
        if page == "pages/overview.py":
            assert shown["Rows analysed"] == "1,000,000" and shown["Subgroups"] == "8"
        elif page == "pages/subgroup_aucs.py":
            assert shown["Overall AUC"] == formats.tile(roc_auc_score(frame["label"], frame["score_a"]))
        elif page == "pages/rate_disparities.py":
            rates = at.dataframe[0].value
            assert rates["size"].sum() == N_ROWS
        elif page == "pages/calibration.py":
            assert "ECE disparity (max)" in shown
        elif page == "pages/classwise.py":
            assert shown["Classes used"] == "2 of 2"
        elif page == "pages/dataset_metrics.py":
            base = frame.groupby(["race", "sex"])["label"].mean()
            assert shown["Base-rate disparity (max)"] != "undefined" and len(base) == 8
            # consistency does not start a nearest-neighbour search on its own at this size
            open_section(at, "dataset:section", "Consistency")
            assert "Share of differing neighbours" not in metrics(at)
            at.button[0].click().run()
            assert not at.exception and not at.error
            shown = metrics(at)
            share = float(shown["Share of differing neighbours"])
            assert 0.3 < share < 0.7  # age and income say little about these labels
            assert any(f"a random sample of {data.CONSISTENCY_SAMPLE:,} of 1,000,000 rows" in c.value
                       for c in at.caption)


def test_a_file_too_large_for_the_memory_left_gets_a_message(monkeypatch):
    monkeypatch.setattr(data, "available_memory", lambda: 1_000)
    payload = csv_bytes(scored_table(300))
    at = upload("huge.csv", payload)
    expected = data.MEMORY_MESSAGE.format(name="huge.csv", size=data.size_text(len(payload)), free="1.0 KB",
                                          kind="CSV", factor=data.MEMORY_FACTOR["csv"])
    assert [e.value for e in at.error] == [escape.md(expected)]  # escaped: it holds the file name
    assert not metrics(at)  # nothing was loaded: the page stops at the message


def test_running_out_of_memory_while_parsing_gets_a_message(monkeypatch):
    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(data.fc, "read_table", out_of_memory)
    payload = csv_bytes(scored_table(300))
    at = upload("big.csv", payload)
    assert [e.value for e in at.error] == [escape.md(data.OUT_OF_MEMORY_MESSAGE.format(
        step="reading", name="big.csv", size=data.size_text(len(payload))))]


def test_upload_limit_and_running_indicator_are_configured():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == 1024  # megabytes
    assert config["client"]["toolbarMode"] == "viewer"  # "minimal" hides Streamlit's running indicator
    assert "Parquet is recommended" in labels.HELP[labels.UPLOAD]


def test_available_memory_reads_the_system():
    free = data.available_memory()
    assert free is None or free > 0
    assert data.memory_problem("small.csv", 10) is None
    assert data.size_text(512) == "512 bytes" and data.size_text(42_100_000) == "42.1 MB"
    assert np.isclose(float(data.size_text(1.5e9).split()[0]), 1.5)


def test_a_gzip_counts_its_decompressed_size_against_the_memory_left(monkeypatch):
    # A small gzip of a large CSV takes the CSV's memory once read: its trailer states the decompressed size.
    plain = csv_bytes(scored_table(3000))
    payload = gzip.compress(plain)
    free = len(payload) * data.MEMORY_FACTOR["csv"] * 2   # room for the compressed file, not for the CSV
    assert len(plain) * data.MEMORY_FACTOR["csv"] > free
    monkeypatch.setattr(data, "available_memory", lambda: free)
    at = upload("huge.csv.gz", payload)
    expected = data.MEMORY_MESSAGE.format(
        name="huge.csv.gz", size=f"{data.size_text(len(payload))}, {data.size_text(len(plain))} decompressed",
        free=data.size_text(free), kind="CSV", factor=data.MEMORY_FACTOR["csv"])
    assert [e.value for e in at.error] == [escape.md(expected)]
    assert not metrics(at)
    # ... while the same gzip with room for its CSV is read.
    monkeypatch.setattr(data, "available_memory", lambda: len(plain) * data.MEMORY_FACTOR["csv"] * 2)
    at = upload("huge.csv.gz", payload)
    assert not at.error and metrics(at)["Rows in file"] == "3,000"


def test_an_upload_is_hashed_read_guessed_and_profiled_once(monkeypatch):
    # Across the upload's two script runs, a new mapping and a visit of another page and back: the file's bytes
    # are hashed once, parsed once, its mapping guessed once and each column's distinct values counted once.
    calls = {"token_of": 0, "read_table": 0, "guess_mapping": 0, "n_unique": 0}

    def counted(owner, name, key=None):
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            calls[key or name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapper)

    counted(data, "token_of")
    counted(data.fc, "read_table")
    counted(data.fc, "guess_mapping")
    counted(profiling, "n_unique")
    frame = scored_table(3000)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    widget(at, "radio", "Source").set_value("upload").run()
    calls.update(dict.fromkeys(calls, 0))   # (the bundled sample the app opens on was read and profiled)
    at.file_uploader[0].set_value(("small.csv", csv_bytes(frame), "text/csv")).run()
    assert not at.exception and not at.error and metrics(at)["Rows in file"] == "3,000"
    widget(at, "multiselect", labels.PROTECTED).set_value(["race", "sex"]).run()
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/data.py").run()
    assert not at.exception and not at.error
    assert calls == {"token_of": 1, "read_table": 1, "guess_mapping": 1, "n_unique": frame.shape[1]}
