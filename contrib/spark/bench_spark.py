"""Spark's overhead: the job in local[T] mode against pgnkit run directly
with -j T on the same input, rounds interleaved so that a busy machine
disturbs both alike. Run with the venv's Python (test_spark.sh makes it):

    ~/.cache/pgnkit/spark-venv/bin/python contrib/spark/bench_spark.py \\
        --pgnkit target/release/pgnkit --input slice.pgn [--threads 2] [--rounds 3] \\
        [--shard-bytes 4M] [--task-cpus 1] [validate annotate-outcome convert]

The Spark time is one run_job in a session already started (the JVM's start,
about as long again, is paid once per spark-submit); it writes Parquet only.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pgnkit_spark as ps  # noqa: E402


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--pgnkit", required=True)
    a.add_argument("--input", required=True)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--task-cpus", type=int, default=1)
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--shard-bytes", type=ps.parse_size, default=4 << 20)
    a.add_argument("subcommands", nargs="*", default=["validate", "annotate-outcome", "convert"])
    args = a.parse_args()

    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{args.threads}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.task.cpus", str(args.task_cpus))
        .config("spark.sql.shuffle.partitions", str(2 * args.threads))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    out = tempfile.mkdtemp(prefix="pgnkit-bench-")
    size = os.path.getsize(args.input) / 1e6
    print(f"{args.input}: {size:.1f} MB; pgnkit -j {args.threads} against local[{args.threads}] "
          f"with spark.task.cpus={args.task_cpus}, shards of {args.shard_bytes} bytes")
    try:
        for sub in args.subcommands:
            job = ps.Job(inputs=[args.input], subcommand=sub, flags=[], out=out, pgnkit=args.pgnkit,
                         shard_bytes=args.shard_bytes)
            ps.run_job(spark, job, log=open(os.devnull, "w"))  # warm up: Python workers, code
            direct, spark_s = [], []
            for _ in range(args.rounds):
                t = time.monotonic()
                subprocess.run(
                    [args.pgnkit, sub, *ps.CSV_FLAGS[sub], "-q", "-j", str(args.threads), args.input],
                    stdout=subprocess.DEVNULL,
                    check=False,
                )
                direct.append(time.monotonic() - t)
                t = time.monotonic()
                r = ps.run_job(spark, job, log=open(os.devnull, "w"))
                spark_s.append(time.monotonic() - t)
            fmt = lambda xs: " ".join(f"{x:.1f}" for x in xs)  # noqa: E731
            d, s = statistics.median(direct), statistics.median(spark_s)
            print(f"{sub}: pgnkit {fmt(direct)} s (median {d:.1f}, {size / d:.1f} MB/s); "
                  f"Spark {fmt(spark_s)} s (median {s:.1f}, {size / s:.1f} MB/s); x{s / d:.2f}; "
                  f"{r.shards} shards, {r.reruns} rerun; last run: "
                  + ", ".join(f"{k} {v:.1f}" for k, v in r.seconds.items()))
    finally:
        spark.stop()
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
