"""Helpers for the tests of the review record: a mapped COMPAS session, and the bytes of the app's downloads."""

from __future__ import annotations

import hashlib

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from tests.app.helpers import widget

COMPAS_MAPPING = {"Label column": "two_year_recid", "Positive label": 1}


class Downloads:
    """The data of every ``st.download_button`` the app draws, by file name (the last run's value wins).

    AppTest keeps the media of a run in a manager it drops after the run, so the data are recorded
    where Streamlit stores them (``MediaFileManager.add``).
    """

    def __init__(self, monkeypatch):
        self.files: dict[str, bytes] = {}
        original = MediaFileManager.add

        def add(manager, path_or_data, mimetype, coordinates, file_name=None, is_for_static_download=False):
            if file_name:
                self.files[file_name] = path_or_data
            return original(manager, path_or_data, mimetype, coordinates, file_name=file_name,
                            is_for_static_download=is_for_static_download)

        monkeypatch.setattr(MediaFileManager, "add", add)

    def ending(self, suffix: str) -> bytes:
        """The one recorded file whose name ends with `suffix`."""
        found = [name for name in self.files if name.endswith(suffix)]
        assert len(found) == 1, f"expected one download ending {suffix!r}, got {sorted(self.files)}"
        data = self.files[found[0]]
        return data.encode("utf-8") if isinstance(data, str) else data


@pytest.fixture
def downloads(monkeypatch) -> Downloads:
    return Downloads(monkeypatch)


def upload(at, name: str, content: bytes) -> None:
    """Upload `content` as the data file on the Data page."""
    widget(at, "radio", "Source").set_value("upload").run()
    at.file_uploader[0].set_value((name, content, "text/csv")).run()
    assert not at.exception, at.exception


def map_compas(at, path) -> None:
    """Upload COMPAS and map label two_year_recid (positive 1), score decile_score, protected race."""
    upload(at, path.name, path.read_bytes())
    widget(at, "selectbox", "Label column").set_value("two_year_recid").run()
    widget(at, "selectbox", "Positive label").set_value(1).run()
    widget(at, "multiselect", "Score column").set_value(["decile_score"]).run()
    widget(at, "multiselect", "Protected attributes").set_value(["race"]).run()
    assert not at.exception and not at.error, (at.exception, at.error)


def prepare(at) -> None:
    """Open the Overview and prepare the review's downloads."""
    at.switch_page("pages/overview.py").run()
    assert [b.label for b in at.get("download_button")] == ["Configuration (JSON)"]
    widget(at, "button", "Prepare the report").click().run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert [b.label for b in at.get("download_button")] == [
        "Configuration (JSON)", "Report (HTML)", "Review (JSON)", "Every table (CSV, ZIP)"]


def restore(at, name: str, content: bytes, mime: str = "application/json") -> None:
    """Open the Data page's "Restore a saved review" and upload `content` there."""
    at.session_state["review:restore_open"] = True
    at.switch_page("pages/data.py").run()
    widget(at, "file_uploader", "Saved configuration or report").set_value((name, content, mime)).run()


def fpr_table(at):
    """The Rate disparities page's false positive rate comparisons (its first disparity tab), by subgroup."""
    at.switch_page("pages/rate_disparities.py").run()
    assert not at.exception
    tables = [d.value for d in at.dataframe if "disparity" in d.value.columns]
    return tables[0].sort_values("subgroup").reset_index(drop=True)


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
