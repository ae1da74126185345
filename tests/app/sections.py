"""AppTest helpers for a page's secondary sections: tabs (ui.controls.sections) of which only the open one is
computed and drawn."""

# page -> (the key of its sections, their titles in order; "Compare models" needs two or more score columns)
SECTIONS = {"pages/subgroup_aucs.py": ("auc:section", ["Table", "Compare models"]),
            "pages/calibration.py": ("cal:section", ["Calibration errors", "ECE comparisons", "Compare models"]),
            "pages/dataset_metrics.py": ("dataset:section", ["Tables", "Smoothed EDF", "Consistency"])}


def open_section(at, name: str, title: str) -> None:
    """Open the tab `title` of the sections `name` (e.g. "auc:section") and rerun, as a click on it does."""
    at.session_state["w:" + name] = title
    at.run()
    assert not at.exception and not at.error, (name, title, at.exception, [e.value for e in at.error])


def each_section(at, page: str):
    """Open each secondary section of the current `page` in turn (yielding its title), then the first again (as
    the page opens by default); yield None once for a page without sections."""
    name, titles = SECTIONS.get(page, (None, [None]))
    for title in titles:
        if title is not None:
            open_section(at, name, title)
        yield title
    if name is not None:
        open_section(at, name, titles[0])
