#!/usr/bin/env python3
"""Baseline and cross-check for `pgnkit annotate-outcome`: the same columns
computed per ply with python-chess (an independent implementation).

    python3 benches/python_chess_outcome.py GAMES.pgn [N] > py.csv

Writes `game,plies,termination,termination_ply,threefold_claim_ply,
fifty_claim_ply` for the first N games (default all) under the `fide`
profile, and the time taken on standard error. Dead positions use
python-chess's `is_insufficient_material`, which is not the dead-position test of FIDE 5.2.2
(it is per side and knows no pawn walls), so compare the claim columns, and
the termination only where neither tool reports a dead position.
"""

import sys
import time

import chess
import chess.pgn


def annotate(game):
    board = game.board()
    plies = 0
    end = None  # (kind, ply)
    threefold = fifty = None

    def look(ply):
        nonlocal end, threefold, fifty
        if board.is_checkmate():
            end = ("checkmate", ply)
        elif board.is_stalemate():
            end = ("stalemate", ply)
        elif board.is_insufficient_material():
            end = ("dead-position", ply)
        elif board.is_fivefold_repetition():
            end = ("fivefold-repetition", ply)
        elif board.is_seventyfive_moves():
            end = ("seventy-five-moves", ply)
        if end:
            return
        # 9.2.1 and 9.2.2; 9.3.1 and 9.3.2.
        if threefold is None and board.can_claim_threefold_repetition():
            threefold = ply
        if fifty is None and board.can_claim_fifty_moves():
            fifty = ply

    look(0)
    for move in game.mainline_moves():
        board.push(move)
        plies += 1
        if end is None:
            look(plies)
    return plies, end, threefold, fifty


def main():
    path = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
    started = time.perf_counter()
    out = sys.stdout
    out.write("game,plies,termination,termination_ply,threefold_claim_ply,fifty_claim_ply\n")
    n = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        while limit is None or n < limit:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            n += 1
            plies, end, threefold, fifty = annotate(game)
            cell = lambda v: "" if v is None else str(v)
            out.write(
                f"{n},{plies},{end[0] if end else ''},{cell(end and end[1])},"
                f"{cell(threefold)},{cell(fifty)}\n"
            )
    elapsed = time.perf_counter() - started
    print(f"python-chess: {n} games in {elapsed:.2f} s ({elapsed / n * 1e6:.0f} us/game)", file=sys.stderr)


if __name__ == "__main__":
    main()
