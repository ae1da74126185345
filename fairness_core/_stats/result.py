"""The shared base of the result classes: a value (``float(result)``) with its interval fields.

Every ``...Result`` of fairness_core holds one number, ``value``, and most an interval around it:
``ci_low`` and ``ci_high`` (NaN without an interval) at the confidence ``level`` (None without
one). The classes are frozen dataclasses whose own fields, order, ``repr`` and equality are their
public contract, so the shared part is a mixin with no fields of its own: it adds ``float()``.
"""

from __future__ import annotations


class ValueResult:
    """Mixin of the result dataclasses: ``float(result)`` is ``result.value``.

    Attributes
    ----------
    value : float
        Declared by each result class (a dataclass field); read by :meth:`__float__`.
    """

    __slots__ = ()

    def __float__(self) -> float:
        return float(self.value)
