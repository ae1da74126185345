"""Suite-wide fixtures: the real datasets beside the project, and quiet Streamlit logs."""

import logging
import time
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import app_test, local_script_runner

from tests import tiers
from tests.support import ROOT, SHARED_DATA, hypothesis_profile, require_file

# Property tests (hypothesis): in CI (.ci/run sets CI) the same examples every run (derandomized, no example
# database) and half as many (tests.support.examples); elsewhere random exploration; HYPOTHESIS_PROFILE=thorough
# for ten times as many examples, by hand. A test's own @settings(deadline=...) still applies.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("dev")
hypothesis_settings.register_profile("thorough")
hypothesis_settings.load_profile(hypothesis_profile())

# AppTest runs scripts without a browser session; Streamlit logs this once per widget call.
logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
logging.getLogger("streamlit.runtime.caching.cache_data_api").setLevel(logging.ERROR)


def _wait_for_script_run(runner, timeout: float = 3) -> None:
    """AppTest's wait for a script run to finish, with the same timeout and error, polling every 10 ms.

    Streamlit's own wait (``local_script_runner.require_widgets_deltas``) wakes every millisecond: each wake takes
    the GIL from the script it waits for, and over the suite's thousands of runs that polling costs minutes of CPU.
    A run finishes at most 10 ms later than it would otherwise be seen to.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if runner.script_stopped():
            return
        time.sleep(0.01)
    if runner.script_stopped():
        return
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


# What is patched, kept for the internals canary (tests/ui/test_streamlit_internals.py checks that each still exists
# with the signature the patches assume).
# Kept on Streamlit's own modules, so a second import of this file still finds the originals.
for _module, _name in ((local_script_runner, "require_widgets_deltas"), (app_test, "ScriptCache"),
                       (local_script_runner, "ScriptCache")):
    if not hasattr(_module, "_original_" + _name):
        setattr(_module, "_original_" + _name, getattr(_module, _name))
PATCHED = {"require_widgets_deltas": local_script_runner._original_require_widgets_deltas,
           "app_test.ScriptCache": app_test._original_ScriptCache,
           "local_script_runner.ScriptCache": local_script_runner._original_ScriptCache}
local_script_runner.require_widgets_deltas = _wait_for_script_run

# AppTest compiles every page anew on each run (a new ScriptCache per run): one cache per test process instead. The
# scripts do not change during a run of the suite; scripts AppTest writes (from_function, from_string) have their own
# paths.
_SCRIPTS = ScriptCache()
app_test.ScriptCache = local_script_runner.ScriptCache = lambda: _SCRIPTS


@pytest.fixture(scope="session")
def compas_csv() -> Path:
    """COMPAS two-year recidivism file (7,214 rows)."""
    return require_file(SHARED_DATA / "compas" / "compas-scores-two-years.csv")


@pytest.fixture(scope="session")
def madlibs_csv() -> Path:
    """Jigsaw madlibs with 51 identity indicator columns (30,240 rows)."""
    return require_file(SHARED_DATA / "jigsaw_madlibs" / "madlibs_identities.csv")


ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                 "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
                 "income"]


FIXTURE_CACHE = ROOT / "test-artifacts" / "fixture-cache"


def cached_file(key: str, name: str, build) -> Path:
    """The file `FIXTURE_CACHE / key / name`, written by ``build(path)`` when missing: computed once per machine and
    shared by every xdist worker (an exclusive lock while one worker builds it; the others then read it). The key
    carries everything the content depends on (seed, library versions), so a stale file is never read, and the
    file keeps its own name (the app shows it); ``make clean`` removes the cache."""
    import fcntl

    folder = FIXTURE_CACHE / key
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            partial = folder / (name + ".partial")
            build(partial)
            partial.replace(path)
    return path


@pytest.fixture(scope="session")
def adult_two_models_csv() -> Path:
    """UCI Adult's test set scored by two models trained on its training set, as a newcomer's file would be:
    columns y_true, p_hgb, p_logreg, sex, race, age (16,281 rows). Seeded: the same file every run, trained once
    per machine (:func:`cached_file`, keyed by the seed and scikit-learn's version)."""
    import sklearn

    seed = 0
    return cached_file(f"adult-seed{seed}-sklearn{sklearn.__version__}", "adult_two_models.csv",
                       lambda path: _train_adult_two_models(seed).to_csv(path, index=False))


def _train_adult_two_models(seed: int):
    import pandas as pd
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def read(name: str, skip: int) -> pd.DataFrame:
        frame = pd.read_csv(require_file(SHARED_DATA / "adult" / name), header=None, names=ADULT_COLUMNS,
                            skipinitialspace=True, na_values="?", skiprows=skip)
        frame["income"] = frame["income"].str.rstrip(".")
        return frame

    train, test = read("adult.data", 0), read("adult.test", 1)
    categorical = ["workclass", "marital-status", "occupation", "relationship", "race", "sex"]
    numeric = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    both = pd.get_dummies(pd.concat([train, test])[numeric + categorical], columns=categorical, dtype=float)
    x_train, x_test = both.iloc[:len(train)], both.iloc[len(train):]
    y_train = (train["income"] == ">50K").astype(int)
    hgb = HistGradientBoostingClassifier(random_state=seed).fit(x_train, y_train)
    logreg = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(x_train, y_train)
    return pd.DataFrame({"y_true": (test["income"] == ">50K").astype(int),
                         "p_hgb": hgb.predict_proba(x_test)[:, 1].round(4),
                         "p_logreg": logreg.predict_proba(x_test)[:, 1].round(4),
                         "sex": test["sex"], "race": test["race"], "age": test["age"]})


# Options of the test Spark session's driver JVM (see the ``spark`` fixture).
SPARK_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def spark():
    """One Spark session (pyspark's local mode) for every Spark test of the run: a JVM takes about 30 s to start.
    The Spark tests share one xdist group (:func:`pytest_collection_modifyitems`), so one worker starts it.

    The driver's JVM compiles with its first-tier compiler only (``-XX:TieredStopAtLevel=1``) and collects with one
    thread (``-XX:+UseSerialGC``): the tests run hundreds of small queries, each planned and compiled once, where the
    optimising compiler's threads cost more than they save. Measured on this 2-core machine for the 38 Spark tests
    (``pytest -m spark``, one process): 82 CPU-seconds instead of 118, the JVM's included; what the queries compute is
    the same."""
    import shutil

    from tests.support import fail_or_skip

    if shutil.which("java") is None:
        fail_or_skip("Java is not installed: pyspark's local mode needs it (.ci/run installs default-jre-headless).")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("fairness_core-tests")
               .config("spark.driver.extraJavaOptions", SPARK_JAVA_OPTIONS)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    session.sparkContext.setLogLevel("FATAL")
    yield session
    session.stop()


# The browser tests' second xdist group (``make test``: two workers drive the browser, each with its app server and
# Chromium, beside the CPU-bound tests): these modules, about half of the browser tier's time (measured one after the
# other: 254 s, and 257 s for the first group); every other browser module is in the first group.
SECOND_BROWSER_GROUP = frozenset({"test_load_isolation_browser", "test_layout_1024_browser", "test_charts_browser",
                                  "test_comparison_browser", "test_model_differences_browser", "test_report_browser"})


def browser_group(module: str, own_server: bool = False) -> str:
    """The xdist group of the browser tests of `module` (its name without the package, e.g. "test_app_browser"):
    "browser-2" for SECOND_BROWSER_GROUP, "browser-<module>" when it starts a server of its own (``OWN_SERVER``),
    else "browser-1"."""
    if own_server:
        return f"browser-{module}"
    return "browser-2" if module in SECOND_BROWSER_GROUP else "browser-1"


def keep_group(item, config) -> None:
    """Make `item`'s ``xdist_group`` marker take effect under ``--dist loadgroup`` (tests/test_tiers.py checks it).

    pytest-xdist 3.8 marks a test's group by appending "@<group>" to ``item._nodeid``, which pytest 9.2 no longer
    reads (a node's id is ``item._id``): every test was then a group of its own, and each worker started its own
    app server, Chromium and Spark session. This writes the same suffix where pytest 9.2 keeps the id; on older
    pytest (8.x), which reads ``item._nodeid`` as xdist sets it, it does nothing."""
    group = item.get_closest_marker("xdist_group")
    if group is None or not getattr(config.option, "loadgroup", False):   # not an xdist worker of --dist loadgroup
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:
        return
    if not item.nodeid.endswith(f"@{group.args[0]}"):
        item._id = NodeId.parse(f"{item.nodeid}@{group.args[0]}")


@pytest.hookimpl(tryfirst=True)   # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config, items):
    """`make test` runs pytest-xdist workers with ``--dist loadgroup``: the browser tests go to two groups
    (:func:`browser_group`), each on one worker, so one app server and one Chromium serve each group. A browser
    test whose module starts a server of its own (``OWN_SERVER``) is a group of its own, free to run on any worker.
    Every Spark test goes to one worker too: one JVM (the ``spark`` fixture).

    Every test of the full tier (``tests/tiers.py``: its file's tier, a browser or Spark test) is marked ``full``:
    ``make check`` runs the others (``-m "not full"``)."""
    for item in items:
        path = Path(str(item.fspath)).resolve().relative_to(ROOT).as_posix()
        if tiers.tier(path) == "full" or item.get_closest_marker("browser") or item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.full)
        if item.get_closest_marker("browser") is not None:
            module = item.module.__name__.rsplit(".", 1)[-1]
            item.add_marker(pytest.mark.xdist_group(browser_group(module, getattr(item.module, "OWN_SERVER", False))))
        elif item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark"))
        keep_group(item, config)
    # The browser tests first: their two workers spend most of their time waiting on a server and Chromium, so
    # starting them at once, beside the CPU-bound tests on the other workers, shortens the run by several minutes.
    # Then the longest tests on their own (LONGEST_FIRST), then the rest of the full tier, then the check tier's short
    # tests: under --dist loadgroup, pytest-xdist hands out the groups (largest first) and then every other test in
    # this order, so a test of a minute or two never starts last, on one worker, while the others have finished.
    items.sort(key=schedule_rank)


# Tests that take a minute or more of a `make test` run on their own (pytest --durations, 2 cores, 3 workers: the
# benchmark smoke tests 52-124 s, the coverage simulation 20-45 s; 4 workers: the bad-input catalogue's 200 overlapping
# identity columns 81 s (about 35 CPU-seconds), the local source's longest 34 s), by path
# prefix from the project root: handed out before every other test outside a group (:func:`schedule_rank`).
LONGEST_FIRST = ("tests/test_benchmark_smoke.py", "tests/test_coverage_smoke.py",
                 "tests/app/test_bad_input_catalogue_app.py", "tests/app/test_local_source.py")


def schedule_rank(item) -> int:
    """Where `item` goes in the order pytest-xdist hands tests out (lower first): 0 a browser test, 1 one of
    LONGEST_FIRST, 2 another test of the full tier (an AppTest, a simulation: seconds each), 3 the check tier's
    (mostly milliseconds each), which then fill the workers' last minutes evenly."""
    if item.get_closest_marker("browser") is not None:
        return 0
    if item.nodeid.split("::", 1)[0].startswith(LONGEST_FIRST):
        return 1
    return 2 if item.get_closest_marker("full") is not None else 3
