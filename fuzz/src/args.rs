//! How each fuzz target turns its input into pgnkit's arguments. One
//! source for the targets (`pgnkit_fuzz::args`) and for
//! `tests/fuzz_replay.rs` (which includes this file by path), so a finding
//! replays with exactly the arguments that found it. Plain std only: the
//! test crate has none of the fuzz crate's dependencies.

/// `annotate-outcome` for an input of `n` bytes: the format, the rules
/// profile and `--fix-results` (with `-f pgn`) chosen by the length. The
/// input file's path goes last.
pub fn annotate_outcome(n: usize) -> Vec<&'static str> {
    let format = ["csv", "pgn", "jsonl"][n % 3];
    let rules = ["fide", "app", "online"][n / 3 % 3];
    let mut args = vec![
        "annotate-outcome",
        "-j1",
        "-q",
        "-f",
        format,
        "--rules",
        rules,
    ];
    if format == "pgn" && n / 9 % 2 == 1 {
        args.push("--fix-results");
    }
    args
}

/// `convert` of line input for the selector byte `select`: `--from`
/// (detected, fen, epd, uci) from its two low bits, `--to` from the next
/// three, `--positions all` (with `--to fen|epd`) from bit 5. Returns the
/// `--to` format and the arguments; the input file's path goes last.
pub fn lines(select: u8) -> (&'static str, Vec<&'static str>) {
    let to =
        ["pgn", "uci", "san", "lan", "fen", "epd", "csv", "jsonl"][usize::from(select >> 2 & 7)];
    let mut args = vec!["convert", "-j1", "-q", "--to", to];
    match select & 3 {
        1 => args.extend(["--from", "fen"]),
        2 => args.extend(["--from", "epd"]),
        3 => args.extend(["--from", "uci"]),
        _ => {}
    }
    if select & 32 != 0 && matches!(to, "fen" | "epd") {
        args.extend(["--positions", "all"]);
    }
    (to, args)
}

/// One perft run chosen by the selector byte and the text after it.
pub struct Perft<'a> {
    pub fen: &'a str,
    /// UCI moves for `--moves` (after a `|` in the text).
    pub moves: Option<&'a str>,
    /// 1–3, from the two low bits.
    pub depth: u32,
    /// From bit 2.
    pub chess960: bool,
    /// `--divide`, from bit 4.
    pub divide: bool,
    pub args: Vec<String>,
}

/// perft for `select` and `text` (`FEN` or `FEN|MOVES`): a 1 MiB hash table
/// (or none) from bit 3.
pub fn perft(select: u8, text: &str) -> Perft<'_> {
    let (fen, moves) = match text.split_once('|') {
        Some((fen, moves)) => (fen, Some(moves)),
        None => (text, None),
    };
    let depth = u32::from(select & 3).max(1);
    let chess960 = select & 4 != 0;
    let hash = if select & 8 != 0 { "1" } else { "0" };
    let mut args: Vec<String> = [
        "perft",
        fen,
        "-d",
        &depth.to_string(),
        "-j1",
        "-q",
        "--hash",
        hash,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    if chess960 {
        args.push("--chess960".into());
    }
    let divide = select & 16 != 0;
    if divide {
        args.push("--divide".into());
    }
    if let Some(moves) = moves {
        args.extend(["--moves".into(), moves.into()]);
    }
    Perft {
        fen,
        moves,
        depth,
        chess960,
        divide,
        args,
    }
}
