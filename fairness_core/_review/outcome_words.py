"""The words of an outcome, in one place: who was predicted, and who is labelled, what, in the data's own words.

Every sentence that says who was predicted or labelled what (the findings of the library, the app, the
report and the command line) takes its phrases from :func:`outcome_phrases`: from the label column's
name, its positive value, the declared outcome and the optional words of the mapping
(``ColumnMapping.label_words``). Without words the values are written as the data writes them
("were predicted deny = yes", "labelled deny ≠ yes"): readable, and never a verb made up from a column's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional


@dataclass(frozen=True)
class OutcomePhrases:
    """The phrases of one label: who was predicted, and who is labelled, positive or negative.

    Attributes
    ----------
    predicted_positive, predicted_negative : str
        After "were": "predicted deny = yes" / "predicted deny ≠ yes", or the words "denied" / "approved".
    labelled_positive, labelled_negative : str
        After "were" or "people": "labelled deny = yes" / "labelled deny ≠ yes", or "labelled denied" /
        "labelled approved".
    favourable_prediction : str
        The prediction that is favourable for the person (the negative one when ``positive_outcome`` is
        'adverse'), e.g. "predicted deny ≠ yes" or "approved".
    """

    predicted_positive: str
    predicted_negative: str
    labelled_positive: str
    labelled_negative: str
    favourable_prediction: str

    def texts(self) -> dict:
        """The keyword texts of :func:`rate_findings` and :func:`reduction_finding` (``positive_text``,
        ``negative_text``, ``positive_outcome_text``, ``negative_outcome_text``)."""
        return {"positive_text": self.predicted_positive, "negative_text": self.predicted_negative,
                "positive_outcome_text": f"were {self.labelled_positive}",
                "negative_outcome_text": f"were {self.labelled_negative}"}


# The words of findings that know no label (a table or counts without a mapping): positive and negative labels.
NEUTRAL = OutcomePhrases(predicted_positive="predicted positive", predicted_negative="predicted negative",
                         labelled_positive="labelled positive", labelled_negative="labelled negative",
                         favourable_prediction="predicted positive")


def outcome_phrases(label, positive, positive_outcome: str = "favourable",
                    words: Optional[Mapping] = None) -> OutcomePhrases:
    """The phrases every finding uses for the predictions and the labels of one label column.

    Parameters
    ----------
    label : str
        The label column's name, as the data writes it.
    positive : any
        The positive label value (the event the score predicts).
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is good or bad for the person: it decides which prediction is the
        favourable one.
    words : mapping of value text to str, optional
        Words for the label's values (``ColumnMapping.label_words``), e.g. ``{"yes": "denied", "no":
        "approved"}``. The positive value's word says a positive prediction ("were denied"); the word of
        the one other value, when exactly one other is given, a negative one. A value without a word is
        written as the data writes it: the negative side as "deny ≠ yes", which holds whatever the
        number of the label's values and needs none of them.

    Returns
    -------
    OutcomePhrases

    References
    ----------
    Fairlearn user guide, "Fairness in machine learning" (say who is affected, in the domain's words),
    https://fairlearn.org.

    Examples
    --------
    >>> outcome_phrases("deny", "yes", "adverse").texts()["positive_text"]
    'predicted deny = yes'
    >>> p = outcome_phrases("deny", "yes", "adverse", {"yes": "denied", "no": "approved"})
    >>> p.predicted_positive, p.labelled_negative, p.favourable_prediction
    ('denied', 'labelled approved', 'approved')
    """
    words = dict(words or {})
    pos_text = str(positive)   # the value as the data writes it, as the keys of `words`
    others = [v for v in words if v != pos_text]
    neg_key = others[0] if len(others) == 1 else None
    pos_value, neg_value = f"{label} = {pos_text}", f"{label} ≠ {pos_text}"
    pos_word, neg_word = words.get(pos_text), words.get(neg_key)
    predicted_negative = neg_word or f"predicted {neg_value}"
    predicted_positive = pos_word or f"predicted {pos_value}"
    return OutcomePhrases(
        predicted_positive=predicted_positive, predicted_negative=predicted_negative,
        labelled_positive=f"labelled {pos_word or pos_value}", labelled_negative=f"labelled {neg_word or neg_value}",
        favourable_prediction=predicted_negative if positive_outcome == "adverse" else predicted_positive)


def mapping_phrases(mapping) -> OutcomePhrases:
    """:func:`outcome_phrases` of a :class:`ColumnMapping` (its label, positive value, outcome and words).

    Parameters
    ----------
    mapping : ColumnMapping

    Returns
    -------
    OutcomePhrases
    """
    return outcome_phrases(mapping.label, mapping.positive_label, getattr(mapping, "positive_outcome", "favourable"),
                           dict(getattr(mapping, "label_words", ())))


def outcome_words(mapping) -> dict:
    """The words of findings for a mapping: its predictions and labels in the data's own words.

    Parameters
    ----------
    mapping : ColumnMapping

    Returns
    -------
    dict
        ``positive_text``, ``negative_text``, ``positive_outcome_text`` and ``negative_outcome_text``
        (:meth:`OutcomePhrases.texts` of :func:`mapping_phrases`), for :func:`rate_findings` and
        :func:`reduction_finding`: "were predicted deny = yes", "who were labelled deny ≠ yes", or with
        the mapping's ``label_words`` "were denied", "who were labelled approved". A denial is never
        called "positive", and a favourable label is written in its own words too.

    Examples
    --------
    >>> from fairness_core import ColumnMapping
    >>> outcome_words(ColumnMapping(label="deny", positive_label="yes", positive_outcome="adverse"))["positive_text"]
    'predicted deny = yes'
    >>> worded = ColumnMapping(label="deny", positive_label="yes", label_words={"no": "approved", "yes": "denied"})
    >>> outcome_words(worded)["negative_outcome_text"]
    'were labelled approved'
    """
    return mapping_phrases(mapping).texts()
