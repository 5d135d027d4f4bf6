"""Speed of the Python package, side by side in one run (not a test).

    python bench.py [--corpus /tmp/pgnmentor.pgn] [--slice /tmp/slice8.pgn]
                    [--cli target/release/pgnkit] [--threads 2]

1. ``pl.DataFrame(pgnkit.games(corpus, threads=2))`` against
   ``pgnkit convert --to csv -j2 corpus > /dev/null`` (target: ≥ 0.8× the
   CLI's speed);
2. against python-chess reading the games of the slice (UCI moves and the
   final FEN per game), extrapolated to the corpus (target: ≥ 200×);
3. against rust-pgn-reader-python-binding (``parse_games_from_strings``,
   same threads, the file split into game strings in Python) on the slice
   (target: ≥ 2×).
"""

import argparse
import io
import os
import subprocess
import sys
import time


def best(f, repeat):
    times, out = [], None
    for _ in range(repeat):
        # The last result is dropped first: held while the next is made, a
        # DataFrame of the corpus (about 500 MB) made each later run fault in
        # fresh memory, as no user's single call does.
        out = None
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def split_games(text):
    """The file's games as strings, split at `[Event ` after a blank line
    (as a user of the binding must)."""
    games, start = [], 0
    while True:
        i = text.find("\n\n[Event ", start)
        if i < 0:
            games.append(text[start:])
            return [g for g in games if g.strip()]
        games.append(text[start : i + 1])
        start = i + 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/tmp/pgnmentor.pgn")
    ap.add_argument("--slice", default="/tmp/slice8.pgn")
    ap.add_argument("--cli", default=os.environ.get("PGNKIT_BIN", "pgnkit"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--chess-games", type=int, default=2000, help="python-chess: games of the slice")
    args = ap.parse_args()
    j = args.threads

    import polars as pl

    import pgnkit

    print(f"python {sys.version.split()[0]}, polars {pl.__version__}, threads {j}")
    print(f"corpus {args.corpus} ({os.path.getsize(args.corpus) / 1e6:.0f} MB), slice {args.slice}")

    # 1. the whole corpus: the package against the CLI
    cli_cmd = [args.cli, "convert", "--to", "csv", f"-j{j}", "-q", args.corpus]
    t_cli, _ = best(lambda: subprocess.run(cli_cmd, stdout=subprocess.DEVNULL, check=False), args.repeat)
    t_py, df = best(lambda: pl.DataFrame(pgnkit.games(args.corpus, threads=j)), args.repeat)
    games = df.height
    print(f"\n1. {' '.join(cli_cmd)} > /dev/null: {t_cli:.2f} s")
    print(f"   pl.DataFrame(pgnkit.games(corpus, threads={j})): {t_py:.2f} s, {games} games")
    print(f"   package speed / CLI speed = {t_cli / t_py:.2f} (target >= 0.8)")

    # 2. python-chess on a slice of the slice, extrapolated
    import chess.pgn

    n_chess = args.chess_games
    with open(args.slice, encoding="utf-8", errors="replace") as f:
        text = f.read()

    def python_chess():
        handle = io.StringIO(text)
        out = []
        for _ in range(n_chess):
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            board = game.board()
            moves = []
            for move in game.mainline_moves():
                moves.append(move.uci())
                board.push(move)
            out.append((moves, board.fen()))
        return out

    t_chess, got = best(python_chess, 1)
    chess_rate = len(got) / t_chess
    py_rate = games / t_py
    print(f"\n2. python-chess (UCI moves + final FEN), first {len(got)} games of the slice: "
          f"{t_chess:.2f} s = {chess_rate:.0f} games/s")
    print(f"   extrapolated to the corpus: {games / chess_rate:.0f} s; package: {t_py:.2f} s "
          f"({py_rate:.0f} games/s)")
    print(f"   package / python-chess = {py_rate / chess_rate:.0f}x (target >= 200x)")

    # 3. rust-pgn-reader-python-binding on the slice
    try:
        import rust_pgn_reader_python_binding as rb
    except ImportError:
        rb = None
    t_slice, slice_df = best(lambda: pl.DataFrame(pgnkit.games(args.slice, threads=j)), args.repeat)
    print(f"\n3. pl.DataFrame(pgnkit.games(slice, threads={j})): {t_slice:.3f} s, {slice_df.height} games")
    if rb is None:
        print("   rust_pgn_reader_python_binding not installed")
        return

    def binding():
        with open(args.slice, encoding="utf-8", errors="replace") as f:
            strings = split_games(f.read())
        return rb.parse_games_from_strings(strings, num_threads=j)

    try:
        t_rb, parsed = best(binding, args.repeat)
    except TypeError:
        def binding():  # older signature, without num_threads
            with open(args.slice, encoding="utf-8", errors="replace") as f:
                strings = split_games(f.read())
            return rb.parse_games_from_strings(strings)

        t_rb, parsed = best(binding, args.repeat)
    print(f"   rust_pgn_reader_python_binding.parse_games_from_strings (split in Python, "
          f"{j} threads): {t_rb:.3f} s, {len(parsed)} games")
    print(f"   package / binding = {t_rb / t_slice:.2f}x (target >= 2x)")


if __name__ == "__main__":
    main()
