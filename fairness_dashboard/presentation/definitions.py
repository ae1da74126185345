"""The Metric definitions page's content, loaded from ``fairness_dashboard/definitions.md``, and links to its entries.

The content is a Markdown file (its format is described at its top): every public metric with its formula
(LaTeX for KaTeX, as ``st.latex`` renders it), perfect value, what a disparity in it means for the people
affected, source, and where ``fairness_core`` departs from the source's reference implementation; metrics
grouped into :class:`Family` sections, each shown on one page; and :data:`GUIDE`, a question-driven guide to
choosing metrics in the spirit of the Aequitas fairness tree. This module parses it once, at import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..navigation import TITLES, url
from .labels import RATE_TO_METRIC, metric_spec

SOURCE = Path(__file__).parents[1] / "definitions.md"   # at the package's top, beside measured_coverage.json
PAGES = TITLES  # the app's pages, by their navigation titles
PAGE = "Metric definitions"  # the page that shows the definitions


@dataclass(frozen=True)
class Metric:
    """One metric: how it is computed and how to read it."""

    key: str  # anchor on the page, unique
    name: str  # the field's standard term
    functions: tuple[str, ...]  # public fairness_core names, the main one first
    formula: str  # LaTeX (KaTeX subset)
    perfect: str
    meaning: str  # what a disparity means for the people affected
    source: str
    differs: str = ""  # where we differ from the reference implementation; empty when we don't
    where: str = ""  # where the app shows it, when not simply on its family's page


@dataclass(frozen=True)
class Family:
    """A section of the page: metrics of one kind, shown on one page of the app."""

    key: str
    title: str
    page: str
    intro: str
    metrics: tuple[Metric, ...]


@dataclass(frozen=True)
class Answer:
    """One answer to a guide question: what to look at, and on which page."""

    answer: str
    look_at: str
    metrics: tuple[str, ...]  # Metric keys
    page: str  # one of PAGES, or "" when no single page shows it (look_at then says where)


@dataclass(frozen=True)
class Question:
    """A question of the guide, with a hint and its answers."""

    question: str
    hint: str
    answers: tuple[Answer, ...]


# Parsing --------------------------------------------------------------------------------------------

_HEADING = re.compile(r"^(#{1,2}) (.+?)(?: \{#([a-z0-9-]+)\})?$")
_METRIC_FIELDS = ("functions", "perfect", "meaning", "source", "differs", "where")
_FAMILY_FIELDS = ("page",)
_ANSWER_FIELDS = ("answer", "look at", "metrics", "page")


@dataclass
class _Block:
    """A heading and what follows it up to the next heading: fields, text paragraphs, answers."""

    level: int
    title: str
    key: str
    fields: dict = field(default_factory=dict)
    text: list = field(default_factory=list)
    answers: list = field(default_factory=list)
    line: int = 0


def _blocks(source: str) -> list[_Block]:
    source = re.sub(r"<!--.*?-->", "", source, flags=re.S)
    lines = source.splitlines()
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _HEADING.match(line)
        if heading:
            blocks.append(_Block(len(heading.group(1)), heading.group(2), heading.group(3) or "", line=i + 1))
            i += 1
        elif not line.strip():
            i += 1
        elif not blocks:
            raise ValueError(f"{SOURCE.name}, line {i + 1}: text before the first heading")
        elif line.startswith("```latex"):
            end = lines.index("```", i + 1)
            blocks[-1].fields["formula"] = "\n".join(lines[i + 1:end])
            i = end + 1
        else:  # a paragraph: up to the next blank line
            end = i
            while end < len(lines) and lines[end].strip() and not _HEADING.match(lines[end]):
                end += 1
            _paragraph(blocks[-1], lines[i:end], i + 1)
            i = end
    return blocks


def _paragraph(block: _Block, lines: list[str], number: int) -> None:
    if lines[0].startswith("- answer: "):  # guide answers, one per "- " item with indented fields
        for line in lines:
            if line.startswith("- "):
                block.answers.append({})
                line = line[2:]
            name, _, value = line.strip().partition(": ")
            if name not in _ANSWER_FIELDS or not value:
                raise ValueError(f"{SOURCE.name}, near line {number}: expected one of {_ANSWER_FIELDS}: {line!r}")
            block.answers[-1][name] = value
        return
    joined = " ".join(line.strip() for line in lines)
    name, sep, value = joined.partition(": ")
    if sep and name in (*_METRIC_FIELDS, *_FAMILY_FIELDS):
        if name in block.fields:
            raise ValueError(f"{SOURCE.name}, line {number}: a second {name!r} under {block.title!r}")
        block.fields[name] = value
    else:
        block.text.append(joined)


def _names(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def load(source: str) -> tuple[str, str, tuple[Question, ...], tuple[Family, ...]]:
    """Parse the definitions file's text.

    Parameters
    ----------
    source : str
        The Markdown text (see the format described at the top of ``fairness_dashboard/definitions.md``).

    Returns
    -------
    notation : str
        The notation section's text (Markdown).
    guide_intro : str
        The guide's introduction (Markdown).
    guide : tuple of Question
    families : tuple of Family

    Raises
    ------
    ValueError
        When a metric lacks a required field or the file departs from the format.
    """
    sections: list[tuple[_Block, list[_Block]]] = []
    for block in _blocks(source):
        if block.level == 1:
            sections.append((block, []))
        elif not sections:
            raise ValueError(f"{SOURCE.name}, line {block.line}: an entry before the first section")
        else:
            sections[-1][1].append(block)
    by_key = {head.key: (head, entries) for head, entries in sections}
    notation = "\n\n".join(by_key.pop("notation")[0].text)
    guide_head, questions = by_key.pop("guide")
    guide = tuple(Question(q.title, "\n\n".join(q.text), tuple(
        Answer(a["answer"], a["look at"], _names(a.get("metrics", "")), a.get("page", "")) for a in q.answers))
        for q in questions)
    families = tuple(Family(head.key, head.title, head.fields["page"], "\n\n".join(head.text),
                            tuple(_metric(entry) for entry in entries))
                     for head, entries in by_key.values())
    return notation, "\n\n".join(guide_head.text), guide, families


def _metric(block: _Block) -> Metric:
    f = block.fields
    missing = [name for name in ("functions", "formula", "perfect", "meaning", "source") if not f.get(name)]
    if missing or not block.key:
        raise ValueError(f"{SOURCE.name}, line {block.line}: {block.title!r} lacks {missing or ['a {#key}']}")
    if block.text:
        raise ValueError(f"{SOURCE.name}, line {block.line}: text outside a field under {block.title!r}: "
                         f"{block.text[0][:60]!r}")
    return Metric(block.key, block.title, _names(f["functions"]), f["formula"], f["perfect"], f["meaning"],
                  f["source"], f.get("differs", ""), f.get("where", ""))


NOTATION, GUIDE_INTRO, GUIDE, FAMILIES = load(SOURCE.read_text(encoding="utf-8"))
METRICS: tuple[Metric, ...] = tuple(m for family in FAMILIES for m in family.metrics)
BY_KEY = {m.key: m for m in METRICS}


def metric_key(name: str) -> str:
    """The entry (anchor) of registered metric `name` on the Metric definitions page: the metric registry's
    ``anchor``, e.g. ``metric_key("false_positive_rate")`` is ``"fpr"``."""
    return metric_spec(name).anchor


# A rate's name in fairness_core (group_rates' columns) -> its entry.
RATE_KEYS = {rate: metric_key(metric) for rate, metric in RATE_TO_METRIC.items()}


def definition_link(key: str, label: str = "Definition") -> str:
    """A Markdown link to metric `key`'s entry on the Metric definitions page, for a tile's ``help=``.

    Parameters
    ----------
    key : str
        A metric key (its anchor on the page), e.g. ``"ece"``.
    label : str
        The link text.

    Returns
    -------
    str
        E.g. ``"[Definition](/metric-definitions#ece)"``.

    Raises
    ------
    KeyError
        When no metric has that key, so a mistyped key fails in the tests, not in a reader's browser.
    """
    if key not in BY_KEY:
        raise KeyError(f"no metric definition {key!r}; keys: {', '.join(BY_KEY)}")
    return f"[{label}]({url(PAGE, key)})"
