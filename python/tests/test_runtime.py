"""How the streams behave at run time: the consumers that read them, the
GIL, Ctrl-C, memory."""

import signal
import threading
import time

import pyarrow as pa
import pytest

import pgnkit
from conftest import PGN_FIXTURES, repeated

TWIC = [p for p in PGN_FIXTURES if p.name == "twic1599_excerpt.pgn"][0]


def test_polars_reads_a_stream():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame(pgnkit.games(TWIC))
    expected = pa.table(pgnkit.games(TWIC))
    assert df.height == expected.num_rows
    assert df["plies"].dtype == pl.UInt32
    assert df["uci"].dtype == pl.List(pl.String)
    assert df["white"].to_list() == expected["white"].to_pylist()


def test_duckdb_reads_a_stream():
    duckdb = pytest.importorskip("duckdb")
    s = pgnkit.validate(*PGN_FIXTURES)
    rows = duckdb.sql("select code, count(*) as n from s group by code order by code").fetchall()
    expected = pa.table(pgnkit.validate(*PGN_FIXTURES)).group_by("code").aggregate([("code", "count")])
    assert dict(rows) == {
        str(c): n for c, n in zip(expected["code"].to_pylist(), expected["code_count"].to_pylist())
    }


def test_pandas_reads_a_stream():
    pd = pytest.importorskip("pandas")
    if hasattr(pd.DataFrame, "from_arrow"):
        df = pd.DataFrame.from_arrow(pgnkit.annotate_outcome(TWIC))
    else:
        df = pa.table(pgnkit.annotate_outcome(TWIC)).to_pandas()
    assert len(df) == pa.table(pgnkit.annotate_outcome(TWIC)).num_rows
    assert list(df["game"]) == list(range(1, len(df) + 1))


def test_batches_are_arrow_arrays_and_schema_capsules():
    s = pgnkit.games(TWIC)
    schema = pa.schema(s.schema)
    assert schema.names == s.schema.names
    assert schema.field("game").type == pa.uint64()
    batches = [pa.record_batch(b) for b in s]
    assert batches and all(b.schema == schema for b in batches)
    import polars as pl

    assert pl.DataFrame(next(iter(pgnkit.games(TWIC)))).height == batches[0].num_rows


def test_gil_is_released_while_a_call_runs(corpus_pgn, tmp_path):
    path = repeated(corpus_pgn, tmp_path / "x20.pgn", 20 * corpus_pgn.stat().st_size)
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    for consume in (pa.table, lambda s: [b.num_rows for b in s]):
        ticks.clear()
        stop.clear()
        t = threading.Thread(target=spin)
        t.start()
        start = time.monotonic()
        consume(pgnkit.games(path, threads=1))
        elapsed = time.monotonic() - start
        stop.set()
        t.join()
        # a thread that never got the GIL would have ticked once or twice
        assert elapsed > 0.2
        assert len(ticks) > 0.25 * elapsed * 1000 / 2, (len(ticks), elapsed)


INTERRUPTED = """
import sys, time, pgnkit
{setup}
print("started", flush=True)
try:
    {call}
except KeyboardInterrupt:
    print("interrupted after %.2f s" % (time.monotonic() - t0), flush=True)
    raise
print("finished", flush=True)
"""

CALLS = {
    "iterate": ("t0 = time.monotonic()", "for b in pgnkit.games(sys.argv[-1], threads=1): pass"),
    "pyarrow": (
        "import pyarrow as pa; t0 = time.monotonic()",
        "pa.table(pgnkit.games(sys.argv[-1], threads=1))",
    ),
    "polars": (
        "import polars as pl; t0 = time.monotonic()",
        "pl.DataFrame(pgnkit.games(sys.argv[-1], threads=1))",
    ),
}


def _interrupt(big_pgn, setup, call):
    """Seconds from SIGINT to the end of a child running `call`."""
    import os
    import subprocess
    import sys

    code = INTERRUPTED.format(setup=setup, call=call)
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(big_pgn)],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == "started"
    time.sleep(1.5)  # well inside the call: 200 MB take tens of seconds
    assert child.poll() is None, child.communicate()
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    took = time.monotonic() - sent
    assert "KeyboardInterrupt" in err, err
    assert "finished" not in out
    return took


@pytest.mark.parametrize("how", CALLS)
def test_ctrl_c_stops_a_long_call(big_pgn, how):
    setup, call = CALLS[how]
    took = _interrupt(big_pgn, setup, call)
    # The same interpreter, with the same modules, interrupted in
    # `time.sleep`: what is left is the latency of our call, which must stay
    # under 0.5 s. A ratio to this run, since the interpreter's own exit
    # (freeing the modules, joining threads) takes from 0.05 to over 0.5 s
    # on a loaded machine.
    exit_cost = _interrupt(big_pgn, setup, "time.sleep(60)")
    assert took < exit_cost + 0.5, f"ended {took:.2f} s after SIGINT ({exit_cost:.2f} s for time.sleep)"


MEMORY = """
import resource, sys, pgnkit
rows = 0
for batch in pgnkit.games(sys.argv[-1], threads=2):
    rows += batch.num_rows
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
print(rows, peak, hwm[0].split()[1] if hwm else peak)
"""


def _high_water(path):
    import os
    import subprocess
    import sys

    # Through `sh`, which forks the child: a child forked from pytest itself
    # starts with pytest's peak RSS as its own (ru_maxrss survives fork and
    # exec), hundreds of MB after the tests that build tables.
    done = subprocess.run(
        ["sh", "-c", '"$@"; exit $?', "sh", sys.executable, "-c", MEMORY, str(path)],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    rows, peak_kib, hwm_kib = map(int, done.stdout.split())
    return rows, max(peak_kib, hwm_kib)


def test_memory_stays_flat_on_200_mb(big_pgn, corpus_pgn, tmp_path):
    # Flat means: four times the input does not cost more memory. The bound
    # is against a 50 MB run in the same test (by 50 MB the bounded queue
    # between the reader and the batches is full: below that the high water
    # still rises with the input), not an absolute figure, since the
    # allocator's high water on a loaded machine moves by tens of MB from run
    # to run. Measured on an idle machine: 121 MB at 50 MB, 140 MB at 200 MB,
    # 147 MB at 400 MB; the 200 MB of games held as a table would be ~330 MB.
    small = repeated(corpus_pgn, tmp_path / "small.pgn", 50 << 20)
    small_rows, small_kib = _high_water(small)
    rows, big_kib = _high_water(big_pgn)
    assert big_pgn.stat().st_size >= 200 << 20
    assert rows > 200_000 and rows >= 3 * small_rows
    assert big_kib < small_kib + 64 * 1024, (
        f"high water {big_kib / 1024:.0f} MB on 200 MB, {small_kib / 1024:.0f} MB on 50 MB"
    )
    assert big_kib < 200 * 1024, f"high water {big_kib / 1024:.0f} MB"
