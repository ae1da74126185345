# More than 500 lines: one concept (the command line: its arguments, their checks, the in-memory and engine reviews and the exit status), whose help text is most of it.
"""Command line: ``python -m fairness_core report|metrics DATA ...`` (see ``--help``), ``history REVIEW.json ...``
(saved reviews side by side in time: :func:`fairness_core.review_history`), and ``app``, which serves the
dashboard (:mod:`fairness_dashboard.launch`: this process becomes ``python -m streamlit run``).

Exit status (the release gate): 0 when every gating verdict passes, 1 when one fails (with ``--strict``
also when one is inconclusive or not assessable). The gating verdicts are the rules of the models and, with
``--baseline``, each other model's changes from the baseline judged against ``--max-worsening`` (or what
``--gate`` names: rules, ``changes``, ``changes:<quantity>``; the rules about the labels only when named or with
``--gate-labels``); with ``--gate-period latest``, the rules of the latest period of ``--time`` instead. Subgroups
found by ``--discover`` never gate. Each gating verdict that is not a pass is a line on stderr, fails first
(``--quiet``: only those that set the status to 1). 2 for bad input or usage, 3 for an internal error. The review
comes from :func:`fairness_core.build_review`, the builder behind the app's exports.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

# Distinct scores that --auc-bins exact may bring into memory (as the app's MAX_EXACT_LEVELS): with more (counted
# by one query, before any table of levels is built) every AUC is from DEFAULT_AUC_BINS bins, said in the review.
MAX_EXACT_LEVELS = 2_000_000
DEFAULT_AUC_BINS = 10_000   # --auc-bins, and the bins of every AUC when a score has more distinct scores than the above
DUCKDB_MAGIC = b"DUCK"   # bytes 8-11 of a DuckDB database file
# A size DuckDB's memory_limit reads: a number with a unit (KB, MiB, G ...) or a share of the machine's memory (%).
MEMORY_SIZE = re.compile(r"^\s*\d+(\.\d+)?\s*(%|[KMGT]i?B?)\s*$", re.IGNORECASE)

EXAMPLES = """examples:
  python -m fairness_core report compas.csv --label two_year_recid --score decile_score \\
      --protected race --threshold 5 --out compas-review.html
  python -m fairness_core metrics jigsaw.csv --label toxicity --positive 1 --score TOXICITY@1 \\
      --score TOXICITY@6 --identity gay --identity muslim --json
  python -m fairness_core metrics compas.csv --config review-config.json --strict --out review.json
  python -m fairness_core metrics loans.csv --label default --score current --score candidate \\
      --protected race --baseline current --max-worsening 0.02 --gate four_fifths,equalized_odds --out review.json
  python -m fairness_core report 'logs/*.parquet' --engine duckdb --auc-bins 10000 --label y --positive 1 \\
      --score score --protected race --protected sex --out logs-review.html
  python -m fairness_core metrics warehouse.duckdb --table predictions --engine duckdb --label y --score p \\
      --protected region --out review.json
  python -m fairness_core metrics hdfs:///logs/2026-11/ --engine spark --spark-master yarn --label y \\
      --positive 1 --score score --protected race --out review.json
  python -m fairness_core app --port 8502 --data-root /data/logs

  python -m fairness_core metrics credit.csv --label repaid --positive 1 --score score_boosting --protected sex \\
      --discover sex age_group ethnicity --time decision_date --period quarter --gate-period latest --out review.json

exit status: 0 every gating rule (and, with --baseline, every change) passes, 1 one fails (--strict: or is
  inconclusive), 2 bad input or usage, 3 an internal error; each gating verdict that is not a pass is a line on
  stderr, fails first (--quiet: only the lines that set the status to 1)
"""

HISTORY_EXAMPLES = """examples:
  python -m fairness_core history reviews/2026-*.json --out history.html
  python -m fairness_core history january.json february.json march.json --json --out history.json

exit status: 0 the history is written, 2 a file that is not a saved review (or cannot be read or written)
"""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit status 2), as every other bad input."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def _prog() -> str:
    """How the command was called: ``fairness-core`` (the installed console command) or ``python -m fairness_core``."""
    return "fairness-core" if Path(sys.argv[0]).name == "fairness-core" else "python -m fairness_core"


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m fairness_core`` (installed: the ``fairness-core`` command)."""
    from ._counts.rates import RATE_NAMES
    from ._review.discovery import SCORE_QUANTITIES
    from ._review.suggest import MEASURES
    from .engines._limits import default_memory_limit

    discover_quantities = list(RATE_NAMES) + list(SCORE_QUANTITIES)

    main = _Parser(
        prog=_prog(), formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES,
        description="Assess a model's scored data for disparities between subgroups: the same review as the "
                    "fairness dashboard, as an HTML report or JSON, with an exit status that can gate a release; "
                    "or serve the dashboard itself (app).")
    commands = main.add_subparsers(dest="command", required=True, metavar="{report,metrics,history,app}")
    for name, text in (("report", "write the self-contained HTML report (charts work offline)"),
                       ("metrics", "write every table, finding and verdict as JSON")):
        sub = commands.add_parser(name, help=text, description=text, epilog=EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.add_argument("data", metavar="DATA",
                         help="a CSV or Parquet file of scored rows (with --engine: a path, folder or glob, e.g. "
                              "'logs/*.parquet'; with --engine spark also a URI, e.g. hdfs:///logs/2026-11/)")
        sub.add_argument("--label", help="the true label column")
        sub.add_argument("--positive", metavar="VALUE",
                         help="the label value that counts as positive (default: guessed, e.g. 1, yes, >50K)")
        sub.add_argument("--score", action="append", default=[], metavar="COL",
                         help="a model score column (repeat for several models)")
        sub.add_argument("--predicted", metavar="COL", help="a column of given predicted labels")
        sub.add_argument("--protected", action="append", default=[], metavar="COL",
                         help="a protected attribute column (repeat; values are intersected)")
        sub.add_argument("--identity", action="append", default=[], metavar="COL",
                         help="an identity indicator column, 0/1 or a share (repeat; subgroups may overlap)")
        sub.add_argument("--threshold", action="append", default=[], metavar="X or COL=X",
                         help="decision threshold (predictions: score >= X) for every score, or COL=X for one "
                              "(default: 0.5 for probabilities, else the middle of the range)")
        sub.add_argument("--weight", metavar="COL",
                         help="a column of sample weights (survey or importance weights, finite and >= 0): every "
                              "count is then a sum of weights and every size an effective sample size")
        sub.add_argument("--min-size", type=int, metavar="N", help="subgroups with fewer rows are small (default 30)")
        sub.add_argument("--config", metavar="FILE",
                         help="a review configuration saved from the app (JSON); flags given override it")
        sub.add_argument("--no-intervals", action="store_true", help="compute no confidence intervals (faster)")
        sub.add_argument("--strict", action="store_true",
                         help="exit 1 also when a gating verdict is inconclusive or not assessable: a rule whose "
                              "interval straddles its bound and, with --baseline, every change whose interval "
                              "straddles --max-worsening (at a few thousand rows most changes do, so --strict then "
                              "fails most candidates; gate fewer changes with --gate)")
        sub.add_argument("--quiet", action="store_true",
                         help="print on stderr only the lines of the gating verdicts that set the exit status to 1 "
                              "(and errors): no notes, suggestions, verdicts that do not gate or tally")
        sub.add_argument("--gate-labels", action="store_true",
                         help="let the rules about the labels (base-rate disparity: a property of the data, which "
                              "no model can change) decide the exit status too; by default they are reported only")
        sub.add_argument("--gate", action="append", default=[], metavar="NAME[,NAME...]",
                         help="what decides the exit status: rules by rule name or metric (e.g. "
                              "four_fifths,equalized_odds; the report and stderr list the names), 'changes' (every "
                              "change from --baseline) or 'changes:QUANTITY' (e.g. changes:bpsn_auc, "
                              "changes:false_positive_rate); what is not named is reported, not gating. Default: "
                              "every rule of the models and every change. A rule about the labels named here gates "
                              "too")
        sub.add_argument("--baseline", metavar="COL",
                         help="a score column (given with --score) the other scores are compared with on the same "
                              "rows: a candidate fails when a rate disparity, ratio score, subgroup/BPSN/BNSP AUC or "
                              "subgroup ECE is worse than the baseline's by more than its tolerance (--max-worsening; "
                              "twice it for a ratio score) across its paired interval, passes when the whole "
                              "interval is within it, else is inconclusive")
        sub.add_argument("--max-worsening", type=float, metavar="X",
                         help="with --baseline: the non-inferiority margin, the largest worsening that still "
                              "counts as no worse than the baseline (default 0.01), in the units of a difference of "
                              "rates: as given for a rate disparity, an AUC or an ECE, twice it for the p%% and equal "
                              "opportunity scores (ratios of rates, which move about twice as much as the rates' "
                              "difference at rates near 0.5); each verdict states its tolerance. A change passes "
                              "when its whole paired interval is within it (its high end at the review's level, "
                              "95 %% unless a --config says otherwise: a pass must hold for every change), fails "
                              "when its whole interval is above it (its low end a joint bound over the changes, so an "
                              "equal candidate fails with a chance of at most 2.5 %%)")
        sub.add_argument("--suggest-threshold", metavar="MEASURE",
                         choices=list(MEASURES),
                         help="for each score, the thresholds where every rate rule passes with its whole interval "
                              "and the one among them that best keeps MEASURE (balanced_accuracy or accuracy: the "
                              "highest; recall, precision or selection_rate: the closest to its value at the "
                              "current threshold), one line each on stderr and in the output")
        sub.add_argument("--discover", action="extend", nargs="+", default=[], metavar="COL",
                         help="search these columns (protected attributes or any other; a numeric column of many "
                              "values is cut into quantile bins) for the intersections of values each model treats "
                              "worst: each score at its threshold, or the given predictions, with the review's "
                              "weights, favourable outcome and --min-size. The search ranks them on a random half "
                              "of the rows (seed 0) and each subgroup found is estimated on the other half, its "
                              "difference from the rest with an interval, Benjamini-Hochberg over those found. "
                              "Findings to look at, not rules: they never change the exit status")
        sub.add_argument("--discover-quantity", metavar="NAME", choices=discover_quantities,
                         help="with --discover: the quantity compared (a rate; an AUC or the calibration error of each score), "
                              + ", ".join(discover_quantities)
                              + " (default selection_rate)")
        sub.add_argument("--discover-depth", type=int, choices=[1, 2, 3], metavar="N",
                         help="with --discover: the most columns intersected, 1 to 3 (default 2)")
        sub.add_argument("--time", metavar="COL",
                         help="a column of times (dates, datetimes, ISO 8601 text): the rate rules and the rule "
                              "about the labels per --period, each with its interval, verdict and sizes, the trend "
                              "of each rule and the first period it failed with its whole interval (thresholds: "
                              "those of every row). A --config whose mapping has a time column does the same")
        sub.add_argument("--period", choices=["day", "week", "month", "quarter"],
                         help="with --time: the calendar period, in the times' own zone (weeks end on Sunday; "
                              "default month)")
        sub.add_argument("--gate-period", choices=["latest"],
                         help="with --time: the exit status follows the latest period's rules only (its rate rules "
                              "and, with --gate-labels, its rule about the labels; AUC and calibration rules and the "
                              "rules of every row are reported, not gating), said on stderr and in the output")
        sub.add_argument("--outcome", choices=["favourable", "adverse"],
                         help="whether a positive prediction is favourable or adverse for the person (deny, "
                              "default, flag as high risk: adverse); the four-fifths rule, the p%% and equal "
                              "opportunity scores and the Theil index compare the favourable prediction (default: "
                              "guessed from the label's name and positive value, and said on stderr)")
        sub.add_argument("--engine", choices=["duckdb", "spark", "polars"],
                         help="compute the counts where the data lives instead of loading it: DuckDB (out of core), "
                              "Spark (the active session under spark-submit, else one on --spark-master) or polars "
                              "(streaming); intervals from the counts' atoms (one more pass per table; with more "
                              "membership patterns than the engines' bound, the review without intervals, saying "
                              "why), no consistency. With spark, DATA may be any URI Spark reads (hdfs://, s3a://, "
                              "abfss://, gs://, file://), given to it without a local check")
        sub.add_argument("--spark-master", metavar="URL",
                         help="with --engine spark: the master of the Spark session started here, e.g. "
                              "spark://host:7077, yarn or local[4] (default: the SPARK_MASTER environment variable, "
                              "else local[*]); under spark-submit the session it started (its --master) is used")
        sub.add_argument("--table", metavar="NAME",
                         help="with --engine duckdb: DATA is a DuckDB database file (opened read-only) and NAME a "
                              "table or view in it")
        sub.add_argument("--auc-bins", metavar="N or exact",
                         help="with --engine: score bins of the AUCs (each AUC within its reported max_binning_error "
                              f"of the exact one), at most {MAX_EXACT_LEVELS:,}, or 'exact' (a score column with "
                              f"more distinct scores than that: every AUC from {DEFAULT_AUC_BINS} bins instead, said "
                              f"in the review; default {DEFAULT_AUC_BINS})")
        sub.add_argument("--memory-limit", metavar="SIZE",
                         help="with --engine duckdb: the most memory DuckDB may use, e.g. 4GB, 512MiB or 25%% "
                              "(beyond it, it spills to disk in its temporary directory); default: half of this "
                              "machine's memory, or of its container's (cgroup) limit when lower, here "
                              f"{default_memory_limit()}, leaving the rest for the review and other programs")
        sub.add_argument("--threads", type=int, metavar="N",
                         help="with --engine duckdb: the threads DuckDB computes with (default: one per core)")
        sub.add_argument("--out", metavar="FILE", required=name == "report",
                         help="where to write" + (" the HTML report" if name == "report" else " (default: stdout)"))
        if name == "metrics":
            sub.add_argument("--json", action="store_true", help="JSON output (the default and only format)")
    text = ("compare saved reviews (the JSON of metrics) in time: each rule's verdict and each key metric side by "
            "side, in the order they were created, with a warning wherever their configurations differ")
    history = commands.add_parser("history", help=text, description=text, epilog=HISTORY_EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    history.add_argument("reviews", nargs="+", metavar="REVIEW.json",
                         help="reviews written by 'metrics ... --out FILE' (any order: they are ordered by the time "
                              "each was created)")
    history.add_argument("--out", metavar="FILE",
                         help="where to write the HTML page (with --json: the JSON; default: stdout)")
    history.add_argument("--json", action="store_true",
                         help="write the history as JSON (its tables) instead of the HTML page")
    text = ("serve the interactive dashboard with its settings (.streamlit/config.toml beside its entry script) "
            "until Ctrl-C; needs this project's 'app' extra")
    app = commands.add_parser("app", help=text, description=text)
    app.add_argument("--port", type=int, metavar="N", help="the port to listen on (default 8501)")
    app.add_argument("--address", metavar="A",
                     help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
                          "interface, as a container whose port is published needs)")
    app.add_argument("--data-root", action="append", default=[], metavar="DIR",
                     help="a directory whose files the Data page's 'Data on this machine' may read (repeat for "
                          "several; sets FAIRNESS_LOCAL_DATA). Default: none, unless FAIRNESS_LOCAL_DATA is set")
    return main


def _config(args, frame):
    import dataclasses

    from ._data.mapping_guess import guess_outcome, guess_positive
    from ._review.config import ReviewConfig
    from ._data.columns import ColumnMapping

    base = _base_config(args)
    mapping = base.mapping if base is not None else None
    label = args.label or (mapping.label if mapping else None)
    if label is None:
        raise ValueError("Give the label column with --label (or a --config that has one).")
    if label not in frame.columns:
        raise ValueError(f"The label column {label!r} is not in the data. Columns: {', '.join(map(str, frame.columns))}.")
    values = sorted(frame[label].dropna().unique().tolist(), key=str)
    if args.positive is not None:
        matches = [v for v in values if str(v) == args.positive]
        if not matches:
            raise ValueError(f"The positive value {args.positive!r} does not occur in {label!r}; its values: "
                             f"{', '.join(map(str, values[:20]))}.")
        positive = matches[0]
    elif mapping is not None and args.label is None:
        positive = mapping.positive_label
    else:
        positive = guess_positive(values)
    if args.outcome is not None:
        outcome = args.outcome
    elif mapping is not None and args.label is None and args.positive is None:
        outcome = mapping.positive_outcome
    else:
        outcome, why = guess_outcome(label, positive)
        if why and not args.quiet:
            print(f"note: a positive prediction ({label} = {positive}) is taken as adverse for the person, because "
                  f"{why}; give --outcome favourable if it is not.", file=sys.stderr)
    fields = dict(label=label, positive_label=positive, positive_outcome=outcome)
    if mapping is not None and label != mapping.label:
        fields["label_words"] = ()   # the configuration's words name another column's values
    for flag, key in (("score", "scores"), ("protected", "protected"), ("identity", "indicators")):
        if getattr(args, flag):
            fields[key] = tuple(getattr(args, flag))
    if args.predicted:
        fields["predicted_label"] = args.predicted
    if args.min_size is not None:
        fields["min_size"] = args.min_size
    if args.weight:
        fields["weight"] = args.weight
    if args.time:
        if args.time not in frame.columns:
            raise ValueError(f"--time {args.time!r} is not a column of the data. Columns: "
                             f"{', '.join(map(str, frame.columns))}.")
        fields["time"] = args.time
    mapping = dataclasses.replace(mapping, **fields) if mapping is not None else ColumnMapping(**fields)
    thresholds = dict(base.thresholds) if base is not None else {}
    for item in args.threshold:
        column, _, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"--threshold {item!r}: expected a number X or COL=X.") from None
        if not math.isfinite(number):
            raise ValueError(f"--threshold {item!r}: expected a finite number X or COL=X (predictions are score >= X).")
        if not mapping.scores:
            raise ValueError(f"--threshold {item!r} applies to score columns, and none is given: add --score COL.")
        if column and column not in mapping.scores:
            raise ValueError(f"--threshold {item!r}: {column!r} is not a score column (scores: "
                             f"{', '.join(map(repr, mapping.scores))}). Tip: give COL=X for a column named with "
                             "--score, or X alone for every score.")
        for score in ([column] if column else mapping.scores):
            thresholds[score] = number
    config = base if base is not None else ReviewConfig(mapping=mapping)
    config = dataclasses.replace(config, mapping=mapping, thresholds=tuple(thresholds.items()))
    if args.no_intervals:
        config = dataclasses.replace(config, ci=None)
    gate = {}
    if args.gate:
        gate["gate_rules"] = tuple(n.strip() for item in args.gate for n in item.split(",") if n.strip())
    if args.baseline is not None:
        if args.baseline not in mapping.scores:
            raise ValueError(f"--baseline {args.baseline!r} is not a score column (scores: "
                             f"{', '.join(map(repr, mapping.scores)) or 'none'}). Tip: give it with --score too.")
        if len(mapping.scores) < 2:   # a gate whose candidate column went missing must not pass by default
            raise ValueError(f"--baseline {args.baseline!r} is the only score column, so there is no candidate to "
                             "compare with it. Tip: give the candidate's column with --score too.")
        gate["baseline"] = args.baseline
    if args.max_worsening is not None:
        gate["max_worsening"] = args.max_worsening
    if args.strict:
        gate["gate_strict"] = True
    if args.gate_labels:
        gate["gate_labels"] = True
    if args.suggest_threshold is not None:
        gate["suggest_measure"] = args.suggest_threshold
    return dataclasses.replace(config, **gate) if gate else config


def _base_config(args):
    """The ``--config`` review configuration (None without one), read and checked once, before any data is read:
    a configuration refused starts no reading thread (Arrow's thread pools, torn down at exit, could abort)."""
    if not args.config:
        return None
    cached = getattr(args, "_base_config", None)
    if cached is None:
        from ._review.config import ReviewConfig

        cached = ReviewConfig.from_json(_config_text(args.config))
        args._base_config = cached
    return cached


def _config_text(path: str) -> str:
    """The text of the ``--config`` file; ValueError saying what is wrong when it cannot be read."""
    from ._review.config_schema import MAX_CONFIG_BYTES

    try:
        with open(path, "rb") as file:   # never more than a configuration can be
            raw = file.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ValueError(f"--config {path!r} is larger than a review configuration can be (at most "
                             f"{MAX_CONFIG_BYTES // 1024:,} KiB). Tip: give a review configuration saved from the "
                             "app (JSON).")
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"--config {path!r} is not UTF-8 text. Tip: give a review configuration saved from the "
                         "app (JSON).") from None
    except OSError as exc:
        raise ValueError(f"--config {path!r} cannot be read: {exc.strerror or exc}.") from None


def _check_usage(args) -> None:
    """Refuse, before any data is read, flags that would be ignored or could not be honoured (ValueError)."""
    if args.spark_master is not None and args.engine != "spark":
        raise ValueError("--spark-master URL sets the master of the Spark session: use it with --engine spark.")
    if args.table is not None and args.engine != "duckdb":
        raise ValueError("--table NAME reads a table of a DuckDB database file: use it with --engine duckdb.")
    for flag, value in (("--memory-limit", args.memory_limit), ("--threads", args.threads)):
        if value is not None and args.engine != "duckdb":
            raise ValueError(f"{flag} sets how DuckDB computes the counts: use it with --engine duckdb.")
    if args.memory_limit is not None and not MEMORY_SIZE.match(args.memory_limit):
        raise ValueError(f"--memory-limit {args.memory_limit!r}: expected a size such as 4GB, 512MiB or 25%.")
    if args.threads is not None and args.threads < 1:
        raise ValueError(f"--threads {args.threads}: expected a whole number of threads, at least 1.")
    if args.auc_bins is not None and not args.engine:
        raise ValueError("--auc-bins sets the score bins of counts computed by an engine: use it with --engine "
                         "(without one, every AUC is exact).")
    if args.max_worsening is not None and not (math.isfinite(args.max_worsening) and 0 <= args.max_worsening <= 1):
        raise ValueError(f"--max-worsening {args.max_worsening!r}: expected a number from 0 to 1 (the largest "
                         "worsening from the baseline that passes, in the units of AUCs, rates and ECEs).")
    if args.max_worsening is not None and args.baseline is None:
        raise ValueError("--max-worsening is the tolerance of the change from a baseline: give --baseline COL too.")
    if args.engine and args.suggest_threshold is not None:
        raise ValueError("--suggest-threshold reads every threshold's counts of the rows in memory; it is not "
                         "available with --engine. Tip: review a sample of the rows without --engine.")
    if args.engine and args.baseline is not None:
        raise ValueError("--baseline compares models with paired intervals on the same rows in memory; it is not "
                         "available with --engine. Tip: review a sample of the rows without --engine.")
    _check_extras(args)
    if args.out is not None and not args.out.strip():
        raise ValueError("--out needs a file name, e.g. --out review.html.")
    if args.out:
        out = Path(args.out)
        if out.is_dir():
            raise ValueError(f"--out {args.out!r} is a directory. Tip: give a file name in it, e.g. "
                             f"{str(out / ('review.html' if args.command == 'report' else 'review.json'))!r}.")
        if not out.parent.is_dir():
            raise ValueError(f"--out {args.out!r}: the directory {str(out.parent)!r} does not exist. Tip: create it "
                             "first, or give a path in an existing directory.")


def _check_extras(args) -> None:
    """Refuse flags of subgroup discovery and of the review over time that would be ignored or cannot be honoured
    (ValueError, before any data is read)."""
    if not args.discover:
        for flag, value in (("--discover-quantity", args.discover_quantity), ("--discover-depth", args.discover_depth)):
            if value is not None:
                raise ValueError(f"{flag} sets the search for subgroups: use it with --discover COL [COL ...].")
    base = _base_config(args)
    timed = bool(args.time) or (base is not None and base.mapping.time is not None)
    for flag, value in (("--period", args.period), ("--gate-period", args.gate_period)):
        if value is not None and not timed:
            raise ValueError(f"{flag} needs a time column: give --time COL too (a column of dates or datetimes).")
    if args.gate_period is not None and args.baseline is not None:
        raise ValueError("--gate-period latest judges the latest period's rules; the changes from --baseline are "
                         "judged on every row. Tip: gate one or the other (leave out --gate-period or --baseline).")
    if args.engine:
        if args.discover:
            raise ValueError("--discover needs the rows in memory (the search reads each row); it is not available "
                             "with --engine. Tip: review a sample of the rows without --engine.")
        for flag, value in (("--time", args.time), ("--period", args.period), ("--gate-period", args.gate_period)):
            if value and args.engine == "spark":   # the periods are counted by DuckDB and polars
                raise ValueError(f"{flag} is not available with --engine spark (the periods are counted with --engine "
                                 "duckdb or polars). Tip: review a sample of the rows without --engine.")


def _write(args, text: str) -> None:
    """Write the output to ``--out`` (or stdout); ValueError saying why when it cannot be written."""
    try:
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    except OSError as exc:
        where = repr(args.out) if args.out else "standard output"
        raise ValueError(f"could not write {where}: {exc.strerror or exc}. Tip: check the path and the free "
                         "disk space.") from None


def _is_duckdb_file(path: Path) -> bool:
    """Whether `path` is a DuckDB database file (its magic bytes), without opening it as one."""
    try:
        with open(path, "rb") as fh:
            return fh.read(12)[8:12] == DUCKDB_MAGIC
    except OSError:
        return False


def _engine_review(args):
    """The review of DATA (a path or glob, or with ``--table`` a DuckDB database file) from the counts computed by
    ``--engine``."""
    from ._review.from_counts import build_review_from_counts
    from .engines._scored_counts import preview, scored_counts
    from .engines import _limits
    from .engines._sources import read_source

    text = str(DEFAULT_AUC_BINS) if args.auc_bins is None else args.auc_bins
    bins = text if text == "exact" else int(text) if text.isascii() and text.isdigit() else None
    if bins is None or (bins != "exact" and not 2 <= bins <= MAX_EXACT_LEVELS):
        raise ValueError(f"--auc-bins {text!r}: expected a whole number of bins from 2 to {MAX_EXACT_LEVELS:,}, or "
                         "'exact'. Tip: 10000 (the default) keeps each AUC within its reported max_binning_error.")
    connection = None
    if args.table is not None:   # a table of a DuckDB database file
        if not Path(args.data).is_file():
            raise ValueError(f"{args.data!r} is not a file. Tip: give the DuckDB database file, then --table NAME.")
        if not _is_duckdb_file(Path(args.data)):
            raise ValueError(f"{args.data!r} is not a DuckDB database file, which --table NAME reads a table of. "
                             "Tip: to read a CSV or Parquet file, leave out --table.")
        import duckdb

        connection = duckdb.connect(args.data, read_only=True, config=_duckdb_settings(args))
        source = args.table
    else:
        if args.engine == "spark":   # Spark's errors are said in one line (engines.spark_error), not logged too
            from .engines._sources import spark_session

            spark_session(args.spark_master).sparkContext.setLogLevel("FATAL")
        source = read_source(args.data, args.engine, master=args.spark_master)
    config = _config(args, preview(source, engine=args.engine, connection=connection))
    thresholds = dict(config.thresholds)
    # more distinct scores than exact levels may hold: every AUC from bins, said in the review (levels_fallback)
    counts = scored_counts(source, config.mapping, threshold=next(iter(thresholds.values()), 0.5),
                           n_bins=int(config.cal_n_bins), strategy=config.cal_strategy, auc_bins=bins,
                           engine=args.engine, connection=connection, max_levels=MAX_EXACT_LEVELS,
                           levels_fallback=DEFAULT_AUC_BINS, **_duckdb_settings(args))
    name = args.data if args.table is None else f"{Path(args.data).name}: {args.table}"
    if config.ci is not None:   # intervals: the bootstrap's atoms, one more GROUP BY per table; too many patterns:
        # the review of every point estimate, saying why it has no intervals (nothing computed is thrown away)
        counts = counts.with_atoms(_limits.MAX_PATTERNS, too_many="skip")
    review = build_review_from_counts(counts, config, source={"name": name})
    if config.mapping.time:   # --time (or a --config with a time column): the rules per period, counted by the engine
        from ._review.over_time_counts import with_counted_over_time
        from .engines._periods import counts_over_time

        over = counts_over_time(counts, config, period=args.period or "month")
        review = with_counted_over_time(review, over, gate_period=args.gate_period)
    return review


def _duckdb_settings(args) -> dict:
    """``--memory-limit`` (default: :func:`~fairness_core.engines.default_memory_limit`) and ``--threads`` as
    DuckDB's settings (``memory_limit``, ``threads``); none for another engine."""
    if args.engine != "duckdb":
        return {}
    from .engines._limits import default_memory_limit

    settings = {"memory_limit": args.memory_limit.strip() if args.memory_limit else default_memory_limit()}
    return settings | ({"threads": args.threads} if args.threads else {})


# The package each engine needs, and the extra of pyproject.toml that brings it (None: a dependency of the library).
# This project is not published under a name: its extras are installed from its checkout or its wheel, never by a
# bare name that anyone could register.
ENGINE_PACKAGES = {"duckdb": ("duckdb", None), "sqlglot": ("sqlglot", None), "polars": ("polars", "engines"),
                   "ibis": ("ibis-framework[duckdb]", "engines"), "pyspark": ("pyspark", "spark")}


def missing_package_message(exc: ImportError, engine: str | None) -> str:
    """One line for an ImportError: which package is missing, for what, and the command that installs it.

    Parameters
    ----------
    exc : ImportError
        The error; ``exc.name`` is the module that could not be imported.
    engine : str or None
        The ``--engine`` chosen, if any.

    Returns
    -------
    str
        E.g. "--engine polars needs the Python package 'polars', which is not installed here. Install it with:
        pip install 'polars' (or this project with its 'engines' extra, from its checkout: pip install '.[engines]',
        or from its wheel: pip install 'fairness_core-0.5.0-py3-none-any.whl[engines]'; make test installs every
        engine)."
    """
    top = (exc.name or "").split(".")[0]
    if top not in ENGINE_PACKAGES:
        return _one_line(str(exc))
    package, extra = ENGINE_PACKAGES[top]
    what = f"--engine {engine}" if engine else "this command"
    return (f"{what} needs the Python package {package!r}, which is not installed here. Install it with: "
            f"pip install '{package}' (or this project{f' with its {extra!r} extra' if extra else ''}, "
            f"{install_commands(extra)}; make test installs every engine).")


def install_commands(extra: str | None) -> str:
    """How to install this project, with `extra`, from its checkout or its built wheel: never by a bare name.

    Parameters
    ----------
    extra : str or None
        An extra of pyproject.toml (``app``, ``engines``, ``spark``), or None for the library alone.

    Returns
    -------
    str
        E.g. "from its checkout: pip install '.[app]', or from its wheel: pip install
        'fairness_core-0.5.0-py3-none-any.whl[app]'".
    """
    from ._version import __version__

    extra = f"[{extra}]" if extra else ""
    return (f"from its checkout: pip install '.{extra}', or from its wheel: pip install "
            f"'fairness_core-{__version__}-py3-none-any.whl{extra}'")


def _serve_app(args) -> int:
    """``app``: this process becomes the dashboard's server (:func:`fairness_dashboard.launch.serve`); 2 when a
    ``--data-root`` is no directory or Streamlit (the ``app`` extra) is not installed, said in one line."""
    for root in args.data_root:
        if not Path(root).expanduser().is_dir():
            print(f"error: --data-root {root!r} is not a directory", file=sys.stderr)
            return 2
    try:
        import streamlit  # noqa: F401  (the app extra; launch.serve runs its command line)
    except ImportError:
        print("error: the app needs Streamlit, which is not installed here. Install this project with its 'app' "
              f"extra (the Streamlit versions the app is tested with), {install_commands('app')}.", file=sys.stderr)
        return 2
    from fairness_dashboard.launch import serve

    serve(args.port, args.address, [str(Path(root).expanduser()) for root in args.data_root])
    return 0   # reached only when serve is replaced (tests): it becomes the server


def _history(args) -> int:
    """``history``: the saved reviews side by side in time, as HTML (``--out`` required) or JSON (``--json``); 2,
    said in one line, for a file that is not a saved review or an output that cannot be written."""
    from ._review.history import review_history

    try:
        if not args.json and not args.out:
            raise ValueError("history writes an HTML page: give --out FILE (e.g. --out history.html), or --json.")
        if args.out is not None:
            out = Path(args.out)
            if not args.out.strip() or out.is_dir() or not out.parent.is_dir():
                raise ValueError(f"--out {args.out!r}: give a file name in an existing directory, e.g. "
                                 "--out history.html.")
        history = review_history(args.reviews)
        if args.json:
            text = history.to_json()
        else:
            from ._review.history_report import render_history

            text = render_history(history)
        _write(args, text)
    except (OSError, ValueError) as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except Exception:   # a defect of ours, not of the input: never mistaken for bad input (2)
        import traceback

        traceback.print_exc()
        print("internal error: please report it with the command that caused it", file=sys.stderr)
        return 3
    for row in history.differences.itertuples(index=False):
        print(f"warning: review {row.review} ({row.created}) was made with other settings than the one before it: "
              f"{row.setting} {_one_line(str(row.before))} before, {_one_line(str(row.after))} there.",
              file=sys.stderr)
    return 0


def _engine_error(exc: Exception) -> bool:
    """Whether `exc` was raised by an engine's package (DuckDB, polars, pyspark, ibis, sqlglot)."""
    return type(exc).__module__.split(".")[0].lstrip("_") in ("duckdb", "polars", "pyspark", "ibis", "sqlglot")


def run() -> None:
    """The console command: :func:`main`, then exit with its status without tearing the interpreter down.

    Arrow's and DuckDB's native thread pools can abort the process at interpreter exit
    ("terminate called without an active exception", status -6) when a worker is still alive
    (apache/arrow#34314), which would turn a verdict's exit status into a crash. Everything is
    written and flushed by then, so the process ends with ``os._exit``.
    """
    import os

    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed or broken pipe: nothing more can be said on it
            pass
    os._exit(status)


def main(argv=None) -> int:
    """Run the command line; returns the exit status.

    Parameters
    ----------
    argv : list of str or None
        The arguments after ``python -m fairness_core`` (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when every gating verdict passes; 1 when one fails (with ``--strict`` also when one is
        inconclusive or not assessable): the models' rules and, with ``--baseline``, every change from it, or what
        ``--gate`` names (the rules about the labels only when named or with ``--gate-labels``);
        2 for bad input or usage (a flag that would be ignored, a file that cannot be read, a
        configuration outside its schema, an output that cannot be written, too little memory), said in one line on stderr; 3 for an internal error (a defect of ours,
        never mistaken for a failing rule), with its traceback.
    """
    args = parser().parse_args(argv)   # usage errors exit 2 here, in one line
    if args.command == "app":
        return _serve_app(args)
    if args.command == "history":
        return _history(args)
    from ._data.reading import read_table
    from ._review.gate import STATUS_ORDER, split_names
    from ._review.review import build_review

    path = Path(args.data)
    try:
        _check_usage(args)
        _base_config(args)   # a configuration outside its bounds is refused before the data is read
        if args.engine:
            review = _engine_review(args)
        else:
            data = path.read_bytes()
            frame = read_table(data, name=path.name)
            config = _config(args, frame)
            review = build_review(frame, config, source={"name": path.name}, data=data, discover=args.discover,
                                  discover_quantity=args.discover_quantity or "selection_rate",
                                  discover_depth=args.discover_depth or 2)
            if config.mapping.time:   # --time (or a --config with a time column): the rules per period
                from ._review.review_over_time import with_over_time

                review = with_over_time(review, frame, period=args.period or "month", gate_period=args.gate_period)
        status, lines = review.gate(strict=args.strict, gating_only=args.quiet)   # a name it cannot find: 2
        gated, gated_changes = review.gating()
        if args.command == "report":
            from ._review.report import render_report

            _write(args, render_report(review))
        else:
            _write(args, review.to_json())
    except ImportError as exc:
        print(f"error: {missing_package_message(exc, args.engine)}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except MemoryError:
        tip = "review a sample of the rows" if args.engine else "--engine duckdb computes the counts out of core"
        print(f"error: not enough memory to review {args.data!r}. Tip: {tip}.", file=sys.stderr)
        return 2
    except Exception as exc:  # an engine's own error is bad input (a file it cannot read, an unknown table)
        if _engine_error(exc):
            print(f"error: {args.engine} could not read {args.data!r}: {_one_line(str(exc).strip().splitlines()[0])}",
                  file=sys.stderr)
            return 2
        # anything else is a defect of ours, not of the input: never mistaken for a failing rule (1)
        import traceback

        traceback.print_exc()
        print("internal error: please report it with the command that caused it", file=sys.stderr)
        return 3
    for line in lines:
        print(line, file=sys.stderr)
    if args.quiet:
        return status
    from ._review.from_counts import NO_ATOMS, NOT_COMPUTED

    model = [v for m in review.models for v in m.verdicts]
    label_verdicts, period = review.dataset_verdicts, ""
    if review.gate_period:   # the tally is of the period the gate judged
        period, latest, label_verdicts = review.latest_period()
        model = [v for m in latest for v in m.verdicts]
        over = review.over_time
        rows = int(over.periods["rows"].iloc[-1])
        print(f"note: the gate judged the latest period of {over.config.mapping.time}, {period} ({rows:,} rows), "
              "only: its rate rules" + (" and its rule about the labels" if review.config.gate_labels else "")
              + "; the rules of every row, and the AUC and calibration rules, are reported, not gating.",
              file=sys.stderr)
    for line in discovery_lines(review):
        print(line, file=sys.stderr)
    rules = set(review.config.gate_rules)
    labels_gate = any(m is None for m, _ in gated)

    def tally(verdicts) -> str:   # what fails first
        counts = {s: sum(v.status == s for v in verdicts) for s in STATUS_ORDER}
        return ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items() if n) or "none"

    for m in review.models:
        if m.suggestion is not None:
            print(suggestion_line(m.name, m.suggestion), file=sys.stderr)
    for why in review.source.get("not_computed", [])[len(NOT_COMPUTED):]:   # what the bounds left out, and why
        if why != NO_ATOMS:
            print(f"note: not computed: {why}.", file=sys.stderr)
    if args.engine and review.config.baseline is not None:
        print(f"note: the changes from the baseline {review.config.baseline!r} are not judged with --engine (they "
              "need the rows in memory).", file=sys.stderr)
    changes = (f"; changes from the baseline {review.config.baseline}: {tally(review.changes)}"
               + ("" if gated_changes else " (reported, not gating)") if review.changes else "")
    named = sorted(split_names(rules)[0])
    model_gate = ((f" (gating: {', '.join(named)})" if named else "") if any(m is not None for m, _ in gated)
                  else " (reported, not gating)" if model else "")
    print(("verdicts" if not period else f"verdicts of the latest period {period}") + f": model {tally(model)}"
          + model_gate + f"; labels {tally(label_verdicts)}" + ("" if labels_gate else " (reported, not gating)")
          + changes + f"; exit status {status}", file=sys.stderr)
    return status


def discovery_lines(review) -> list:
    """One stderr line per model searched for subgroups (``--discover``): how many of the subgroups found exclude
    parity after Benjamini-Hochberg, and the worst treated one (findings, never gating)."""
    from ._review.report_text import COLUMN_NAMES, number_text

    found = review.discovery
    if found is None:
        return []
    lines = []
    for model, result in found.results.items():
        table = result.table
        what = COLUMN_NAMES.get(result.quantity, result.quantity)
        if table.empty:
            lines.append(f"discovered subgroups for {model} ({what}; not gating): none with at least "
                         f"{result.min_size} rows.")
            continue
        top = table.iloc[0]
        shown = (f"{int(table['excludes_parity'].sum())} of {len(table)} exclude parity after Benjamini-Hochberg"
                 if result.level is not None else f"{len(table)} found, without intervals")
        lines.append(f"discovered subgroups for {model} ({what}; not gating): {shown}; the worst: {_one_line(str(top['subgroup']))} "
                     f"({number_text(top['value'])} against {number_text(top['rest_value'])} for the rest, "
                     f"{int(top['size']):,} rows)")
    lines += [f"discovered subgroups: {model} not searched: {why}." for model, why in found.skipped]
    return lines


def suggestion_line(model: str, suggestion) -> str:
    """One stderr line: a score's suggested threshold, its measure there and at the current threshold, and the
    bands where every rate rule passes (and where none fails but one is inconclusive)."""
    bands = suggestion.bands_text
    table = suggestion.table.set_index("threshold")
    measure = suggestion.measure
    now = f"{table.loc[suggestion.current, measure]:.4g}" if suggestion.current in table.index else "n/a"
    if suggestion.suggested is None:
        head = (f"suggested threshold for {model}: none (at every threshold a rate rule fails or cannot be "
                "assessed)")
    elif suggestion.basis == "no_fail":
        needed = suggestion.rows_needed
        head = (f"suggested threshold for {model}: {suggestion.suggested:g}, where no rate rule fails (none passes "
                f"every rule with its interval at any threshold; here one is inconclusive"
                + (f": about {needed:,.0f} rows in the smallest subgroup would decide it" if math.isfinite(needed)
                   else "") + f") ({measure} {table.loc[suggestion.suggested, measure]:.4g}; at the current "
                f"{suggestion.current:g}: {now})")
    else:
        head = (f"suggested threshold for {model}: {suggestion.suggested:g} ({measure} "
                f"{table.loc[suggestion.suggested, measure]:.4g}; at the current {suggestion.current:g}: {now})")
    return (f"{head}; every rule passes at: {bands('pass')}; none fails but one is inconclusive at: "
            f"{bands('inconclusive')}")


def _one_line(text: str) -> str:
    """`text` on one line (line breaks as spaces), as every message on stderr is."""
    return " ".join(text.split())

