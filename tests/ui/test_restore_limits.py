"""A restore file or a ``?review=`` link of any content is answered at once, in bounded memory, with a message that
names the field.

jsonschema checks every item of an array even after its ``maxItems`` failed and keeps an error object per item: a
9 MB file of 3,000,000 ``{}`` grew the server by gigabytes, 10^5 invalid items took 71 s, and a 372-character link
cost 356 MB per opening. Each case here runs in a child process whose address space is capped at 50 MB above what
it held before the cases (a ``MemoryError`` there fails the test), and its CPU time is measured.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from tests.support import ROOT

CHILD = textwrap.dedent(r'''
    import base64, json, resource, sys, time, zlib
    import fairness_core as fc
    from fairness_dashboard.settings import review_restore, review_url

    MAPPING = {"label": "y", "positive_label": 1, "scores": ["s"], "protected": ["r"]}

    def config(**parts):
        return {"version": 1, "mapping": MAPPING} | parts

    def link(data):
        raw = json.dumps(data, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")

    def report(text):
        return ('<html><body>' + 'x' * 2_000_000 + '<script type="application/json" id="review-config">'
                + text + '</script></body></html>').encode()

    def export(configuration, padding):
        return json.dumps({"context": {"source": {"name": "a.csv"}, "configuration": configuration},
                           "tables": [{}] * padding}).encode()

    big = json.dumps(config(slice=[{"column": "a", "values": [{}] * 3_000_000}]))
    cases = {
        "file of 3,000,000 items": ("file", big.encode(), "larger than a configuration can be"),
        "file of 100,000 invalid items": ("file", json.dumps(config(slice=[{"column": "a", "values": [{}] * 66_000}])).encode(), "slice.0.values"),
        "file of 10,000 invalid items": ("file", json.dumps(config(slice=[{"column": "a", "values": [{}] * 10_000}])).encode(), "slice.0.values.0"),
        "unhashable rate metrics": ("file", json.dumps(config(options={"rate_metrics": [{}] * 10_000})).encode(), "options.rate_metrics"),
        "too many values in all": ("file", json.dumps(config(slice=[{"column": "a", "values": [1, 2]}] * 9_000)).encode(), "more than 25,000 values"),
        "deep nesting": ("file", json.dumps(config(view={"a": json.loads("[" * 40 + "]" * 40)})).encode(), "nested"),
        "100,000 brackets": ("file", b'{"mapping": ' + b"[" * 100_000, "JSON"),
        "report holding 3,000,000 items": ("file", report(big), "larger than a configuration"),
        "export of 3,000,000 tables": ("file", export(config(), 3_000_000), None),
        "export whose configuration has 3,000,000 items": ("file", export(json.loads(big), 10), "configuration"),
        "large file that is no configuration": ("file", b"{" + b" " * 9_000_000 + b"}", "not a review's JSON export"),
        "link of 99,950 items": ("link", link(config(slice=[{"column": "a", "values": [{}] * 99_950}])), "slice.0.values"),
        "link inflating past the bound": ("link", link(config(view={"a": "x" * 3_000_000})), "more than"),
    }
    # Warm up: the first validation imports jsonschema's referencing and compiles the schema.
    fc.ReviewConfig.from_dict(config())
    try:
        fc.ReviewConfig.from_dict(config(slice=[{"column": "a", "values": [{}]}]))
    except ValueError:
        pass
    with open("/proc/self/status") as status:
        size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (size + 50 * 2 ** 20, resource.getrlimit(resource.RLIMIT_AS)[1]))
    out = {}
    for name, (kind, payload, expect) in cases.items():
        started = time.process_time()
        try:
            result = review_restore.read_config(payload) if kind == "file" else review_url.decode(payload)
            message = "restored " + result.mapping.label
        except ValueError as exc:
            message = str(exc)
        out[name] = {"cpu": time.process_time() - started, "message": message, "expect": expect}
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def answers() -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_every_hostile_restore_is_answered_in_bounded_memory_and_well_under_a_second(answers):
    assert len(answers) == 13
    for name, answer in answers.items():
        assert answer["cpu"] < 1.0, (name, answer["cpu"])


@pytest.mark.parametrize("name", [
    "file of 3,000,000 items", "file of 100,000 invalid items", "file of 10,000 invalid items",
    "unhashable rate metrics", "too many values in all", "deep nesting", "100,000 brackets",
    "report holding 3,000,000 items", "export whose configuration has 3,000,000 items",
    "large file that is no configuration", "link of 99,950 items", "link inflating past the bound"])
def test_each_refusal_says_what_is_wrong(answers, name):
    message = answers[name]["message"]
    assert message.startswith("The saved settings cannot be read") or "configuration is not valid" in message, message
    assert answers[name]["expect"] in message, message
    assert len(message) < 800, message


def test_a_large_review_export_still_restores_its_configuration(answers):
    # A review's JSON export is larger than a configuration: only its configuration is parsed.
    assert answers["export of 3,000,000 tables"]["message"] == "restored y"


@pytest.mark.parametrize("change, expected", [
    ({"mapping": {"weight": "y"}}, "mapping.weight: column 'y' is both the label and the weight"),
    ({"mapping": {"weight": "r"}}, "mapping.weight: column 'r' is both a protected attribute and the weight"),
    ({"options": {"baseline": "y"}}, "options.baseline: 'y' is not one of the mapping's scores ('s')"),
    ({"options": {"baseline": "nowhere"}}, "options.baseline: 'nowhere' is not one of the mapping's scores"),
])
def test_a_restored_column_in_two_roles_or_an_unknown_baseline_is_refused_with_its_field(change, expected):
    """N7: such a weight column was dropped, and such a baseline restored, without a word."""
    from fairness_dashboard.settings import review_restore, review_url

    data = {"version": 1, "mapping": {"label": "y", "positive_label": 1, "scores": ["s"], "protected": ["r"]}}
    for part, values in change.items():
        data[part] = data.get(part, {}) | values
    with pytest.raises(ValueError, match=re.escape(expected)):
        review_restore.read_config(json.dumps(data).encode())
    import base64
    import zlib

    link = base64.urlsafe_b64encode(zlib.compress(json.dumps(data).encode(), 9)).decode().rstrip("=")
    with pytest.raises(ValueError, match=re.escape(expected)):
        review_url.decode(link)
