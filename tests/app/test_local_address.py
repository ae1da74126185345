"""AppTest: the Data page warns when data on this machine (FAIRNESS_LOCAL_DATA) is offered on an address other
machines can reach, and says nothing when the server listens on this machine only (the default)."""

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from tests.app.helpers import ROOT
from fairness_dashboard import local_paths
from fairness_dashboard.presentation import escape


@pytest.mark.parametrize("address, warned", [("0.0.0.0", True), ("", True), ("192.0.2.10", True),
                                             ("127.0.0.1", False), ("localhost", False), ("::1", False)])
def test_data_on_this_machine_served_to_others_is_warned_about(monkeypatch, tmp_path, address, warned):
    monkeypatch.setenv(local_paths.ENV, str(tmp_path))
    before = config.get_option("server.address")
    config.set_option("server.address", address)
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
    finally:
        config.set_option("server.address", before)
    assert not at.exception
    shown = [w.value for w in at.warning if "other machines can reach it" in w.value]
    assert bool(shown) == warned, [w.value for w in at.warning]
    if warned:
        assert escape.md(str(tmp_path)) in shown[0]   # names the directories offered


def test_without_local_data_an_open_address_is_not_warned_about(monkeypatch):
    monkeypatch.delenv(local_paths.ENV, raising=False)
    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
    finally:
        config.set_option("server.address", before)
    assert not at.exception and not [w for w in at.warning if "other machines can reach it" in w.value]
