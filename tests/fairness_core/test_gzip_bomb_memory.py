"""A gzip bomb is refused within a bounded memory: read in a subprocess under an address-space cap.

A 4 MB gzip of 4 GiB of zeros was refused, but only after it had been decompressed up to 1 GiB, which took 2 GiB
of memory (zlib's output blocks and their joined copy). Here bombs of 2 GiB are read by a process whose address
space is capped at what it has after importing fairness_core, pandas and pyarrow plus ``MARGIN`` (768 MiB): less
than a 1 GiB decompression needs, so the old reader ends in a MemoryError, while a reader that checks gzip data as
it streams refuses it with its message.
"""

from __future__ import annotations

import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import fairness_core._data.reading as fio

ROOT = Path(__file__).resolve().parents[2]
MARGIN = 768 << 20
BOMB = 2 << 30  # decompressed bytes of each bomb
CAPPED = """
import resource, sys
import pyarrow.csv, pyarrow.parquet  # noqa: F401  (what the reader imports, before the cap)
import fairness_core as fc
with open("/proc/self/status") as fh:
    used = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (used + {margin}, used + {margin}))
for argument in sys.argv[1:]:
    path, max_cells = argument.split("::")
    try:
        fc.read_table(path, name="bomb.csv.gz", max_cells=int(max_cells))
        print("READ")
    except ValueError as exc:
        print("REFUSED:", exc)
"""


def write_bomb(path: Path, head: bytes, unit: bytes, level: int, strategy: int) -> Path:
    """gzip of `head` and then `unit` repeated to BOMB bytes, compressed 1 MiB at a time into `path`."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS, 9, strategy)
    block = unit * ((1 << 20) // len(unit))
    with open(path, "wb") as out:
        out.write(compressor.compress(head))
        for _ in range(BOMB // len(block)):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


HEADS = {"zeros": b"", "rows": b"label,score\n"}


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bombs")
    return {"zeros": write_bomb(folder / "zeros.gz", HEADS["zeros"], b"\0", 1, zlib.Z_RLE),
            "rows": write_bomb(folder / "rows.gz", HEADS["rows"], b"0,1\n", 1, zlib.Z_DEFAULT_STRATEGY)}


def test_gzip_bombs_are_refused_with_their_message_under_an_address_space_cap(bombs):
    for key, path in bombs.items():   # a few MB each, of 2 GiB (the gzip trailer's ISIZE: the size mod 2^32)
        with open(path, "rb") as fh:
            fh.seek(-4, 2)
            assert int.from_bytes(fh.read(), "little") == BOMB + len(HEADS[key])
        assert path.stat().st_size < 16 << 20
    arguments = [f"{bombs['zeros']}::20000000", f"{bombs['rows']}::2000000"]
    done = subprocess.run([sys.executable, "-W", "error", "-c", CAPPED.format(margin=MARGIN), *arguments], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "REFUSED: " + fio.GZIP_NO_ROWS_MESSAGE.format(name="bomb.csv.gz", limit=fio.MAX_GUNZIPPED_LINE),
        # the rows bomb: refused as a plain file of more than 10^6 rows of 2 columns is, from its first rows alone
        "REFUSED: " + fio.TOO_MANY_CELLS_MESSAGE.format(name="bomb.csv.gz", rows="more than 1,000,000", columns=2,
                                                        limit=2_000_000, max_rows=1_000_000)]
