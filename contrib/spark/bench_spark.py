"""Spark's overhead: the job in local[T] mode against pgnkit run directly
with -j T on the same input, rounds interleaved so that a busy machine
disturbs both alike. Run with the venv's Python (test_spark.sh makes it),
with PYSPARK_PYTHON set to it too:

    PYSPARK_PYTHON=$VENV/bin/python $VENV/bin/python contrib/spark/bench_spark.py \\
        --pgnkit target/release/pgnkit --input slice.pgn [--threads 2] [--rounds 3] \\
        [--shard-bytes 4M] [--task-cpus 1] [--fixed] [--spark-writer] [validate annotate-outcome convert]

pgnkit is timed twice: writing the job's product, `-f parquet -o FILE`
(`--to parquet` for convert), and writing CSV to /dev/null, the baseline of
the earlier figures. The Spark time is one run_job in a session already
started (the JVM's start, about as long again, is paid once per
spark-submit); it writes Parquet into a local directory, so the tasks
write it with pyarrow (with --spark-writer, Spark's writer, as for an
output directory on HDFS or a store). With --fixed, the fixed cost of the shards is
measured too: a Spark job of as many empty tasks, and the whole job on as
many shards of 4 KiB of newlines (no games).
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

PARQUET = {"validate": ["-f", "parquet"], "annotate-outcome": ["-f", "parquet"], "convert": ["--to", "parquet"]}
CSV = {"validate": ["-f", "csv"], "annotate-outcome": ["-f", "csv"], "convert": ["--to", "csv"]}


def timed(f):
    t = time.monotonic()
    r = f()
    return time.monotonic() - t, r


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--pgnkit", required=True)
    a.add_argument("--input", required=True)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--task-cpus", type=int, default=1)
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--shard-bytes", type=ps.parse_size, default=4 << 20)
    a.add_argument("--fixed", action="store_true")
    a.add_argument("--spark-writer", action="store_true", help="Spark's Parquet writer, as for a remote OUT")
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
    fmt = lambda xs: " ".join(f"{x:.2f}" for x in xs)  # noqa: E731
    print(f"{args.input}: {size:.1f} MB; pgnkit -j {args.threads} against local[{args.threads}] "
          f"with spark.task.cpus={args.task_cpus}, shards of {args.shard_bytes} bytes, {args.rounds} rounds")
    try:
        for sub in args.subcommands:
            job = ps.Job(inputs=[args.input], subcommand=sub, flags=[], out=out, pgnkit=args.pgnkit,
                         shard_bytes=args.shard_bytes, spark_writer=args.spark_writer)
            ps.run_job(spark, job, log=open(os.devnull, "w"))  # warm up: Python workers, code
            direct, csv, spark_s = [], [], []
            base = [args.pgnkit, sub, "-q", "-j", str(args.threads)]
            for _ in range(args.rounds):
                direct.append(timed(lambda: subprocess.run(
                    base + PARQUET[sub] + ["-o", os.path.join(out, "direct.parquet"), args.input], check=False))[0])
                csv.append(timed(lambda: subprocess.run(
                    base + CSV[sub] + [args.input], stdout=subprocess.DEVNULL, check=False))[0])
                took, r = timed(lambda: ps.run_job(spark, job, log=open(os.devnull, "w")))
                spark_s.append(took)
            d, c, s = statistics.median(direct), statistics.median(csv), statistics.median(spark_s)
            print(f"{sub}: pgnkit parquet {fmt(direct)} s (median {d:.2f}); pgnkit csv {fmt(csv)} s "
                  f"(median {c:.2f}); Spark {fmt(spark_s)} s (median {s:.2f}, {size / s:.1f} MB/s); "
                  f"x{s / d:.2f} of parquet, x{s / c:.2f} of csv; {r.shards} shards, {r.reruns} rerun"
                  f"{', sorted' if r.sorted else ''}; last run: "
                  + ", ".join(f"{k} {v:.2f}" for k, v in r.seconds.items()))
        if args.fixed:
            n = len(ps.plan([ps.Source(args.input, args.input, os.path.getsize(args.input), False)],
                            args.shard_bytes))
            # As the job runs its shards into a local OUT: a task per shard of
            # an RDD, plain tuples back.
            noop = spark.sparkContext.parallelize(range(n), n).mapPartitions(lambda _: iter(()))
            noop.collect()
            times = [timed(noop.collect)[0] for _ in range(args.rounds)]
            print(f"fixed: {n} empty tasks in one Spark job: {fmt(times)} s "
                  f"(median {statistics.median(times):.2f})")
            # As many shards, each of 4 KiB of newlines: no games, so what
            # is left is the job's cost per task (convert reads a file of
            # nothing but newlines slowly, so not the input's size of them).
            blank = os.path.join(out, "blank.pgn")
            with open(blank, "wb") as f:
                f.write(b"\n" * (n * 4096))
            for sub in args.subcommands:
                job = ps.Job(inputs=[blank], subcommand=sub, flags=[], out=out, pgnkit=args.pgnkit,
                             shard_bytes=4096)
                ps.run_job(spark, job, log=open(os.devnull, "w"))
                runs = [timed(lambda: ps.run_job(spark, job, log=open(os.devnull, "w"))) for _ in range(args.rounds)]
                base = [args.pgnkit, sub, "-q", "-j", str(args.threads)]
                solo = [timed(lambda: subprocess.run(base + PARQUET[sub] + ["-o", os.path.join(out, "d.parquet"),
                                                                             blank], check=False))[0]
                        for _ in range(args.rounds)]
                r = runs[-1][1]
                print(f"fixed: {sub} on {r.shards} shards of 4 KiB of newlines (no games): Spark "
                      f"{fmt([t for t, _ in runs])} s (median {statistics.median([t for t, _ in runs]):.2f}); "
                      f"pgnkit alone {fmt(solo)} s; last run: "
                      + ", ".join(f"{k} {v:.2f}" for k, v in r.seconds.items()))
    finally:
        spark.stop()
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
