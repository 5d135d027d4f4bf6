//! The line readers of `convert --from fen|epd|uci` (and the sniff that
//! tells them from PGN), then the FEN reader itself under every leniency.
//!
//! The first byte chooses the run: `--from` (detected, fen, epd, uci) from
//! its two low bits, `--to` from the next three, `--positions all` (with `--to
//! fen|epd`) from the sixth; the rest is the input file. Oracles: no panic and no error
//! (exit 2); with `--to pgn`, nothing written that validate cannot read;
//! and for every line that `read_fen` accepts under a leniency, the FEN
//! pgnkit writes for the position reads back, under the same leniency, as
//! the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnkit::rules::notation;
use pgnkit::rules::setup::{FenLeniency, read_fen};
use pgnkit_fuzz::{input_file, run, syntax_findings};
use shakmaty::CastlingMode;

/// Lines of one input given to `read_fen` directly: enough for the
/// mutations of a line, few enough to keep the target fast.
const MAX_LINES: usize = 64;

fuzz_target!(|data: &[u8]| {
    let Some((&select, input)) = data.split_first() else {
        return;
    };
    let file = input_file("lines-in", input);
    let path = file.path();
    let (to, mut args) = pgnkit_fuzz::args::lines(select);
    args.push(path);
    let out = run(&args);
    out.completed("convert of lines");
    if to == "pgn" {
        let syntax = syntax_findings("lines-out", &out.stdout);
        assert!(
            syntax.is_empty(),
            "convert --to pgn of lines wrote PGN that validate cannot read:\n{}\n--- output ---\n{}",
            syntax.join("\n"),
            String::from_utf8_lossy(&out.stdout)
        );
    }

    let text = String::from_utf8_lossy(input);
    let leniencies = [
        ("TAG", FenLeniency::TAG),
        ("UCI_LINE", FenLeniency::UCI_LINE),
        ("EPD_LINE", FenLeniency::EPD_LINE),
        ("PERFT", FenLeniency::PERFT),
    ];
    for line in text.lines().take(MAX_LINES) {
        for (name, leniency) in leniencies {
            for chess960 in [false, true] {
                let Ok((pos, mode)) = read_fen(line, chess960, leniency) else {
                    continue;
                };
                let written = notation::fen(&pos, mode);
                let again = read_fen(&written, mode == CastlingMode::Chess960, leniency)
                    .map(|(pos, mode)| notation::fen(&pos, mode))
                    .map_err(|err| err.to_string());
                assert_eq!(
                    again.as_deref(),
                    Ok(written.as_str()),
                    "{name} (chess960 {chess960}) read {line:?} as {written:?}, which does not read back"
                );
            }
        }
    }
});
