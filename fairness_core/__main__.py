"""Command line: ``python -m fairness_core report|metrics DATA ...`` (see ``--help``).

Exit status: 0 when every policy verdict passes, 1 when one fails (with ``--strict`` also when one
is inconclusive or undefined), 2 for bad input or usage, 3 for an internal error. The review comes from
:func:`fairness_core.build_review`, the builder behind the app's exports.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXAMPLES = """examples:
  python -m fairness_core report compas.csv --label two_year_recid --score decile_score \\
      --protected race --threshold 5 --out compas-review.html
  python -m fairness_core metrics jigsaw.csv --label toxicity --positive 1 --score TOXICITY@1 \\
      --score TOXICITY@6 --identity gay --identity muslim --json
  python -m fairness_core metrics compas.csv --config review-config.json --strict --out review.json
  python -m fairness_core report 'logs/*.parquet' --engine duckdb --auc-bins 10000 --label y --positive 1 \
      --score score --protected race --protected sex --out logs-review.html
  python -m fairness_core metrics warehouse.duckdb --table predictions --engine duckdb --label y --score p \
      --protected region --out review.json

exit status: 0 every policy rule passes, 1 a rule fails (--strict: or is inconclusive), 2 bad input or usage,
  3 an internal error
"""


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m fairness_core``."""
    main = argparse.ArgumentParser(
        prog="python -m fairness_core", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES,
        description="Assess a model's scored data for disparities between subgroups: the same review as the "
                    "fairness dashboard, as an HTML report or JSON, with an exit status that can gate a release.")
    commands = main.add_subparsers(dest="command", required=True, metavar="{report,metrics}")
    for name, text in (("report", "write the self-contained HTML report (charts work offline)"),
                       ("metrics", "write every table, finding and verdict as JSON")):
        sub = commands.add_parser(name, help=text, description=text, epilog=EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.add_argument("data", metavar="DATA",
                         help="a CSV or Parquet file of scored rows (with --engine: a path or glob, e.g. 'logs/*.parquet')")
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
        sub.add_argument("--min-size", type=int, metavar="N", help="subgroups with fewer rows are small (default 30)")
        sub.add_argument("--config", metavar="FILE",
                         help="a review configuration saved from the app (JSON); flags given override it")
        sub.add_argument("--no-intervals", action="store_true", help="compute no confidence intervals (faster)")
        sub.add_argument("--strict", action="store_true", help="exit 1 also when a verdict is inconclusive")
        sub.add_argument("--engine", choices=["duckdb", "spark", "polars"],
                         help="compute the counts where the data lives instead of loading it: DuckDB (out of core), "
                              "Spark (the active session, or local) or polars (streaming); intervals from the counts' "
                              "atoms (one more pass per table), no consistency")
        sub.add_argument("--table", metavar="NAME",
                         help="with --engine duckdb: DATA is a DuckDB database file (opened read-only) and NAME a "
                              "table or view in it")
        sub.add_argument("--auc-bins", default="10000", metavar="N or exact",
                         help="with --engine: score bins of the AUCs (each AUC within its reported max_binning_error "
                              "of the exact one), or 'exact' (default 10000)")
        sub.add_argument("--out", metavar="FILE", required=name == "report",
                         help="where to write" + (" the HTML report" if name == "report" else " (default: stdout)"))
        if name == "metrics":
            sub.add_argument("--json", action="store_true", help="JSON output (the default and only format)")
    return main


def _config(args, frame):
    import dataclasses

    from ._mapping import guess_positive
    from ._review import ReviewConfig
    from ._scored_data import ColumnMapping

    base = ReviewConfig.from_json(Path(args.config).read_text(encoding="utf-8")) if args.config else None
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
    fields = dict(label=label, positive_label=positive)
    for flag, key in (("score", "scores"), ("protected", "protected"), ("identity", "indicators")):
        if getattr(args, flag):
            fields[key] = tuple(getattr(args, flag))
    if args.predicted:
        fields["predicted_label"] = args.predicted
    if args.min_size is not None:
        fields["min_size"] = args.min_size
    mapping = dataclasses.replace(mapping, **fields) if mapping is not None else ColumnMapping(**fields)
    thresholds = dict(base.thresholds) if base is not None else {}
    for item in args.threshold:
        column, _, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"--threshold {item!r}: expected a number X or COL=X.") from None
        for score in ([column] if column else mapping.scores):
            thresholds[score] = number
    config = base if base is not None else ReviewConfig(mapping=mapping)
    config = dataclasses.replace(config, mapping=mapping, thresholds=tuple(thresholds.items()))
    if args.no_intervals:
        config = dataclasses.replace(config, ci=None)
    return config


def _engine_review(args):
    """The review of DATA (a path or glob, or with ``--table`` a DuckDB database file) from the counts computed by
    ``--engine``."""
    from ._review_engine import build_review_from_counts
    from .engines import preview, read_source, scored_counts

    bins = args.auc_bins if args.auc_bins == "exact" else int(args.auc_bins) if args.auc_bins.isdigit() else None
    if bins is None:
        raise ValueError(f"--auc-bins {args.auc_bins!r}: expected a whole number of bins or 'exact'.")
    connection = None
    if args.table is not None:   # a table of a DuckDB database file
        if args.engine != "duckdb":
            raise ValueError("--table reads a DuckDB database file: use it with --engine duckdb.")
        if not Path(args.data).is_file():
            raise ValueError(f"{args.data!r} is not a file. Tip: give the DuckDB database file, then --table NAME.")
        import duckdb

        connection = duckdb.connect(args.data, read_only=True)
        source = args.table
    else:
        source = read_source(args.data, args.engine)
    config = _config(args, preview(source, engine=args.engine, connection=connection))
    thresholds = dict(config.thresholds)
    counts = scored_counts(source, config.mapping, threshold=next(iter(thresholds.values()), 0.5),
                           n_bins=int(config.cal_n_bins), strategy=config.cal_strategy, auc_bins=bins,
                           engine=args.engine, connection=connection)
    name = args.data if args.table is None else f"{Path(args.data).name}: {args.table}"
    if config.ci is not None:   # intervals: the bootstrap's atoms, one more GROUP BY per table
        counts = counts.with_atoms()
    return build_review_from_counts(counts, config, source={"name": name})


def _engine_error(exc: Exception) -> bool:
    """Whether `exc` was raised by an engine's package (DuckDB, polars, pyspark, ibis, sqlglot)."""
    return type(exc).__module__.split(".")[0].lstrip("_") in ("duckdb", "polars", "pyspark", "ibis", "sqlglot")


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 pass, 1 a rule fails, 2 bad input or usage, 3 internal error)."""
    args = parser().parse_args(argv)   # usage errors exit 2 here
    from ._io import read_table
    from ._review import build_review

    path = Path(args.data)
    try:
        if args.engine:
            review = _engine_review(args)
        else:
            data = path.read_bytes()
            frame = read_table(data, name=path.name)
            review = build_review(frame, _config(args, frame), source={"name": path.name}, data=data)
    except (OSError, ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # an engine's own error is bad input (a file it cannot read, an unknown table)
        if _engine_error(exc):
            print(f"error: {args.engine} could not read {args.data!r}: {str(exc).strip().splitlines()[0]}",
                  file=sys.stderr)
            return 2
        # anything else is a defect of ours, not of the input: never mistaken for a failing rule (1)
        import traceback

        traceback.print_exc()
        print("internal error: please report it with the command that caused it", file=sys.stderr)
        return 3
    if args.command == "report":
        from ._report import render_report

        Path(args.out).write_text(render_report(review), encoding="utf-8")
    else:
        text = review.to_json()
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
        else:
            print(text)
    status = review.exit_status(strict=args.strict)
    counts = {}
    for v in review.verdicts:
        counts[v.status] = counts.get(v.status, 0) + 1
    print("verdicts: " + (", ".join(f"{n} {s}" for s, n in counts.items()) or "none")
          + f"; exit status {status}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
