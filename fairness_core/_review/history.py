"""Saved reviews side by side in time: each rule's verdict and each key metric per review, in the order the reviews
were created, and every setting in which their configurations differ (a change of threshold, of subgroups or of
weights moves the numbers as much as a change of the model does, so a history says where one happened)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

import pandas as pd

from .records import REVIEW_SCHEMA

# A review written by an earlier version of this software carries no schema field: it is recognised by its layout.
_LAYOUT = ("context", "models", "dataset", "gate")
MAX_REVIEW_BYTES = 512 * 1024 * 1024   # a saved review is its tables as JSON; a file larger is refused, not read
NOT_A_REVIEW_MESSAGE = ("{name} is not a review saved by fairness_core ({why}). Tip: give the JSON that "
                        "'python -m fairness_core metrics DATA ... --out review.json' writes.")
NEWER_MESSAGE = ("{name} is a review of a layout this version cannot read (schema {got!r}; this version reads "
                 "{schema!r}). Tip: read it with the version that wrote it ({software}).")
TOO_FEW_MESSAGE = "A history needs at least one saved review; none was given."
# The settings compared between reviews, by what they are called in a history's warning.
SETTINGS = ("label", "positive label", "favourable outcome", "thresholds", "subgroups", "minimum size", "weights",
            "slice", "rules", "intervals", "engine")


@dataclass(frozen=True)
class ReviewHistory:
    """Several saved reviews ordered by the time each was created.

    Attributes
    ----------
    reviews : DataFrame
        One row per review, oldest first: ``review`` (its position, 1 first), ``created`` (UTC, ISO 8601),
        ``name`` (the data's file name), ``sha256`` (of the data file; None when not recorded), ``rows`` (rows
        used), ``software``, ``exit_status`` (of its gate; None when it had none), ``file`` (where it was read).
    verdicts : DataFrame
        One row per review, model and rule: ``review, created, model, rule, label, status, value, ci_low, ci_high,
        gating`` (``label``: the rule in words, e.g. "Four-fifths rule ..."); ``model`` is ``'labels'`` for the rule
        about the labels.
    metrics : DataFrame
        One row per review, model and key metric of its ``headline``: ``review, created, model, metric, value``
        (the rate disparities, equalized odds, p% and equal opportunity scores, bias AUC score, overall AUC,
        calibration disparity and the base rate of the labels under model ``'labels'``).
    differences : DataFrame
        One row per review whose configuration differs from the one before it, and setting that differs:
        ``review, created, setting, before, after`` (the values as text); empty when every review was made alike.
    settings : list of dict
        Each review's compared settings (:data:`SETTINGS`), as text, in the order of `reviews`.
    """

    reviews: pd.DataFrame
    verdicts: pd.DataFrame
    metrics: pd.DataFrame
    differences: pd.DataFrame
    settings: list = field(repr=False)

    def to_dict(self) -> dict:
        """The history as JSON-ready data: ``{"schema", "reviews", "verdicts", "metrics", "differences"}``, each
        table as ``{"columns": [...], "rows": [...]}`` (:func:`table_data`)."""
        from .export import table_data

        return {"schema": "fairness_core.review_history/1", "reviews": table_data(self.reviews),
                "verdicts": table_data(self.verdicts), "metrics": table_data(self.metrics),
                "differences": table_data(self.differences)}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False, allow_nan=False)


def read_review(path) -> dict:
    """A saved review's JSON, checked to be one.

    Parameters
    ----------
    path : str or Path
        A file written by ``python -m fairness_core metrics ... --out FILE`` (``Review.to_json``).

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        When the file cannot be read, is not UTF-8 JSON, is larger than ``MAX_REVIEW_BYTES``, is not a review
        (no ``schema`` field ``'fairness_core.review/1'`` nor, for a review of an earlier version, its layout:
        ``context`` with ``created`` and ``configuration``, ``models``, ``dataset``, ``gate``), or is a review
        of a newer layout (``schema`` ``'fairness_core.review/2'`` ...). Each message is one line.
    """
    name = repr(str(path))
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_REVIEW_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{name} cannot be read: {exc.strerror or exc}.") from None
    if len(raw) > MAX_REVIEW_BYTES:
        raise ValueError(NOT_A_REVIEW_MESSAGE.format(name=name, why=f"larger than {MAX_REVIEW_BYTES >> 20} MiB"))
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError(NOT_A_REVIEW_MESSAGE.format(name=name, why="not JSON text")) from None
    if not isinstance(data, dict):
        raise ValueError(NOT_A_REVIEW_MESSAGE.format(name=name, why="its JSON is not an object"))
    schema = data.get("schema")
    context = data.get("context")
    software = context.get("software", "another version") if isinstance(context, dict) else "another version"
    if isinstance(schema, str) and schema.startswith("fairness_core.review/") and schema != REVIEW_SCHEMA:
        raise ValueError(NEWER_MESSAGE.format(name=name, got=schema, schema=REVIEW_SCHEMA, software=software))
    if schema is not None and schema != REVIEW_SCHEMA:
        raise ValueError(NOT_A_REVIEW_MESSAGE.format(name=name, why=f"its schema is {str(schema)[:60]!r}"))
    missing = [k for k in _LAYOUT if k not in data]
    if not missing and not (isinstance(context, dict) and isinstance(context.get("configuration"), dict)
                            and isinstance(context.get("created"), str) and isinstance(data.get("models"), list)):
        missing = ["context.created", "context.configuration"]
    if missing:
        raise ValueError(NOT_A_REVIEW_MESSAGE.format(
            name=name, why=f"no {REVIEW_SCHEMA!r} schema, and no {', '.join(missing)}"))
    return data


def review_history(reviews: Sequence[Any]) -> ReviewHistory:
    """Saved reviews side by side in time: verdicts per rule, key metrics, and where configurations differ.

    The reviews are ordered by the time each records (``context.created``, UTC; ties keep the order given). Each
    review's settings that move its numbers (:data:`SETTINGS`: the label and its positive value, the favourable
    outcome, the thresholds, the subgroups (protected attributes, identity columns, intersection, binning), the
    minimum size, the weight column, the slice, the policy rules' options, the intervals and the engine) are
    compared with the review's before it; each one that differs is a row of ``differences``, so a chart that moves
    is not read as the model's change when the review's configuration changed.

    Parameters
    ----------
    reviews : sequence of (str, Path or dict)
        Files written by ``python -m fairness_core metrics ... --out FILE``, or their JSON already read
        (``Review.to_dict()``).

    Returns
    -------
    ReviewHistory

    Raises
    ------
    ValueError
        With no review, or as :func:`read_review` for a file that is not a saved review.
    """
    if not len(reviews):
        raise ValueError(TOO_FEW_MESSAGE)
    loaded = []
    for position, item in enumerate(reviews):
        if isinstance(item, dict):
            data, file = item, None
        else:
            data, file = read_review(item), str(item)
        loaded.append((str(data["context"]["created"]), position, data, file))
    loaded.sort(key=lambda entry: (_instant(entry[0]), entry[1]))
    rows, verdicts, metrics, settings = [], [], [], []
    for number, (created, _, data, file) in enumerate(loaded, start=1):
        context, source = data["context"], data["context"].get("source") or {}
        rows.append({"review": number, "created": created, "name": source.get("name"), "sha256": source.get("sha256"),
                     "rows": source.get("rows_used"), "software": context.get("software"),
                     "exit_status": data.get("exit_status"), "file": file})
        entries = [("labels", v) for v in data["dataset"].get("verdicts", [])]
        entries += [(m["name"], v) for m in data["models"] for v in m.get("verdicts", [])]
        verdicts += [{"review": number, "created": created, "model": model, "rule": v["rule"]["name"],
                      "label": v["rule"].get("label") or v["rule"]["name"], "status": v["status"], "value": _number(v.get("value")), "ci_low": _number(v.get("ci_low")),
                      "ci_high": _number(v.get("ci_high")), "gating": v.get("gating")} for model, v in entries]
        base = data.get("base_rate") or [None]
        metrics.append({"review": number, "created": created, "model": "labels", "metric": "base_rate",
                        "value": _number(base[0])})
        metrics += [{"review": number, "created": created, "model": m["name"], "metric": key,
                     "value": _number(value)} for m in data["models"] for key, value in m.get("headline", {}).items()]
        settings.append(_settings(context))
    differences = [{"review": i + 1, "created": rows[i]["created"], "setting": key, "before": before[key],
                    "after": after[key]}
                   for i, (before, after) in enumerate(zip(settings, settings[1:]), start=1)
                   for key in SETTINGS if before[key] != after[key]]
    return ReviewHistory(
        reviews=pd.DataFrame(rows, columns=["review", "created", "name", "sha256", "rows", "software", "exit_status",
                                            "file"]),
        verdicts=pd.DataFrame(verdicts, columns=["review", "created", "model", "rule", "label", "status", "value",
                                                 "ci_low", "ci_high", "gating"]),
        metrics=pd.DataFrame(metrics, columns=["review", "created", "model", "metric", "value"]),
        differences=pd.DataFrame(differences, columns=["review", "created", "setting", "before", "after"]),
        settings=settings)


def _instant(created: str):
    """The creation time as an instant (a text that is not one sorts after every time, by its text)."""
    try:
        stamp = pd.Timestamp(created)
    except (TypeError, ValueError):
        return (1, pd.Timestamp.max.tz_localize("UTC"), created)
    stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
    return (0, stamp, created)


def _number(value):
    """A JSON cell as a float (``"inf"`` as infinity); None for a missing value."""
    if value is None:
        return None
    if isinstance(value, str):
        return float(value) if value in ("inf", "-inf") else None
    return float(value)


def _settings(context: dict) -> dict:
    """The settings of a saved review that a history compares, each as short text (:data:`SETTINGS`)."""
    config = context.get("configuration") or {}
    mapping, options = config.get("mapping") or {}, config.get("options") or {}
    source = context.get("source") or {}

    def text(value) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    subgroups = {"protected": mapping.get("protected"), "indicators": mapping.get("indicators"),
                 "intersect": mapping.get("intersect"), "n_bins": mapping.get("n_bins"),
                 "indicator_threshold": mapping.get("indicator_threshold")}
    rules = {k: v for k, v in options.items() if k.startswith(("rate_", "cal_", "dataset_", "auc_", "classwise_"))
             or k in ("include_small", "adjust")}
    return {"label": str(mapping.get("label")), "positive label": str(mapping.get("positive_label")),
            "favourable outcome": f"a positive prediction is {mapping.get('positive_outcome')}",
            "thresholds": text(config.get("thresholds") or {}), "subgroups": text(subgroups),
            "minimum size": str(mapping.get("min_size")), "weights": str(mapping.get("weight") or "none"),
            "slice": text(config.get("slice") or []), "rules": text(rules),
            "intervals": text({"ci": options.get("ci"), "n_boot": options.get("n_boot")}),
            "engine": str(source.get("engine") or "rows in memory")}

