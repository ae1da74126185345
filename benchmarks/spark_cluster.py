"""The spark-submit route of docs/data-beyond-memory.md, end to end, on a Spark standalone cluster started on this machine.

    python benchmarks/spark_cluster.py [--rows 10000000] [--files 10] [--data DIR] [--port 7077]

1. starts a standalone cluster from the pyspark installation (its ``bin/spark-class``; pip's pyspark
   ships no ``sbin/start-master.sh``): a master and two workers bound to 127.0.0.1, one core and
   ``--worker-memory`` each;
2. builds the wheel (``python -m build --wheel`` into ``dist/``);
3. writes ``--rows`` rows of ``benchmarks/engines.py``'s logs as ``--files`` Parquet files (kept and reused);
4. runs that page's command against the cluster::

       spark-submit --master spark://127.0.0.1:7077 --py-files dist/fairness_core-<version>-py3-none-any.whl \\
           benchmarks/review_logs.py file:///DIR/ --out review-spark.json

   The driver runs in this venv's Python (``PYSPARK_DRIVER_PYTHON``: it needs the package's dependencies,
   pandas, numpy, pyarrow, ...), and imports fairness_core from the wheel (``--py-files`` puts it first on
   ``sys.path``). ``PYSPARK_PYTHON`` (the executors' Python) is set to a path that does not exist: the
   queries are SQL, no Python UDF, so the workers run no Python, and the run proves it;
5. runs the same driver on DuckDB (``--engine duckdb``) and compares the two reviews (every table and
   verdict; numbers to 1e-9 relative);
6. prints the timings and the comparison, and stops the cluster (always, in a ``finally``).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def spark_home() -> Path:
    """The pyspark installation (its ``bin/spark-class``, ``bin/spark-submit`` and ``jars/``)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the JVM binds (a closed port in TIME_WAIT is free)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def _wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise RuntimeError(f"timed out waiting for {what}")


class Cluster:
    """A standalone master and `workers` workers on 127.0.0.1, as child processes of this script."""

    def __init__(self, port: int, workers: int, memory: str, logs: Path):
        self.port, self.workers, self.memory, self.logs = port, workers, memory, logs
        self.processes: list[subprocess.Popen] = []
        self.url = f"spark://127.0.0.1:{port}"

    def _start(self, name: str, *args: str) -> None:
        env = dict(os.environ, SPARK_HOME=str(spark_home()), SPARK_LOCAL_IP="127.0.0.1",
                   SPARK_WORKER_DIR=str(self.logs / "work"), SPARK_LOG_DIR=str(self.logs))
        out = open(self.logs / f"{name}.log", "w")
        self.processes.append(subprocess.Popen([str(spark_home() / "bin" / "spark-class"), *args], env=env,
                                               stdout=out, stderr=subprocess.STDOUT, start_new_session=True))

    def start(self) -> None:
        self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(self.port), "--webui-port", "0")
        _wait_for(lambda: not _free(self.port), 60, "the master")
        for i in range(self.workers):
            self._start(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                        "--cores", "1", "--memory", self.memory, "--webui-port", "0", self.url)
        _wait_for(lambda: sum("Successfully registered with master" in (self.logs / f"worker-{i}.log").read_text()
                              for i in range(self.workers)) == self.workers, 90, "the workers to register")

    def stop(self) -> None:
        for p in reversed(self.processes):   # each by its own process group (spark-class execs java in it)
            if p.poll() is None:
                os.killpg(p.pid, 15)
        for p in self.processes:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()


def build_wheel(dist: Path) -> Path:
    """``python -m build --wheel`` of this checkout into `dist`; the wheel's path."""
    for old in dist.glob("fairness_core-*.whl"):
        old.unlink()
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)], check=True,
                   stdout=subprocess.DEVNULL)
    (wheel,) = dist.glob("fairness_core-*-py3-none-any.whl")
    return wheel


def compare(a, b, path: str = "", rtol: float = 1e-9, diffs: list | None = None) -> list:
    """The places where two JSON values differ (numbers to `rtol` relative), as 'path: a != b' lines."""
    diffs = [] if diffs is None else diffs
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            compare(a.get(k), b.get(k), f"{path}.{k}", rtol, diffs)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", rtol, diffs)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if not (a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
                or math.isclose(a, b, rel_tol=rtol, abs_tol=1e-12)):
            diffs.append(f"{path}: {a!r} != {b!r}")
    elif a != b:
        diffs.append(f"{path}: {str(a)[:80]!r} != {str(b)[:80]!r}")
    return diffs


def main(argv=None) -> dict:
    """Run the steps of the module docstring; return (and print) the timings and the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of the generated logs")
    parser.add_argument("--files", type=int, default=10, help="Parquet files they are written in")
    parser.add_argument("--data", default=None, help="where the files are kept (default /tmp/fairness-spark-ROWS)")
    parser.add_argument("--port", type=int, default=7077, help="the master's port (the next free one if taken)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-memory", default="1g")
    parser.add_argument("--out", default=None, help="write the results as JSON here too")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(HERE))
    from engines import make_files

    home = spark_home()
    port = next(p for p in range(args.port, args.port + 50) if _free(p))
    data = Path(args.data or f"/tmp/fairness-spark-{args.rows}")
    work = Path(tempfile.mkdtemp(prefix="fairness-spark-cluster-"))
    result = {"rows": args.rows, "files": args.files, "workers": args.workers, "worker_memory": args.worker_memory}
    t = time.perf_counter()
    make_files(data, args.rows, args.files)
    result["write_s"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    wheel = build_wheel(ROOT / "dist")
    result["wheel"], result["build_s"] = wheel.name, round(time.perf_counter() - t, 1)
    cluster = Cluster(port, args.workers, args.worker_memory, work)
    try:
        t = time.perf_counter()
        cluster.start()
        result["cluster_start_s"] = round(time.perf_counter() - t, 1)
        uri = f"file://{data}/"
        command = [str(home / "bin" / "spark-submit"), "--master", cluster.url, "--py-files", str(wheel),
                   "--executor-memory", "768m", "--conf", "spark.ui.enabled=false",
                   "--conf", "spark.sql.shuffle.partitions=4",
                   str(HERE / "review_logs.py"), uri, "--out", str(work / "review-spark.json")]
        env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOCAL_IP="127.0.0.1",
                   PYSPARK_DRIVER_PYTHON=sys.executable, PYSPARK_PYTHON="/nonexistent/python-on-the-workers")
        env.pop("PYTHONPATH", None)
        env.pop("SPARK_MASTER", None)
        result["command"] = " ".join(command[:1] + ["--master", cluster.url, "--py-files", f"dist/{wheel.name}"]
                                     + ["benchmarks/review_logs.py", uri])
        print("$", result["command"], flush=True)
        t = time.perf_counter()
        run = subprocess.run(command, env=env, cwd=work, capture_output=True, text=True, timeout=3600)
        result["spark_submit_s"] = round(time.perf_counter() - t, 1)
        if run.returncode != 0:
            print(run.stderr[-5000:], file=sys.stderr)
            raise RuntimeError(f"spark-submit exited {run.returncode}")
        result["spark"] = json.loads(run.stdout.strip().splitlines()[-1])
        executors = glob.glob(str(work / "work" / "app-*" / "*" / "stderr"))
        result["executors_started"] = len(executors)
        result["python_failure_on_workers"] = any("Cannot run program" in Path(f).read_text() for f in executors)
    finally:
        cluster.stop()
        result["cluster_stopped"] = all(p.poll() is not None for p in cluster.processes)
    t = time.perf_counter()
    duck = subprocess.run([sys.executable, str(HERE / "review_logs.py"), str(data), "--engine", "duckdb",
                           "--out", str(work / "review-duckdb.json")], cwd=work, capture_output=True, text=True,
                          check=True, env=dict(os.environ, PYTHONPATH=str(wheel)))   # the same code as the driver's
    result["duckdb_s"] = round(time.perf_counter() - t, 1)
    result["duckdb"] = json.loads(duck.stdout.strip().splitlines()[-1])
    spark_review = json.loads((work / "review-spark.json").read_text())
    duck_review = json.loads((work / "review-duckdb.json").read_text())
    for review in (spark_review, duck_review):   # when and from where (engine, path): the expected differences
        review.get("context", {}).pop("created", None)
        review.get("context", {}).pop("source", None)
    diffs = compare(spark_review, duck_review)
    result["reviews_equal"] = not diffs
    result["differences"] = diffs[:20]
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return result


if __name__ == "__main__":
    main()
