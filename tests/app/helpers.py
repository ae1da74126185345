"""AppTest helpers: run the real app script headless and drive its widgets by label."""

import json
import re
from collections import Counter
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["pages/data.py", "pages/overview.py", "pages/subgroup_aucs.py", "pages/rate_disparities.py", "pages/calibration.py",
         "pages/classwise.py", "pages/dataset_metrics.py", "pages/discover.py", "pages/over_time.py", "pages/definitions.py"]
# Plotly charts each page draws on the bundled samples with its first secondary section open (the Overview its
# scorecard; Rate disparities its rates chart, with its tables open; the Data page's base-rate chart is collapsed, drawn
# on the session's first view and when opened: tests/app/test_data_base_rates.py). Over time draws its verdict strip,
# one chart per rule and the subgroups' rates where a time column is mapped (the credit sample), nothing without.
CHARTS = {"pages/data.py": 0, "pages/overview.py": 1, "pages/subgroup_aucs.py": 1, "pages/rate_disparities.py": 1, "pages/calibration.py": 2,
          "pages/classwise.py": 1, "pages/dataset_metrics.py": 1, "pages/discover.py": 1,
          "pages/over_time.py": {"Sample: credit decisions": 8, "Sample: text moderation": 0}, "pages/definitions.py": 0}
# The key under which each page keeps its open secondary section (fairness_dashboard.settings.controls.sections).
SECTIONS = {"pages/rate_disparities.py": "rates:section", "pages/subgroup_aucs.py": "auc:section",
            "pages/calibration.py": "cal:section", "pages/dataset_metrics.py": "dataset:section"}


# An interval as the pages write it under a tile: "95 % CI 0.123–0.568"
# (fairness_dashboard.presentation.formats.ci_text).
CI = re.compile(r"(\d+) % CI (\S+)–(\S+)")


def interval(caption: str) -> tuple[float, float, float]:
    """(level, low, high) of the 'NN % CI a–b' in a caption."""
    found = CI.search(caption)
    assert found, caption
    return float(found.group(1)) / 100, float(found.group(2)), float(found.group(3))


def unescape(markdown: str) -> str:
    """Markdown text as the reader sees it: fairness_dashboard.presentation.escape.md's backslash escapes and zero-width joiners removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u200d", "")


def as_shown(value: float) -> float:
    """`value` as a tile or the interval beside it shows it (fairness_dashboard.presentation.formats.tile: the tiles' one precision policy),
    read back as a number."""
    from fairness_dashboard.presentation import formats

    return float(formats.tile(value).replace(",", ""))


def tile(app, label: str) -> tuple[str, list[str]]:
    """(value, captions) of the st.metric labelled `label` and the captions in its column, or in its own container
    of a row of tiles (``fairness_dashboard.presentation.tiles.row``: the innermost container holding that metric
    alone)."""
    for column in app.columns:
        labels = [m.label for m in column.metric]
        if label in labels:
            return column.metric[labels.index(label)].value, [c.value for c in column.caption]
    for block in app.get("flex_container"):
        if [m.label for m in block.metric] == [label]:
            return block.metric[0].value, [c.value for c in block.caption]
    raise AssertionError(f"no tile {label!r}; tiles: {list(metrics(app))}")


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


def plotly_array(value):
    """A Plotly figure's array as its JSON holds it, as a float array: a list, or a typed array {"dtype", "bdata"
    (base64), "shape"}."""
    import base64

    import numpy as np

    if isinstance(value, dict):
        raw = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        return raw.reshape([int(n) for n in str(value.get("shape", len(raw))).split(",")])
    return np.array(value, dtype=float)


def start() -> AppTest:
    """The app, run once (it opens on the bundled credit sample)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    return at


def scored_table(n_rows: int, seed: int = 0):
    """A generated scored table: a 0/1 label, two probability scores (``score_a`` better than ``score_b``), a
    predicted label (``approved`` = score_a >= 0.5), race (4 values) x sex (2), and two numeric features (age,
    income). Scores are rounded to 4 decimals, so they have ties, as real scores do."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    race = rng.choice(np.array(["White", "Black", "Asian", "Hispanic"]), size=n_rows, p=[0.55, 0.2, 0.1, 0.15])
    sex = rng.choice(np.array(["Female", "Male"]), size=n_rows)
    offset = np.select([race == "Black", race == "Asian", race == "Hispanic"], [-0.3, 0.2, -0.1], 0.0)
    logit = rng.normal(offset, 1.3)
    label = (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    score_a = np.round(1 / (1 + np.exp(-(logit + rng.normal(0, 0.8, n_rows)))), 4)
    score_b = np.round(1 / (1 + np.exp(-(logit + rng.normal(0, 1.2, n_rows)))), 4)
    return pd.DataFrame({"label": label, "score_a": score_a, "score_b": score_b,
                         "approved": (score_a >= 0.5).astype(np.int64), "race": race, "sex": sex,
                         "age": rng.integers(18, 90, n_rows), "income": np.round(rng.lognormal(10, 0.5, n_rows), 2)})


def csv_bytes(frame) -> bytes:
    """`frame` as CSV bytes, written by pyarrow (ten times faster than pandas at a million rows)."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pa_csv

    buffer = io.BytesIO()
    pa_csv.write_csv(pa.Table.from_pandas(frame, preserve_index=False), buffer,
                     write_options=pa_csv.WriteOptions(quoting_style="needed"))
    return buffer.getvalue()


def section_titles(at: AppTest) -> list[str]:
    """The titles of the page's secondary sections: its tabs that are not inside another tab."""
    tabs = list(at.tabs)
    inner = {id(t) for tab in tabs for t in tab.get("tab")}
    return [t.label for t in tabs if id(t) not in inner]


def each_section(at: AppTest, page: str):
    """Open each secondary section of `page` (the page shown) in turn, yielding the open section's title (None, once,
    for a page without sections) after each run; the page is left on its first section."""
    titles = section_titles(at) if page in SECTIONS else []
    if not titles:
        yield None
        return
    open_section(at, SECTIONS[page], titles[0])
    for title in titles:
        if title != titles[0]:
            open_section(at, SECTIONS[page], title)
        yield title
    open_section(at, SECTIONS[page], titles[0], run=False)


def open_section(at: AppTest, name: str, title: str, *, run: bool = True) -> AppTest:
    """Open the secondary section `title` of a page's tabs kept under `name` (e.g. "rates:section") and rerun
    (`run`; without it, the page opens on that section when it is next shown): only the open section is computed
    and drawn (fairness_dashboard.settings.controls.sections)."""
    at.session_state["keep:" + name] = title   # the kept choice, which the page reads when it is next shown
    if run:   # the tabs' own state, on the page shown now
        at.session_state["w:" + name] = title
        at.run()
        assert not at.exception, at.exception
    return at


def count_calls(monkeypatch, module, names) -> Counter:
    """Count the calls of each function `names` of `module` (each still runs), by name."""
    seen = Counter()
    for name in names:
        function = getattr(module, name)

        def counting(*args, _name=name, _function=function, **kwargs):
            seen[_name] += 1
            return _function(*args, **kwargs)

        monkeypatch.setattr(module, name, counting)
    return seen
