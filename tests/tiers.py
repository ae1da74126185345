"""The suite's two tiers, one command each (README, "Run it, test it"):

- ``make check``, before each commit: every test not marked ``full`` — the library's unit, cross-check and
  property tests (at the developer's hypothesis profile), the ui helpers, and one AppTest walk of every page
  on each sample (``tests/app/test_pages.py``); about four minutes on two cores;
- ``make test``, what CI runs (``.ci/run``): every test, these and the ``full`` tier's — the browser tests,
  Spark, the other AppTests, the coverage simulations, the large-data tests and the documentation's build.

A test is in the full tier when its file is (:data:`FULL_FILES`, by path prefix from the project root, with the
exceptions of :data:`CHECK_FILES`), when it is marked ``browser`` or ``spark``, or when it carries
``@pytest.mark.full`` itself (a simulation or a large-data test in a file of the check tier).
``tests/conftest.py`` adds the ``full`` marker from here; ``tests/test_tiers.py`` checks that every test file
has a tier.
"""

from __future__ import annotations

# Files (or folders, ending in "/") of the full tier.
FULL_FILES = ("tests/browser/", "tests/app/", "tests/test_benchmark_smoke.py", "tests/test_coverage_smoke.py",
              "tests/test_packaging.py", "tests/test_docs.py", "tests/test_ci_gate_example.py")
# Files inside a folder of the full tier that run in the check tier too: a short AppTest of every page.
CHECK_FILES = ("tests/app/test_pages.py",)


def tier(path: str) -> str:
    """``"full"`` or ``"check"``: the tier of the test file at `path` (relative to the project root, "/"-separated)."""
    if path in CHECK_FILES:
        return "check"
    return "full" if any(path == f or (f.endswith("/") and path.startswith(f)) for f in FULL_FILES) else "check"
