"""Rules as JSON: rules_to_json and rules_from_json (a list of rule objects, checked)."""

from __future__ import annotations

import json
from typing import Iterable

from .rules import Rule, _check_rules, _check_unique


JSON_MESSAGE = (
    "rules_from_json could not read the text as JSON: {error}. Tip: the text should be a JSON list "
    "of rule objects, as written by rules_to_json."
)
JSON_LIST_MESSAGE = "rules_from_json needs a JSON list of rule objects. Got a JSON {got} instead."
RULE_ITEM_MESSAGE = "rules[{index}] is invalid: {error}"

TEXT_TYPE_MESSAGE = "The 'text' parameter of rules_from_json must be a str. Got {got} instead."


def rules_to_json(rules: Iterable[Rule]) -> str:
    """Serialise rules to a JSON list of rule objects (one per rule, keys ``FIELDS``).

    Parameters
    ----------
    rules : iterable of Rule
        Names must be unique.

    Returns
    -------
    str
        Indented JSON; :func:`rules_from_json` reads it back to equal rules.

    Raises
    ------
    TypeError
        If an item is not a Rule (``RULES_TYPE_MESSAGE``).
    ValueError
        If two rules share a name (``DUPLICATE_NAME_MESSAGE``).

    Examples
    --------
    >>> from fairness_core import DEFAULT_RULES
    >>> rules_from_json(rules_to_json(DEFAULT_RULES)) == list(DEFAULT_RULES)
    True
    """
    checked = _check_rules(rules, "rules_to_json")
    return json.dumps([r.to_dict() for r in checked], indent=2, ensure_ascii=False)


def rules_from_json(text: str) -> list[Rule]:
    """Read rules from JSON text as :func:`rules_to_json` writes it, validating every field.

    Parameters
    ----------
    text : str
        A JSON list of objects, each with the fields of :class:`Rule` (``metric`` and ``bound``
        required).

    Returns
    -------
    list of Rule

    Raises
    ------
    ValueError
        If the text is not JSON (``JSON_MESSAGE``) or not a list (``JSON_LIST_MESSAGE``); if a
        rule is invalid, ``RULE_ITEM_MESSAGE`` gives its index and the field's own message; if two
        rules share a name (``DUPLICATE_NAME_MESSAGE``).

    Examples
    --------
    >>> rules_from_json('[{"metric": "p_percent_score", "bound": 0.8}]')[0].direction
    'min'
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(TEXT_TYPE_MESSAGE.format(got=type(text).__name__))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(JSON_MESSAGE.format(error=error)) from None
    if not isinstance(data, list):
        kind = {dict: "object", str: "string", bool: "boolean", type(None): "null"}.get(type(data), "number")
        raise ValueError(JSON_LIST_MESSAGE.format(got=kind))
    rules = []
    for index, item in enumerate(data):
        try:
            rules.append(Rule.from_dict(item))
        except (ValueError, TypeError) as error:
            raise ValueError(RULE_ITEM_MESSAGE.format(index=index, error=error)) from None
    _check_unique([r.name for r in rules])
    return rules
