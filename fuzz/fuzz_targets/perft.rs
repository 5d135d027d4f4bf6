//! `pgnkit perft FEN -d N -j1 -q` against shakmaty's own perft, a
//! differential oracle for pgnkit's counter (its bulk counting and its
//! transposition table) and for perft's FEN reader.
//!
//! The first byte chooses the run: the depth (1–3) from its two low bits,
//! `--chess960` from bit 2, a 1 MiB hash table (or none) from bit 3 and
//! `--divide` from bit 4; the rest is the FEN, then optionally `|` and
//! UCI moves for `--moves`. Oracles: no panic; a FEN or move list perft
//! refuses is an error (exit 2), never a count; and a count equals
//! `shakmaty::perft` both of the position perft read and, when shakmaty's
//! own FEN reader accepts the text in the same castling mode, of that
//! position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnkit::rules::perft::{parse_position, play_uci};
use pgnkit_fuzz::run;
use shakmaty::fen::Fen;
use shakmaty::{Chess, FromSetup, Position};

fuzz_target!(|data: &[u8]| {
    let Some((&select, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return; // clap takes arguments as UTF-8 strings
    };
    // A NUL cannot be in a command-line argument.
    if text.contains('\0') {
        return;
    }
    let chosen = pgnkit_fuzz::args::perft(select, text);
    let (fen, moves, depth, chess960) = (chosen.fen, chosen.moves, chosen.depth, chosen.chess960);
    // clap would read a leading `-` as a flag: a FEN never starts so,
    // and neither does a list of moves.
    if fen.starts_with('-') || moves.is_some_and(|m| m.starts_with('-')) {
        return;
    }
    let args: Vec<&str> = chosen.args.iter().map(String::as_str).collect();
    let out = run(&args);

    let pos = parse_position(fen, chess960)
        .ok()
        .and_then(|pos| match moves {
            Some(moves) => play_uci(pos, moves).ok(),
            None => Some(pos),
        });
    let Some(pos) = pos else {
        assert!(
            out.status.is_err(),
            "perft counted a position it cannot read: {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
        return;
    };
    out.completed("perft");
    let stdout = String::from_utf8(out.stdout).expect("perft writes UTF-8");
    let total: u64 = stdout
        .lines()
        .last()
        .and_then(|line| line.parse().ok())
        .unwrap_or_else(|| panic!("perft wrote no total: {stdout:?}"));
    let expected = shakmaty::perft(&pos, depth);
    assert_eq!(total, expected, "perft {fen:?} -d {depth} against shakmaty");
    if chosen.divide {
        let sum: u64 = stdout
            .lines()
            .filter_map(|line| line.split_once(": "))
            .map(|(_, n)| n.parse::<u64>().expect("divide counts are numbers"))
            .sum();
        assert_eq!(sum, total, "divide lines do not add up: {stdout:?}");
    }

    // shakmaty's own reading of the same text, in the mode pgnkit chose.
    if moves.is_none()
        && let Ok(setup) = Fen::from_ascii(fen.trim().as_bytes())
        && let Ok(theirs) = Chess::from_setup(setup.into_setup(), pos.castles().mode())
    {
        let theirs = shakmaty::perft(&theirs, depth);
        assert_eq!(
            total, theirs,
            "perft {fen:?} -d {depth} against shakmaty's FEN reader"
        );
    }
});
