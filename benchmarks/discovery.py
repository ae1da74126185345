"""Subgroup discovery (``fc.discover_subgroups``): its validity after the search, by simulation, and its speed.

    .venv/bin/python benchmarks/discovery.py                       # both sections, 200 runs per setting
    .venv/bin/python benchmarks/discovery.py --runs 20 --skip speed  # a smoke run
    .venv/bin/python benchmarks/discovery.py --json benchmarks/results-discovery.json

Simulation. Ten attributes, independent: ``a0`` of 5 equally likely values, ``a1`` of 10,
``a2`` ... ``a9`` of 2 to 9 (cycled); 10^5 rows; the prediction ~ Bernoulli(0.30). Two settings:

- ``null``: no true disparity anywhere. Goal: at most 5 % of runs report any discovery (a row of the table whose
  interval excludes parity after Benjamini-Hochberg).
- ``planted``: the selection rate is 0.30 + ``--effect`` (default 0.10) in ``a0=0 & a1=0`` (2 % of rows, depth 2).
  Goal: that intersection ranked in the top 3 in at least 80 % of runs.

In both, the top subgroup's interval is checked against its truth: the difference of the true selection rates
(each row's Bernoulli probability averaged over the held-out rows in the subgroup, and over the others; the
fixed-design truth the binomial intervals estimate). Goal: 93-97 %. Every run searches at depth 2 (min_size 30,
top 10, direction 'higher': a positive prediction adverse), holdout 0.5, ci 0.95, seed = the run's.

Quantities of a score (``scores``): the same attributes and rows, a score ~ Uniform(0, 1) and a label ~
Bernoulli(score) in every row, so no subgroup differs from the rest in its BPSN or BNSP AUC (each equal to the AUC of
the rest in the population) or its calibration error (0 in every bin): the truth of every difference is 0. Goals as
above: at most 5 % of runs report any discovery, and the top subgroup's interval covers 0 in 93-97 % of runs.

Speed: 10^6 rows x 10 columns of 10 values each (independent, uniform), depth 3, top 10; the best of
``--repeats`` wall times (``time.perf_counter``) and CPU times (``time.process_time``): the selection rate with
the default holdout (the search on 5 x 10^5 rows) and without one (all 10^6 rows), and the subgroup, BPSN and BNSP AUCs
and the calibration error of a score (clipped to [0, 1]). With ``sliceline`` installed, its
``Slicefinder`` (error = the prediction, alpha 0.99, min_sup 30) and ours on 10^5 rows x 10 columns at depth 2 (its
depth 3, and its depth 2 at 10^6 rows, ran out of memory: it evaluates slices as a sparse rows x slices product).
Its score, alpha (mean error / overall mean error - 1) - (1 - alpha) (n / |S| - 1), is not ours (the difference
with the rest), so only its top slices are printed beside ours, not checked.

Peers (``--peers``, in ``.venv-slices``: benchmarks/README.md): 10^6 rows x 10 columns of 10 values each, depth 3,
the error rate (label ~ Bernoulli(0.5), the prediction wrong with probability 0.2, or 0.4 in ``c0=1 & c3=2 &
c7=3``), minimum size 300 rows (every intersection of depth 3 has about 1,000 rows and of depth 4 about 100, so
DivExplorer, which has no depth limit, stops at depth 3 as the others do), top 10. Each tool is timed in a child
process of its own (CPU seconds of the child, its peak memory, a memory limit of ``--peer-memory`` GB and a time
limit of ``--peer-timeout`` seconds): ours (``holdout=0``: the search on every row, as the peers; and with the
default holdout), SliceLine (``Slicefinder``, alpha = 1: its score is then the slice's mean error over the overall
mean error - 1, an order of the slices by their error rate) and DivExplorer (``get_pattern_divergence`` with FP-growth,
its divergence the slice's mean error minus the overall mean). Their scorings agree where slices are of a size: ours
ranks by the slice's error rate minus the rest's, which for a slice of n_S rows of N is (e_S - e) N / (N - n_S),
the same order as e_S - e (DivExplorer) and e_S / e (SliceLine) among slices of equal size. Reported: each tool's top
10, whether its first is the planted intersection, and how many of its top 10 are in ours.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fairness_core as fc  # noqa: E402

BASE = 0.30
PLANTED = "a0=0 & a1=0"
CARDS = [5, 10] + [2 + i % 8 for i in range(8)]


def simulated(seed: int, n: int, effect: float):
    """Attributes, predictions and each row's true probability of a positive prediction."""
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({f"a{i}": rng.integers(0, k, n) for i, k in enumerate(CARDS)})
    p = np.where((x.a0 == 0) & (x.a1 == 0), BASE + effect, BASE)
    return x, (rng.random(n) < p).astype(np.int64), p


def one_run(seed: int, n: int, effect: float) -> dict:
    x, y_pred, p = simulated(seed, n, effect)
    found = fc.discover_subgroups(np.zeros(n, np.int64), y_pred, x, depth=2, min_size=30, top_k=10,
                                  direction="higher", holdout=0.5, random_state=seed)
    table = found.table
    held = np.zeros(n, dtype=bool)
    held[np.random.default_rng(seed).permutation(n)[:n // 2]] = True
    top = table.iloc[0]
    member = held.copy()
    for part in top["subgroup"].split(" & "):
        col, value = part.split("=")
        member &= (x[col] == int(value)).to_numpy()
    truth = p[member].mean() - p[held & ~member].mean()
    ranks = np.flatnonzero(table["subgroup"].to_numpy() == PLANTED)
    return {"any_discovery": bool(table["excludes_parity"].any()),
            "planted_rank": int(ranks[0]) + 1 if len(ranks) else None,
            "planted_discovered": bool(table["excludes_parity"].to_numpy()[ranks].any()) if len(ranks) else False,
            "top_covered": bool(top["ci_low"] <= truth <= top["ci_high"]),
            "top_low_miss": bool(truth < top["ci_low"]), "top": top["subgroup"]}


def simulation(runs: int, n: int, effect: float, first_seed: int = 0) -> dict:
    out = {}
    for setting, eff in (("null", 0.0), ("planted", effect)):
        start = time.perf_counter()
        results = [one_run(seed, n, eff) for seed in range(first_seed, first_seed + runs)]
        covered = np.mean([r["top_covered"] for r in results])
        row = {"runs": runs, "first_seed": first_seed, "rows": n, "effect": eff,
               "any_discovery": float(np.mean([r["any_discovery"] for r in results])),
               "top_coverage": float(covered),
               "top_misses_below": int(sum(r["top_low_miss"] for r in results)),
               "top_misses_above": int(sum(not r["top_covered"] and not r["top_low_miss"] for r in results)),
               "seconds_per_run": (time.perf_counter() - start) / runs}
        if eff > 0:
            row["planted_in_top_3"] = float(np.mean([(r["planted_rank"] or 99) <= 3 for r in results]))
            row["planted_first"] = float(np.mean([r["planted_rank"] == 1 for r in results]))
            row["planted_discovered"] = float(np.mean([r["planted_discovered"] for r in results]))
        out[setting] = row
    return out


SCORE_QUANTITIES = ("bpsn_auc", "bnsp_auc", "calibration_error")


def score_null(runs: int, n: int, first_seed: int = 0) -> dict:
    """Runs with a calibrated score and no disparity: any discovery, and the top subgroup's interval covering 0."""
    out = {}
    for quantity in SCORE_QUANTITIES:
        start, found_any, covered, below = time.perf_counter(), [], [], 0
        for seed in range(first_seed, first_seed + runs):
            x, _, _ = simulated(seed, n, 0.0)
            rng = np.random.default_rng(10_000 + seed)
            score = rng.random(n)
            y = (rng.random(n) < score).astype(np.int64)
            table = fc.discover_subgroups(y, y, x, y_score=score, quantity=quantity, depth=2, min_size=30, top_k=10,
                                          holdout=0.5, random_state=seed).table
            found_any.append(bool(table["excludes_parity"].any()))
            top = table.iloc[0]
            covered.append(bool(top["ci_low"] <= 0.0 <= top["ci_high"]))
            below += bool(top["ci_low"] > 0.0)
        out[quantity] = {"runs": runs, "first_seed": first_seed, "rows": n, "any_discovery": float(np.mean(found_any)),
                         "top_coverage": float(np.mean(covered)), "top_misses_below": int(below),
                         "top_misses_above": int(runs - sum(covered) - below),
                         "seconds_per_run": (time.perf_counter() - start) / runs}
        print(f"{quantity}: {out[quantity]}", file=sys.stderr, flush=True)
    return out


def speed(n: int, repeats: int) -> dict:
    rng = np.random.default_rng(0)
    x = pd.DataFrame({f"c{i}": rng.integers(0, 10, n).astype(np.int8) for i in range(10)})
    y_true = rng.integers(0, 2, n)
    planted = ((x.c0 == 1) & (x.c3 == 2) & (x.c7 == 3)).to_numpy()
    y_pred = (rng.random(n) < np.where(planted, 0.6, 0.3)).astype(np.int64)
    y_score = np.clip(0.5 + np.where(planted, 0.05, 0.3) * (y_true - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    fc.discover_subgroups(y_true[:2000], y_pred[:2000], x[:2000], y_score=y_score[:2000], quantity="subgroup_auc")
    out = {}
    for label, holdout, quantity in (("selection rate, holdout 0.5", 0.5, "selection_rate"),
                                     ("selection rate, no holdout", 0.0, "selection_rate"),
                                     ("subgroup AUC, holdout 0.5", 0.5, "subgroup_auc"),
                                     ("BPSN AUC, holdout 0.5", 0.5, "bpsn_auc"),
                                     ("BNSP AUC, holdout 0.5", 0.5, "bnsp_auc"),
                                     ("calibration error, holdout 0.5", 0.5, "calibration_error")):
        walls, cpus = [], []
        for _ in range(repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            found = fc.discover_subgroups(y_true, y_pred, x, y_score=y_score, quantity=quantity, depth=3, top_k=10,
                                          direction="lower" if quantity.endswith("auc") else "higher",
                                          holdout=holdout)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        out[label] = {"rows": n, "columns": 10, "depth": 3, "wall_s": min(walls), "cpu_s": min(cpus),
                      "examined": found.examined, "pruned": found.pruned, "top": found.table["subgroup"].iloc[0]}
    out["sliceline"] = peer(100_000)
    return out


def peer(n: int) -> dict:
    """sliceline's Slicefinder beside ours at depth 2 (its depth 3 needs tens of GB at 10^5 rows)."""
    try:
        from sliceline.slicefinder import Slicefinder
    except ImportError:
        return {"note": "sliceline not installed"}
    rng = np.random.default_rng(0)
    x = pd.DataFrame({f"c{i}": rng.integers(0, 10, n).astype(np.int8) for i in range(10)})
    y_pred = (rng.random(n) < np.where((x.c0 == 1) & (x.c3 == 2), 0.6, 0.3)).astype(np.int64)
    out = {"rows": n, "depth": 2}
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        finder = Slicefinder(alpha=0.99, k=3, max_l=2, min_sup=30, verbose=False).fit(x.to_numpy(), y_pred)
    except MemoryError:
        out["sliceline"] = "MemoryError"
    else:
        out["sliceline"] = {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0,
                            "top": [" & ".join(f"c{j}={v}" for j, v in enumerate(s) if v is not None)
                                    for s in finder.top_slices_]}
    w0, c0 = time.perf_counter(), time.process_time()
    found = fc.discover_subgroups(np.zeros(n, np.int64), y_pred, x, depth=2, top_k=3, direction="higher", holdout=0)
    out["ours"] = {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0,
                   "top": found.table["subgroup"].tolist()}
    return out


PEER_PLANTED = "c0=1 & c3=2 & c7=3"


def peer_data(n: int, seed: int = 0):
    """The peers' data: 10 columns of 10 values, labels, predictions wrong with probability 0.2 (0.4 planted)."""
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({f"c{i}": rng.integers(0, 10, n).astype(np.int8) for i in range(10)})
    y_true = rng.integers(0, 2, n)
    planted = ((x.c0 == 1) & (x.c3 == 2) & (x.c7 == 3)).to_numpy()
    wrong = rng.random(n) < np.where(planted, 0.4, 0.2)
    return x, y_true, np.where(wrong, 1 - y_true, y_true)


def peer_worker(tool: str, n: int, depth: int, min_size: int, top: int) -> dict:
    """One tool on the peers' data, in this (child) process: its top slices as ``c0=1 & c3=2`` texts."""
    x, y_true, y_pred = peer_data(n)
    error = (y_true != y_pred).astype(np.float64)
    c0 = time.process_time()
    if tool.startswith("ours"):
        found = fc.discover_subgroups(y_true, y_pred, x, quantity="error_rate", depth=depth, min_size=min_size,
                                      top_k=top, direction="higher", holdout=0.5 if tool.endswith("holdout") else 0)
        names = found.table["subgroup"].tolist()
    elif tool == "sliceline":
        from sliceline.slicefinder import Slicefinder

        finder = Slicefinder(alpha=1.0, k=top, max_l=depth, min_sup=min_size, verbose=False).fit(x.to_numpy(), error)
        names = [" & ".join(f"c{j}={v}" for j, v in enumerate(s) if v is not None) for s in finder.top_slices_]
    else:
        from divexplorer import DivergenceExplorer

        frame = x.astype(str).assign(error=error)
        table = DivergenceExplorer(frame).get_pattern_divergence(min_support=min_size / n,
                                                                 quantitative_outcomes=["error"])
        table = table[table["itemset"].map(len) <= depth].sort_values("error_div", ascending=False, kind="stable")
        names = [" & ".join(sorted(items, key=lambda t: int(t.split("=")[0][1:]))) for items in
                 table["itemset"].head(top)]
    return {"cpu_s": time.process_time() - c0, "top": names,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def peers(n: int, depth: int = 3, min_size: int = 300, top: int = 10, memory_gb: float = 8.0,
          timeout: float = 900.0, tools=("ours", "ours_holdout", "sliceline", "divexplorer")) -> dict:
    """Every tool in a child process (a memory and a time limit); their tops beside ours."""
    out = {"rows": n, "columns": 10, "values": 10, "depth": depth, "min_size": min_size, "top": top,
           "quantity": "error_rate", "planted": PEER_PLANTED}
    for tool in tools:
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import discovery; "
                    f"json.dump(discovery.peer_worker({tool!r}, {n}, {depth}, {min_size}, {top}), "
                    f"open({f.name!r}, 'w'))")
            limit = int(memory_gb * 2 ** 30)
            w0 = time.perf_counter()
            try:
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                                      preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
            except subprocess.TimeoutExpired:
                out[tool] = {"failed": f"no result within {timeout:.0f} s"}
                continue
            wall = time.perf_counter() - w0
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["?"])[-1]
                out[tool] = {"failed": f"exit {done.returncode}: {last[:300]}", "wall_s": wall}
                continue
            out[tool] = {**json.loads(Path(f.name).read_text()), "wall_s": wall}
        print(f"{tool}: {out[tool]}", file=sys.stderr, flush=True)
    if "ours" not in out:
        out["ours"] = peer_worker("ours", n, depth, min_size, top)
    ours = set(out["ours"].get("top", []))
    for tool in tools:
        if "top" in out[tool] and tool != "ours":
            out[tool]["first_is_planted"] = bool(out[tool]["top"][:1] == [PEER_PLANTED])
            out[tool]["in_ours_top"] = len(ours & set(out[tool]["top"]))
    out["ours"]["first_is_planted"] = out["ours"].get("top", [None])[:1] == [PEER_PLANTED]
    out["load_average"] = os.getloadavg()
    return out


def report(result: dict) -> str:
    lines = ["| setting | runs | any discovery | planted in top 3 | planted first | planted discovered | top covered "
             "| misses below / above |", "|---|---|---|---|---|---|---|---|"]
    for name, r in result.get("simulation", {}).items():
        lines.append(f"| {name} (effect {r['effect']:.2f}) | {r['runs']} | {r['any_discovery']:.1%} "
                     f"| {r.get('planted_in_top_3', float('nan')):.1%} | {r.get('planted_first', float('nan')):.1%} "
                     f"| {r.get('planted_discovered', float('nan')):.1%} | {r['top_coverage']:.1%} "
                     f"| {r['top_misses_below']} / {r['top_misses_above']} |")
    for name, r in result.get("scores", {}).items():
        lines.append(f"| {name}, calibrated score (no disparity) | {r['runs']} | {r['any_discovery']:.1%} | | | "
                     f"| {r['top_coverage']:.1%} | {r['top_misses_below']} / {r['top_misses_above']} |")
    for name, r in result.get("speed", {}).items():
        lines.append(f"\n{name}: {r}")
    if "peers" in result:
        p = result["peers"]
        lines += ["", f"Peers: {p['rows']:,} rows x {p['columns']} columns of {p['values']} values, depth {p['depth']}, "
                  f"{p['quantity']}, min size {p['min_size']}, top {p['top']}", "",
                  "| tool | CPU s | wall s | peak RSS MB | first is planted | of its top in ours |",
                  "|---|---|---|---|---|---|"]
        for tool in [t for t in ("ours", "ours_holdout", "sliceline", "divexplorer") if t in p]:
            r = p[tool]
            if "failed" in r:
                lines.append(f"| {tool} | failed: {r['failed']} | | | | |")
                continue
            lines.append(f"| {tool} | {r['cpu_s']:.2f} | {r['wall_s']:.2f} | {r['peak_rss_mb']:.0f} "
                         f"| {r.get('first_is_planted')} | {r.get('in_ours_top', len(r['top']))} / {len(r['top'])} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--effect", type=float, default=0.10)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first_seed ... first_seed + runs - 1")
    parser.add_argument("--speed-rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip", default="", help="comma list of: simulation, scores, speed")
    parser.add_argument("--peers", action="store_true", help="time SliceLine and DivExplorer beside ours")
    parser.add_argument("--peer-rows", type=int, default=1_000_000)
    parser.add_argument("--peer-memory", type=float, default=8.0, help="GB of address space per tool")
    parser.add_argument("--peer-min-size", type=int, default=300)
    parser.add_argument("--peer-depth", type=int, default=3)
    parser.add_argument("--peer-tools", default="ours,ours_holdout,sliceline,divexplorer")
    parser.add_argument("--peer-timeout", type=float, default=900.0, help="seconds per tool")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    result = {}
    if "simulation" not in skip:
        result["simulation"] = simulation(args.runs, args.rows, args.effect, args.first_seed)
    if "scores" not in skip:
        result["scores"] = score_null(args.runs, args.rows, args.first_seed)
    if "speed" not in skip:
        result["speed"] = speed(args.speed_rows, args.repeats)
    if args.peers:
        result["peers"] = peers(args.peer_rows, args.peer_depth, args.peer_min_size, memory_gb=args.peer_memory,
                                timeout=args.peer_timeout, tools=tuple(args.peer_tools.split(",")))
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
