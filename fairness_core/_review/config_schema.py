"""The declared schema of a review configuration: every field's type and bounds, checked in one place.

A configuration reaches the library from a file, a ``?review=`` link or the command line, so every
number that sizes a computation (bins, resamples, neighbours, the rows of a sample) has a bound
here, checked before anything is applied or computed (:func:`check_config`). The bounds are those
of the dashboard's widgets, which read them from here, so a restored configuration always fits
the widget that shows it. The schema is JSON Schema (draft 2020-12), validated by the
``jsonschema`` library; a number must also be finite (JSON's ``NaN`` and ``Infinity`` are refused).
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from typing import Any, Optional

from .._disparity.compare import ADJUSTMENTS, DISTANCES
from .._counts.rates import RATE_NAMES
from .suggest import MEASURES

# Bounds of the numbers that size a computation (the dashboard's widgets use the same).
CAL_BINS = (2, 50)            # calibration bins: cost grows with bins x subgroups x resamples
ATTRIBUTE_BINS = (2, 20)      # quantile bins of a numeric protected attribute
N_BOOT = (100, 10_000)        # bootstrap resamples
NEIGHBORS = (1, 50)           # kNN consistency's neighbours
POWER_P = (-50.0, 50.0)       # the bias AUC score's power mean exponent
MAX_COUNT = 1_000_000_000     # any other count (a minimum size, a sample's rows)
MAX_ITEMS = 10_000            # columns, slice conditions, thresholds or values listed
MAX_CONFIG_BYTES = 512 * 1024  # bytes of a configuration's JSON text (a file, a link or a report's embedded copy)
MAX_VALUES = 25_000           # values (objects, arrays, texts, numbers) in a whole configuration
MAX_DEPTH = 32                # levels of nesting
MAX_PROBLEMS = 3              # validation stops after this many problems (each says its field)
MAX_WORD = 80                 # characters of a word for a label's value (mapping.label_words)

#: (smallest, largest) of each bounded number of a configuration, by its ReviewConfig or ColumnMapping field name
#: (of ``label_words``: the characters of one word).
CONFIG_BOUNDS = {"cal_n_bins": CAL_BINS, "n_bins": ATTRIBUTE_BINS, "n_boot": N_BOOT,
                 "consistency_neighbors": NEIGHBORS, "auc_p": POWER_P, "label_words": (0, MAX_WORD)}

_NUMBER = {"type": "number"}
_TEXT = {"type": "string"}
_TEXTS = {"type": "array", "items": _TEXT, "maxItems": MAX_ITEMS}
_SHARE = {"type": "number", "minimum": 0, "maximum": 1}
_COUNT = {"type": "integer", "minimum": 1, "maximum": MAX_COUNT}
_SCALAR = {"not": {"type": ["object", "array"]}}   # text, a number, a boolean or null (numpy's too)
_REFERENCE = {"anyOf": [_TEXT,   # a keyword ('rest', 'overall', 'pairwise') or a subgroup's name
                        {"type": "object", "properties": {"subgroup": _TEXT}, "required": ["subgroup"],
                         "additionalProperties": False}]}
_REDUCTION = {"enum": ["max", "mean"]}


def _between(kind: str, bounds: tuple) -> dict:
    return {"type": kind, "minimum": bounds[0], "maximum": bounds[1]}


def _optional(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["mapping"],
    "additionalProperties": False,
    "properties": {
        "version": {"const": 1},
        "mapping": {
            "type": "object", "required": ["label", "positive_label"], "additionalProperties": False,
            "properties": {
                "label": _TEXT, "positive_label": _SCALAR, "scores": _TEXTS, "predicted_label": _optional(_TEXT),
                "protected": _TEXTS, "indicators": _TEXTS, "intersect": {"type": "boolean"},
                "min_size": _COUNT, "n_bins": _between("integer", ATTRIBUTE_BINS),
                "indicator_threshold": _NUMBER, "all_classes": {"type": "boolean"},
                "positive_outcome": {"enum": ["favourable", "adverse"]}, "weight": _optional(_TEXT),
                "time": _optional(_TEXT),   # the time column of over_time
                # words for the label's values, by the value as text: {"yes": "denied", "no": "approved"}
                "label_words": {"type": "object", "maxProperties": MAX_ITEMS,
                                "additionalProperties": {"type": "string", "maxLength": MAX_WORD}},
            },
        },
        "slice": {
            "type": "array", "maxItems": MAX_ITEMS,
            "items": {"type": "object", "required": ["column"], "additionalProperties": False,
                      "properties": {"column": _TEXT, "values": {"type": "array", "items": _SCALAR, "maxItems": MAX_ITEMS},
                                     "low": _optional(_NUMBER), "high": _optional(_NUMBER)}},
        },
        "thresholds": {"type": "object", "additionalProperties": _NUMBER, "maxProperties": MAX_ITEMS},
        "subgroup_thresholds": {"type": "object", "maxProperties": MAX_ITEMS,
                                "additionalProperties": {"type": "object", "additionalProperties": _NUMBER,
                                                         "maxProperties": MAX_ITEMS}},
        "options": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "baseline": _optional(_TEXT),
                "include_small": {"type": "boolean"},
                "ci": _optional({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}),
                "n_boot": _between("integer", N_BOOT),
                "adjust": {"enum": list(ADJUSTMENTS)},
                "auc_p": _between("number", POWER_P),
                "auc_weight": _SHARE,
                "auc_min_score": _optional(_SHARE),
                "rate_metrics": {"type": "array", "maxItems": len(RATE_NAMES) + 1,
                                 "items": {"enum": list(RATE_NAMES) + ["statistical_parity"]},
                                 "minItems": 1, "uniqueItems": True},
                "rate_distance": {"enum": list(DISTANCES)},
                "rate_reduction": _REDUCTION,
                "rate_reference": _REFERENCE,
                "rate_max_difference": _SHARE,
                "cal_n_bins": _between("integer", CAL_BINS),
                "cal_strategy": {"enum": ["uniform", "quantile"]},
                "cal_min_per_group": _COUNT,
                "cal_distance": {"enum": list(DISTANCES)},
                "cal_reduction": _REDUCTION,
                "cal_reference": _REFERENCE,
                "cal_bound": _optional({"type": "number", "minimum": 0}),
                "dataset_distance": {"enum": list(DISTANCES)},
                "dataset_reduction": _REDUCTION,
                "dataset_reference": _REFERENCE,
                "dataset_max_difference": _SHARE,
                "dataset_concentration": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e6},
                "classwise_metric": {"enum": ["recall", "precision", "fscore"]},
                "classwise_reduction": {"enum": ["std", "absolute_difference", "difference"]},
                "classwise_subgroups": {"type": "array", "items": _TEXT, "maxItems": 2},
                "consistency_features": _TEXTS,
                "consistency_neighbors": _between("integer", NEIGHBORS),
                "consistency_sample": _optional(_COUNT),
                "gate_rules": _TEXTS,
                "gate_strict": {"type": "boolean"},
                "gate_labels": {"type": "boolean"},
                "max_worsening": {"type": "number", "minimum": 0, "maximum": 1},   # AUCs, rates, ECEs: in [0, 1]
                "suggest_measure": _optional({"enum": list(MEASURES)}),
            },
        },
        "view": {"type": "object", "maxProperties": MAX_ITEMS},
    },
}


@functools.cache
def _validator():
    """A draft 2020-12 validator whose numbers are finite (JSON Schema's own accept NaN and infinities)."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine_many({
        "number": lambda _, v: (isinstance(v, numbers.Real) and not isinstance(v, bool)
                                and math.isfinite(float(v))),
        "integer": lambda _, v: (isinstance(v, numbers.Integral) and not isinstance(v, bool)) or (
            isinstance(v, float) and math.isfinite(v) and v.is_integer()),
    })
    return jsonschema.validators.extend(base, type_checker=checker)(SCHEMA)


def size_problem(data: Any) -> Optional[str]:
    """Why `data` is too large or too deep to be a configuration, or None; the first such field is named.

    Checked before the schema (:func:`problems`), walking at most ``MAX_VALUES`` values: the schema's
    validator checks every item of an array even after its ``maxItems`` failed, so an array of millions
    of items cost minutes and gigabytes before this check.

    Parameters
    ----------
    data : any
        A configuration as JSON-ready data.

    Returns
    -------
    str or None
        E.g. ``"slice.0.values: 3,000,000 items; a configuration lists at most 10,000"``.
    """
    stack, seen = [(data, "", 0)], 1
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, (list, tuple)):
            items = enumerate(value)
        else:
            continue
        where = path or "the configuration"
        if len(value) > MAX_ITEMS:
            return f"{where}: {len(value):,} items; a configuration lists at most {MAX_ITEMS:,}"
        if depth >= MAX_DEPTH:
            return f"{where}: nested more than {MAX_DEPTH} levels deep"
        seen += len(value)
        if seen > MAX_VALUES:
            return f"the configuration holds more than {MAX_VALUES:,} values (counted up to {where})"
        stack.extend((item, f"{path}.{key}" if path else str(key), depth + 1) for key, item in items)
    return None


def problems(data: Any) -> list[str]:
    """How `data` departs from :data:`SCHEMA`: its first few problems, one text each, naming the field first.

    The size is checked first (:func:`size_problem`), then the schema, which stops after
    ``MAX_PROBLEMS`` problems: a configuration of any content is answered in milliseconds.

    Parameters
    ----------
    data : any
        A configuration as JSON-ready data (``ReviewConfig.to_dict``'s form).

    Returns
    -------
    list of str
        Empty when `data` is valid; else at most ``MAX_PROBLEMS`` texts, e.g. ``"options.cal_n_bins:
        10000000 is greater than the maximum of 50"``, in the order of the fields' paths.
    """
    too_large = size_problem(data)
    if too_large is not None:
        return [too_large]
    try:
        errors = sorted(itertools.islice(_validator().iter_errors(data), MAX_PROBLEMS),
                        key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:
        return ["the configuration is nested too deeply"]
    out = []
    for error in errors:
        where = ".".join(str(p) for p in error.absolute_path) or "the configuration"
        message = error.message if len(error.message) <= 160 else error.message[:160] + "..."
        if error.validator in ("type", "anyOf", "oneOf") and isinstance(error.instance, float) \
                and not math.isfinite(error.instance):
            message = f"{error.instance} is not a finite number"
        out.append(f"{where}: {message}")
    return out
