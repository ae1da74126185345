"""The app serves this machine only unless told otherwise: the server a test starts as a user would (the project's
``.streamlit/config.toml``, no address flag) listens on 127.0.0.1 alone, read from the kernel's socket table."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser


def listening(port: int) -> set[str]:
    """The local addresses with a TCP socket listening on `port` (IPv4 and IPv6), from /proc/net/tcp and tcp6."""
    found = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].split(":")
            if fields[3] != "0A" or int(port_hex, 16) != port:   # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            # the kernel writes each 32-bit word in host (little-endian) order
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.add(socket.inet_ntop(family, raw))
    return found


def test_the_app_listens_on_this_machine_only(app_url):
    port = int(app_url.rsplit(":", 1)[1])
    assert listening(port) == {"127.0.0.1"}
