"""Benchmark of ``fairness_core.engines``: the full audit where the data lives, on generated Parquet logs.

    python benchmarks/engines.py [--rows 100000000] [--files 10] [--engine duckdb|spark|polars]
                                 [--memory-limit 2GB] [--auc-bins 10000] [--sample 1000000] [--data DIR]
    python benchmarks/run.py --engine duckdb ...     (the same, from the main benchmark's command)
    python benchmarks/engines.py --rows 10000000 --review [--repeats 3]
    python benchmarks/engines.py --rows 150000 --files 300 --csv --review    (many small CSV files)
    python benchmarks/engines.py --rows 1000000 --files 1 --review --auc-bins exact --in-memory
                                 [--identities 20] [--memory-limit 2GB] [--threads 2]

With ``--review`` it times the command line's review of the same logs instead (``fairness-core metrics
... --engine duckdb``, every identity column mapped), with intervals and with ``--no-intervals``, each in
a fresh process, ``--repeats`` times, interleaved (with ``--csv``, the same rows as one CSV file per Parquet file): median wall and CPU seconds (the child's, DuckDB's threads
included), peak RSS beside them, the ratio of the medians, and the load average beside each run. ``--auc-bins``,
``--memory-limit`` and ``--threads`` are the command line's (without ``--memory-limit``, its default: half of the
memory), ``--identities`` the identity columns mapped; ``--in-memory`` (one file) also reviews the file without
``--engine``, the in-memory path, with intervals, and reports each engine run's peak RSS as a multiple of its.

The layout: race x sex (disjoint), 20 overlapping identity columns
(booleans, prevalence 1 % to 20 %), a 0/1 label and a float32 score, in ``--files`` Parquet files.

Reported (JSON to ``--out``, a table to stdout):

1. the counts: ``scored_counts`` on the glob (rates at 0.5, AUC counts with ``--auc-bins`` bins,
   calibration with 10 uniform bins), in a fresh child process: wall and CPU seconds, peak RSS of
   the process (DuckDB runs inside it, so its buffers count);
2. the audit from the counts: the AUC table and bias AUC score, every rate with its disparity, and
   the calibration errors (no row is touched);
3. a threshold change: on a bin edge (read off the AUC counts) and between edges (one query);
4. correctness on a ``--sample``-row prefix of the same files: every count equal to the in-memory
   library's (the largest relative difference is reported), and every binned AUC within its
   ``max_binning_error`` of the exact in-memory AUC.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import fairness_core as fc  # noqa: E402

RACES, RACE_P = ["White", "Black", "Hispanic", "Asian"], [0.6, 0.2, 0.12, 0.08]
N_IDENTITY = 20
CHUNK = 5_000_000


def mapping(n_identity: int = N_IDENTITY) -> fc.ColumnMapping:
    """The mapping of the generated logs."""
    return fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("race", "sex"),
                            indicators=tuple(f"id_{j:02d}" for j in range(n_identity)))


def make_files(folder: Path, rows: int, files: int, seed: int = 0) -> str:
    """Write `rows` seeded rows as `files` Parquet files in `folder` (reused when present); return the glob."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    per_file = rows // files
    for f in range(files):
        path = folder / f"part-{f:03d}.parquet"
        if path.exists() and pq.ParquetFile(path).metadata.num_rows == per_file:
            continue
        writer = None
        for start in range(0, per_file, CHUNK):
            n = min(CHUNK, per_file - start)
            rng = np.random.default_rng([seed, f, start])
            race = rng.choice(len(RACES), n, p=RACE_P)
            sex = rng.integers(0, 2, n)
            identity = rng.random((n, N_IDENTITY), dtype=np.float32) < np.geomspace(0.01, 0.2, N_IDENTITY)
            logit = (np.array([0.2, -0.3, 0.0, 0.4])[race] + np.where(sex == 1, -0.1, 0.1)
                     + identity @ np.linspace(-0.5, 0.5, N_IDENTITY) + rng.normal(0.0, 1.0, n))
            score = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
            y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(logit + rng.normal(0.0, 1.0, n))))).astype(np.int8)
            columns = {"race": pa.array(np.array(RACES, dtype=object)[race]),
                       "sex": pa.array(np.where(sex == 1, "Female", "Male").astype(object)),
                       "y": pa.array(y), "score": pa.array(score)}
            columns |= {f"id_{j:02d}": pa.array(identity[:, j]) for j in range(N_IDENTITY)}
            table = pa.table(columns)
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
        writer.close()
    return str(folder / "part-*.parquet")


def as_csv(folder: Path) -> str:
    """The Parquet files of `folder` written once more as CSV files beside them (kept when present); their glob."""
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    for path in sorted(folder.glob("part-*.parquet")):
        target = path.with_suffix(".csv")
        if not target.exists():
            pa_csv.write_csv(pq.read_table(path), target)
    return str(folder / "part-*.csv")


def _peak_rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _spark_source(glob: str):
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "8").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark.read.parquet(str(Path(glob).parent))


def child(glob: str, engine: str, memory_limit: str, auc_bins) -> dict:
    """Counts, audit and threshold changes in this (fresh) process."""
    from fairness_core.engines import scored_counts

    out: dict = {}
    started, cpu = time.perf_counter(), time.process_time()
    source = _spark_source(glob) if engine == "spark" else glob
    out["start_s"] = time.perf_counter() - started
    counts = scored_counts(source, mapping(), threshold=0.5, n_bins=10, auc_bins=auc_bins, engine=engine,
                           memory_limit=memory_limit if engine == "duckdb" else None)
    out |= {"counts_wall_s": time.perf_counter() - started, "counts_cpu_s": time.process_time() - cpu,
            "rows": counts.n_input}
    started = time.perf_counter()
    auc = counts.auc["score"]
    table = auc.table()
    score = auc.summarize()
    confusion = counts.confusion["score"]
    rates = [confusion.disparity(m, reduction="max") for m in ("statistical_parity", "false_positive_rate",
                                                                "true_positive_rate")]
    eo = confusion.equalized_odds(reduction="max")
    ece = counts.calibration["score"].error_table()
    out |= {"audit_from_counts_s": time.perf_counter() - started, "bias_auc_score": score.value,
            "max_binning_error": float(np.nanmax(table[[c for c in table.columns if c.endswith("binning_error")]])),
            "max_fpr_difference": float(rates[1].value), "equalized_odds": float(eo.value),
            "max_ece": float(np.nanmax(ece["ece"]))}
    started = time.perf_counter()
    counts.confusion_at("score", float(auc.edges[6000]))
    out["threshold_on_edge_s"] = time.perf_counter() - started
    started = time.perf_counter()
    counts.confusion_at("score", 0.61234)
    out["threshold_between_edges_s"] = time.perf_counter() - started
    out["peak_rss_mib"] = _peak_rss_mib()
    return out


def check_sample(glob: str, sample: int, auc_bins, engine: str = "duckdb") -> dict:
    """Engine counts on the first files (`sample` rows) against the in-memory library on the same rows."""
    from fairness_core.engines import scored_counts

    paths = sorted(Path(glob).parent.glob(Path(glob).name))
    import pyarrow.parquet as pq

    chosen, total = [], 0
    for path in paths:
        if total >= sample:
            break
        chosen.append(str(path))
        total += pq.ParquetFile(path).metadata.num_rows
    frame = pd.concat([pd.read_parquet(p) for p in chosen], ignore_index=True)
    m = mapping()
    scored = fc.ScoredData.from_frame(frame, m)
    counts = scored_counts(chosen, m, threshold=0.5, n_bins=10, auc_bins=auc_bins,
                           engine="duckdb" if engine == "spark" else engine)
    worst = 0.0
    ref = fc.confusion_counts(scored.y_true, scored.y_pred("score", 0.5), scored.subgroups)
    cal = fc.calibration_counts(scored.y_true, scored.scores["score"], scored.subgroups, n_bins=10)
    for got, want in ((counts.confusion["score"], ref), (counts.calibration["score"], cal)):
        for side in ("member", "background", "overall"):
            a, b = getattr(got, side), getattr(want, side)
            with np.errstate(divide="ignore", invalid="ignore"):
                worst = max(worst, float(np.nanmax(np.where(b != 0, np.abs(a - b) / np.abs(b), np.abs(a - b)))))
    exact = fc.bias_auc_table(scored.y_true, scored.scores["score"], scored.subgroups)
    table = counts.auc["score"].table()
    within = all(((table[c] - exact[c]).abs() <= table[f"{c}_max_binning_error"] + 1e-12).all()
                 for c in ("subgroup_auc", "bpsn_auc", "bnsp_auc"))
    error = max(float((table[c] - exact[c]).abs().max()) for c in ("subgroup_auc", "bpsn_auc", "bnsp_auc"))
    return {"sample_rows": len(frame), "max_relative_count_difference": worst, "binned_aucs_within_bound": within,
            "max_binned_auc_error": error,
            "max_bound": float(np.nanmax(table[[c for c in table.columns if c.endswith("binning_error")]]))}


# The command line with its bound on membership patterns set to 0: every interval from per-bucket tables.
BUCKETS_CLI = ("import sys; from fairness_core.engines import _limits; _limits.MAX_PATTERNS = 0; "
               "from fairness_core._cli import main; sys.exit(main(sys.argv[1:]))")


def review_times(glob: str, engine: str, repeats: int, *, auc_bins: str = "10000", identities: int = N_IDENTITY,
                 memory_limit=None, threads=None, in_memory: bool = False, bucket_intervals: bool = False) -> dict:
    """The command line's review of `glob` with and without intervals (see the module docstring); with
    `bucket_intervals` also with intervals from per-bucket tables whatever the patterns (``bucket_intervals``: the
    command line with its bound on patterns set to 0, ``engines._bucket_atoms``)."""
    import statistics
    import tempfile

    m = mapping(identities)
    common = ["--label", m.label, "--positive", str(m.positive_label), "--score", m.scores[0], "--threshold", "0.5"]
    for c in m.protected:
        common += ["--protected", c]
    for c in m.indicators:
        common += ["--identity", c]
    command = [sys.executable, "-m", "fairness_core", "metrics", glob, "--engine", engine, "--auc-bins", auc_bins,
               *common]
    command += (["--memory-limit", memory_limit] if memory_limit else []) + (["--threads", str(threads)] if threads
                                                                            else [])
    kinds = [("no_intervals", command + ["--no-intervals"]), ("intervals", command)]
    if bucket_intervals:   # the same command line with no membership pattern allowed: per-bucket tables
        kinds.append(("bucket_intervals", [sys.executable, "-c", BUCKETS_CLI, *command[3:]]))
    if in_memory:   # the in-memory path: the one file, read whole, with intervals
        files = sorted(Path(glob).parent.glob(Path(glob).name))
        if len(files) != 1:
            raise ValueError("--in-memory reviews one file: generate the rows with --files 1.")
        kinds.append(("in_memory", [sys.executable, "-m", "fairness_core", "metrics", str(files[0]), *common]))
    with tempfile.TemporaryDirectory() as tmp:
        runs = timed_runs(kinds, repeats, tmp)
    out = {name: {key: statistics.median(r[key] for r in rs) for key in rs[0]} for name, rs in runs.items()}
    out["runs"] = runs
    out["wall_ratio"] = out["intervals"]["wall_s"] / out["no_intervals"]["wall_s"]
    out["cpu_ratio"] = out["intervals"]["cpu_s"] / out["no_intervals"]["cpu_s"]
    if bucket_intervals:
        out["bucket_wall_ratio"] = out["bucket_intervals"]["wall_s"] / out["no_intervals"]["wall_s"]
        out["bucket_cpu_ratio"] = out["bucket_intervals"]["cpu_s"] / out["no_intervals"]["cpu_s"]
        out["bucket_rss_ratio"] = out["bucket_intervals"]["peak_rss_mib"] / out["no_intervals"]["peak_rss_mib"]
    if in_memory:
        out["peak_rss_ratio_to_in_memory"] = {name: out[name]["peak_rss_mib"] / out["in_memory"]["peak_rss_mib"]
                                              for name in ("no_intervals", "intervals")}
    out["settings"] = {"auc_bins": auc_bins, "identities": identities, "memory_limit": memory_limit or "default",
                       "threads": threads or "default"}
    return out


def with_times(folder: Path, glob: str, months: int = 24, seed: int = 0) -> str:
    """(``--time``) The Parquet files of `glob` once more in ``{folder}-time`` with a column ``t`` of seeded times over
    `months` months from 2024-01-01 (kept when present); their glob."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = folder.parent / f"{folder.name}-time"
    out.mkdir(parents=True, exist_ok=True)
    for f, path in enumerate(sorted(Path(glob).parent.glob(Path(glob).name))):
        target = out / path.name
        if target.exists():
            continue
        table = pq.read_table(path)
        seconds = np.random.default_rng([seed, f, 7]).integers(0, months * 30 * 24 * 3600, table.num_rows)
        times = np.datetime64("2024-01-01T00:00:00", "s") + seconds.astype("timedelta64[s]")
        pq.write_table(table.append_column("t", pa.array(times)), target)
    return str(out / "part-*.parquet")


def over_time_times(glob: str, engine: str, repeats: int, identities: int = N_IDENTITY) -> dict:
    """(``--time``) CPU seconds of the command line's engine review with intervals, without and with ``--time t
    --period month`` (the rules per month counted by the engine, ``engines.counts_over_time``), medians of
    `repeats` runs each, with the load average at each start."""
    import statistics
    import tempfile

    m = mapping(identities)
    command = [sys.executable, "-m", "fairness_core", "metrics", glob, "--engine", engine, "--label", m.label,
               "--positive", str(m.positive_label), "--score", m.scores[0], "--threshold", "0.5"]
    for c in m.protected:
        command += ["--protected", c]
    for c in m.indicators:
        command += ["--identity", c]
    kinds = [("review", command), ("review_over_time", command + ["--time", "t", "--period", "month"])]
    with tempfile.TemporaryDirectory() as tmp:
        runs = timed_runs(kinds, repeats, tmp)
        periods = len(json.loads(Path(f"{tmp}/review_over_time.json").read_text())["over_time"]["periods"]["rows"])
    out = {name: {key: statistics.median(r[key] for r in rs) for key in rs[0]} for name, rs in runs.items()}
    out["runs"], out["periods"] = runs, periods
    out["cpu_ratio"] = out["review_over_time"]["cpu_s"] / out["review"]["cpu_s"]
    out["over_time_cpu_s"] = out["review_over_time"]["cpu_s"] - out["review"]["cpu_s"]
    return out


def timed_runs(kinds: list, repeats: int, tmp: str) -> dict:
    """Each command of `kinds` ((name, argv) pairs) run `repeats` times, interleaved, its output written in `tmp`:
    per name a list of ``{wall_s, cpu_s, peak_rss_mib, load_average}`` (the child's own resource usage). Exit 1 (a
    gating rule fails) is a review all the same; any other status raises RuntimeError with the end of stderr."""
    runs: dict = {name: [] for name, _ in kinds}
    for _ in range(repeats):
        for name, run_command in kinds:
            load = os.getloadavg()[0]
            started = time.perf_counter()
            child = subprocess.Popen(run_command + ["--out", f"{tmp}/{name}.json"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
            _, status, usage = os.wait4(child.pid, 0)
            wall, cpu = time.perf_counter() - started, usage.ru_utime + usage.ru_stime
            err = child.stderr.read()
            child.stderr.close()
            if os.waitstatus_to_exitcode(status) not in (0, 1):
                raise RuntimeError(f"{shlex.join(run_command)} failed: {err[-2000:]}")
            runs[name].append({"wall_s": wall, "cpu_s": cpu, "peak_rss_mib": usage.ru_maxrss / 1024,
                               "load_average": load})
            print(f"{name:17} {wall:6.1f} s wall, {cpu:6.1f} CPU-s, {usage.ru_maxrss / 1024:6.0f} MiB peak, "
                  f"load {load:.1f}", file=sys.stderr)
    return runs


def main(argv=None) -> dict:
    """Run the engine benchmark; returns the results (also written as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--engine", choices=["duckdb", "spark", "polars"], default="duckdb")
    parser.add_argument("--memory-limit", help="DuckDB's memory limit (default: 2GB for the counts, the command "
                                               "line's own default with --review)")
    parser.add_argument("--threads", type=int, help="DuckDB's threads (default: one per core)")
    parser.add_argument("--identities", type=int, default=N_IDENTITY, help="identity columns mapped (with --review)")
    parser.add_argument("--in-memory", action="store_true",
                        help="with --review and --files 1: also review the file in memory, with intervals")
    parser.add_argument("--auc-bins", default="10000", help='bins of the AUC counts, or "exact"')
    parser.add_argument("--sample", type=int, default=1_000_000, help="rows checked against the in-memory library")
    parser.add_argument("--data", default="/tmp/fairness-engine-bench", help="where the Parquet files are kept")
    parser.add_argument("--out", default=str(HERE / "results-engines.json"))
    parser.add_argument("--review", action="store_true",
                        help="time the command line's review with and without intervals instead")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each review (with --review)")
    parser.add_argument("--csv", action="store_true", help="review the same rows as CSV files (with --review)")
    parser.add_argument("--bucket-intervals", action="store_true",
                        help="with --review: also the review with intervals from per-bucket tables")
    parser.add_argument("--time", action="store_true",
                        help="with --review: the review with intervals without and with --time over 24 months "
                             "(written to results-engines-over-time.json)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    auc_bins = args.auc_bins if args.auc_bins == "exact" else int(args.auc_bins)
    folder = Path(args.data) / f"{args.rows}-{args.files}"
    glob = str(folder / "part-*.parquet")
    if args.child:
        print(json.dumps(child(glob, args.engine, args.memory_limit or "2GB", auc_bins)))
        return {}
    started = time.perf_counter()
    make_files(folder, args.rows, args.files)
    print(f"data ready in {time.perf_counter() - started:.0f} s: {glob}", file=sys.stderr)
    if args.review and args.time:   # the rules per month counted by the engine, against the review alone
        results = {"engine": args.engine, "rows": args.rows, "files": args.files, "cpus": os.cpu_count(),
                   "months": 24, "identities": args.identities,
                   **over_time_times(with_times(folder, glob), args.engine, args.repeats, args.identities)}
        out = Path(args.out if args.out != str(HERE / "results-engines.json") else
                   HERE / "results-engines-over-time.json")
        previous = json.loads(out.read_text()) if out.exists() else {}
        previous = previous if isinstance(previous, dict) and "results" in previous else {"results": []}
        previous["results"] = [r for r in previous["results"] if r["rows"] != args.rows] + [results]
        out.write_text(json.dumps(previous, indent=2))
        return results
    if args.review:
        glob = as_csv(folder) if args.csv else glob
        results = {"engine": args.engine, "rows": args.rows, "files": args.files, "cpus": os.cpu_count(),
                   "format": "csv" if args.csv else "parquet",
                   **review_times(glob, args.engine, args.repeats, auc_bins=args.auc_bins, identities=args.identities,
                                  memory_limit=args.memory_limit, threads=args.threads, in_memory=args.in_memory,
                                  bucket_intervals=args.bucket_intervals)}
        default = HERE / ("results-engines-review-csv.json" if args.csv else "results-engines-review.json")
        out = Path(args.out if args.out != str(HERE / "results-engines.json") else default)
        out.write_text(json.dumps(results, indent=2))
        for name in ("no_intervals", "intervals", "in_memory", "bucket_intervals"):
            if name not in results:
                continue
            r = results[name]
            print(f"{name:13} {r['wall_s']:6.1f} s wall, {r['cpu_s']:6.1f} CPU-s, {r['peak_rss_mib']:6.0f} MiB peak")
        print(f"ratio (intervals / none): {results['wall_ratio']:.2f} wall, {results['cpu_ratio']:.2f} CPU")
        if args.bucket_intervals:
            print(f"ratio (bucket intervals / none): {results['bucket_wall_ratio']:.2f} wall, "
                  f"{results['bucket_cpu_ratio']:.2f} CPU, {results['bucket_rss_ratio']:.2f} peak RSS")
        return results
    run = subprocess.run([sys.executable, __file__, "--child", "--rows", str(args.rows), "--files", str(args.files),
                          "--engine", args.engine, "--memory-limit", args.memory_limit or "2GB",
                          "--auc-bins", args.auc_bins,
                          "--data", args.data], capture_output=True, text=True, check=True)
    results = {"engine": args.engine, "memory_limit": args.memory_limit or "2GB", "auc_bins": args.auc_bins,
               "files": args.files, "cpus": os.cpu_count(), **json.loads(run.stdout.strip().splitlines()[-1])}
    results["check"] = check_sample(glob, args.sample, auc_bins, args.engine)
    Path(args.out).write_text(json.dumps(results, indent=2))
    for key, value in results.items():
        print(f"{key:32} {value}")
    return results


if __name__ == "__main__":
    main()
