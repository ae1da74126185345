"""AppTest helpers: run the real app script headless and drive its widgets by label."""

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["pages/data.py", "pages/overview.py", "pages/subgroup_aucs.py", "pages/rate_disparities.py", "pages/calibration.py",
         "pages/classwise.py", "pages/dataset_metrics.py", "pages/definitions.py"]
# Plotly charts each page draws on the bundled samples.
CHARTS = {"pages/data.py": 0, "pages/overview.py": 0, "pages/subgroup_aucs.py": 1, "pages/rate_disparities.py": 2, "pages/calibration.py": 2,
          "pages/classwise.py": 1, "pages/dataset_metrics.py": 1, "pages/definitions.py": 0}


def widget(at, kind: str, label: str):
    """The one widget of `kind` (e.g. "selectbox") whose label is `label`."""
    found = [w for w in getattr(at, kind) if w.label == label]
    assert len(found) == 1, f"expected one {kind} labelled {label!r}, found {[w.label for w in getattr(at, kind)]}"
    return found[0]


def metrics(at) -> dict:
    """Displayed st.metric values by label."""
    return {m.label: m.value for m in at.metric}


def figures(at) -> list:
    """The Plotly figures on the page, as dicts."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def start() -> AppTest:
    """The app, run once (it opens on the bundled credit sample)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    return at
