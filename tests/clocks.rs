//! The clock and evaluation commands of comments (`[%clk …]`, `[%eval …]`):
//! typed per-move lists in game records (CSV, JSON Lines, Parquet) and
//! per-position values in position records, read from real lichess games
//! and checked against a reading of the comments made here, independently
//! of pgnkit's; an unreadable command is a finding and a null, never a zero.

use serde_json::Value;

use crate::util::{code, fixture, run, stderr, stdout};

const LICHESS: &str = "pgn/lichess_clocks.pgn";

/// Per game, per main-line move: the clock in milliseconds and the
/// evaluation as the comment writes it (`0.35`, `#-3`), read from the
/// movetext of games whose every move is followed by one comment (as
/// lichess exports them; the fixture has no variations).
fn written(pgn: &str) -> Vec<Vec<(Option<u64>, Option<String>)>> {
    let mut games = Vec::new();
    for movetext in pgn
        .split("\n\n")
        .filter(|p| !p.trim().is_empty() && !p.starts_with('['))
    {
        let mut moves = Vec::new();
        for comment in movetext.split('{').skip(1) {
            let comment = comment.split('}').next().unwrap();
            let arg = |name: &str| {
                let at = comment.find(&format!("[%{name} "))?;
                let rest = &comment[at + name.len() + 3..];
                Some(rest[..rest.find(']').unwrap()].to_owned())
            };
            let clock = arg("clk").map(|c| {
                let p: Vec<f64> = c.split(':').map(|x| x.parse().unwrap()).collect();
                ((p[0] * 3600.0 + p[1] * 60.0 + p[2]) * 1000.0).round() as u64
            });
            moves.push((clock, arg("eval")));
        }
        games.push(moves);
    }
    games
}

/// A CSV list cell as items (`-` for none).
fn items(cell: &str) -> Vec<Option<String>> {
    if cell.is_empty() {
        return Vec::new();
    }
    cell.split(' ')
        .map(|x| (x != "-").then(|| x.to_owned()))
        .collect()
}

fn csv(args: &[&str]) -> (Vec<String>, Vec<csv::StringRecord>) {
    csv_exiting(args, 0)
}

fn csv_exiting(args: &[&str], want: i32) -> (Vec<String>, Vec<csv::StringRecord>) {
    let out = run(args, None);
    assert_eq!(code(&out), want, "{}", stderr(&out));
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header = r.headers().unwrap().iter().map(str::to_owned).collect();
    (header, r.records().map(Result::unwrap).collect())
}

fn expected_cp(eval: &str) -> Option<String> {
    (!eval.starts_with('#')).then(|| {
        let pawns: f64 = eval.parse().unwrap();
        ((pawns * 100.0).round() as i64).to_string()
    })
}

fn expected_mate(eval: &str) -> Option<String> {
    eval.strip_prefix('#').map(str::to_owned)
}

#[test]
fn csv_lists_are_the_commands_written_after_each_move() {
    let path = fixture(LICHESS);
    let pgn = std::fs::read_to_string(&path).unwrap();
    let games = written(&pgn);
    let (header, rows) = csv(&["convert", "--to", "csv", path.to_str().unwrap()]);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows.len(), games.len());
    let mut evals = 0;
    let mut mates = 0;
    for (row, moves) in rows.iter().zip(&games) {
        let plies: usize = row[col("plies")].parse().unwrap();
        assert_eq!(plies, moves.len(), "one comment per move");
        let clocks = items(&row[col("clock")]);
        assert_eq!(clocks.len(), plies);
        for (got, (ms, _)) in clocks.iter().zip(moves) {
            let got: f64 = got.as_deref().unwrap().parse().unwrap();
            assert_eq!((got * 1000.0).round() as u64, ms.unwrap());
        }
        let any_eval = moves.iter().any(|(_, e)| e.is_some());
        let cp = items(&row[col("eval_cp")]);
        let mate = items(&row[col("eval_mate")]);
        let want_cp: Vec<Option<String>> = moves
            .iter()
            .map(|(_, e)| e.as_deref().and_then(expected_cp))
            .collect();
        let want_mate: Vec<Option<String>> = moves
            .iter()
            .map(|(_, e)| e.as_deref().and_then(expected_mate))
            .collect();
        // A list is null (an empty cell) when no move has a value for it.
        let list = |want: Vec<Option<String>>| match want.iter().any(Option::is_some) {
            true => want,
            false => Vec::new(),
        };
        assert_eq!(cp, list(want_cp));
        assert_eq!(mate, list(want_mate));
        evals += usize::from(any_eval);
        mates += usize::from(!mate.is_empty());
    }
    assert_eq!(
        (evals, mates),
        (2, 1),
        "the fixture's games with evaluations"
    );
}

#[test]
fn jsonl_lists_are_the_csv_lists() {
    let path = fixture(LICHESS);
    let path = path.to_str().unwrap();
    let (header, rows) = csv(&["convert", "--to", "csv", path]);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let out = run(&["convert", "--to", "jsonl", path], None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), rows.len());
    for (line, row) in text.lines().zip(&rows) {
        let game: Value = serde_json::from_str(line).unwrap();
        for name in ["clock", "eval_cp", "eval_mate"] {
            let from_csv = items(&row[col(name)]);
            let from_json: Vec<Option<String>> = match &game[name] {
                Value::Null => Vec::new(),
                list => list
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| (!v.is_null()).then(|| v.to_string()))
                    .collect(),
            };
            assert_eq!(from_json, from_csv, "{name}");
        }
    }
}

#[test]
fn a_malformed_clock_is_a_finding_and_a_null_never_a_zero() {
    let pgn = std::fs::read_to_string(fixture(LICHESS)).unwrap();
    // The 3rd comment of the first game (1st game, ply 3), made unreadable.
    let third = pgn.match_indices("[%clk ").nth(2).unwrap().0;
    let end = third + pgn[third..].find(']').unwrap();
    let mut tampered = pgn.clone();
    tampered.replace_range(third..=end, "[%clk 0:4x:58]");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tampered.pgn");
    std::fs::write(&path, &tampered).unwrap();
    let path = path.to_str().unwrap();

    let clean = run(&["validate", fixture(LICHESS).to_str().unwrap()], None);
    assert_eq!(code(&clean), 0, "{}", stderr(&clean));
    assert!(!stderr(&clean).contains("invalid-command"));
    let out = run(&["validate", "-f", "csv", path], None);
    assert_eq!(code(&out), 0, "a warning: {}", stderr(&out));
    let rows = stdout(&out);
    let found: Vec<&str> = rows
        .lines()
        .filter(|l| l.contains("invalid-command"))
        .collect();
    assert_eq!(found.len(), 1, "{}", stdout(&out));
    assert!(found[0].contains("[%clk 0:4x:58]"), "{}", found[0]);
    let fail = run(&["validate", "--fail-on", "warning", path], None);
    assert_eq!(code(&fail), 1);
    let text = run(&["validate", path], None);
    assert!(
        stdout(&text).contains("ply 3 (2.Nf3)"),
        "the finding names the move: {}",
        stdout(&text)
    );

    // A value lost from the record: convert exits 1, as for a variation
    // left out.
    let (header, rows) = csv_exiting(&["convert", "-q", "--to", "csv", path], 1);
    let (_, original) = csv(&["convert", "--to", "csv", fixture(LICHESS).to_str().unwrap()]);
    let col = header.iter().position(|h| h == "clock").unwrap();
    let mut want = items(&original[0][col]);
    want[2] = None;
    assert_eq!(items(&rows[0][col]), want);
    assert_eq!(rows[1][col], original[1][col]);
    let report = run(&["convert", "--to", "csv", path], None);
    assert!(
        stderr(&report).contains("invalid-command"),
        "{}",
        stderr(&report)
    );
}

#[test]
fn position_records_hold_the_value_after_the_move() {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int32Type, UInt32Type, UInt64Type};

    let path = fixture(LICHESS);
    let pgn = std::fs::read_to_string(&path).unwrap();
    let games = written(&pgn);
    let out = run(
        &[
            "convert",
            "--to",
            "arrow",
            "--positions",
            "all",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let reader = arrow_ipc::reader::StreamReader::try_new(out.stdout.as_slice(), None).unwrap();
    let mut seen = 0;
    let mut mates = 0;
    for batch in reader.map(Result::unwrap) {
        let col = |n: &str| batch.column_by_name(n).unwrap().clone();
        let (game, ply) = (col("game"), col("ply"));
        let (clock, cp, mate) = (col("clock"), col("eval_cp"), col("eval_mate"));
        let game = game.as_primitive::<UInt64Type>();
        let ply = ply.as_primitive::<UInt32Type>();
        for r in 0..batch.num_rows() {
            let (g, p) = (game.value(r) as usize, ply.value(r) as usize);
            seen += 1;
            let Some(i) = p.checked_sub(1) else {
                assert!(clock.is_null(r) && cp.is_null(r) && mate.is_null(r));
                continue;
            };
            let (ms, eval) = &games[g - 1][i];
            let secs = clock.as_primitive::<Float64Type>().value(r);
            assert_eq!((secs * 1000.0).round() as u64, ms.unwrap());
            let cp_want = eval.as_deref().and_then(expected_cp);
            let mate_want = eval.as_deref().and_then(expected_mate);
            let value = |a: &dyn Array| {
                (!a.is_null(r)).then(|| a.as_primitive::<Int32Type>().value(r).to_string())
            };
            assert_eq!(value(cp.as_ref()), cp_want, "game {g} ply {p}");
            assert_eq!(value(mate.as_ref()), mate_want, "game {g} ply {p}");
            mates += usize::from(mate_want.is_some());
        }
    }
    let positions: usize = games.iter().map(|g| g.len() + 1).sum();
    assert_eq!(seen, positions);
    assert!(mates > 0);
}

/// The first game of the lichess fixture with its first `[%eval …]`
/// command replaced by `with(command)`, written to a file in `dir`.
fn first_eval_tampered(dir: &std::path::Path, with: impl Fn(&str) -> String) -> String {
    let pgn = std::fs::read_to_string(fixture(LICHESS)).unwrap();
    let at = pgn.find("[%eval ").unwrap();
    let end = at + pgn[at..].find(']').unwrap();
    let mut tampered = pgn.clone();
    tampered.replace_range(at..=end, &with(&pgn[at..=end]));
    let path = dir.join("tampered.pgn");
    std::fs::write(&path, &tampered).unwrap();
    path.to_str().unwrap().to_owned()
}

/// The `invalid-command` rows of `validate -f csv path`.
fn invalid_commands(path: &str) -> Vec<String> {
    let out = run(&["validate", "-f", "csv", path], None);
    assert_eq!(code(&out), 0, "warnings only: {}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| l.contains("invalid-command"))
        .map(str::to_owned)
        .collect()
}

/// Issue 43, defect 4: a second `[%eval]` or `[%clk]` for one move, before
/// or after the readable one, in its comment or another: the readable
/// value is kept and every other command is a finding, in both orders.
#[test]
fn clock_and_eval_commands_lose_values_silently() {
    let (header, original) = csv(&["convert", "--to", "csv", fixture(LICHESS).to_str().unwrap()]);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (order, with) in [
        (
            "unreadable first",
            (|e: &str| format!("[%eval zz] {e}")) as fn(&str) -> String,
        ),
        ("unreadable second", |e: &str| format!("{e} [%eval zz]")),
        ("a second value", |e: &str| format!("{e} [%eval 9.99]")),
        ("a second clock in another comment", |e: &str| {
            format!("{e}}} {{[%clk 9:59:59]")
        }),
    ] {
        let path = first_eval_tampered(dir.path(), with);
        let found = invalid_commands(&path);
        assert_eq!(found.len(), 1, "{order}: {found:?}");
        // The kept values are the untampered game's.
        let (_, rows) = csv_exiting(&["convert", "-q", "--to", "csv", &path], 1);
        for name in ["clock", "eval_cp", "eval_mate"] {
            assert_eq!(
                rows[0][col(name)],
                original[0][col(name)],
                "{order}: {name}"
            );
        }
    }
}

/// Issue 43, defect 10: `[%eval #-0]` (and `#0`) has no sign a zero can
/// keep: a finding and a null, not mate 0; a clock past the millisecond
/// is kept to the millisecond and the rest named.
#[test]
fn eval_mate_zero_and_sub_millisecond_clocks_are_named() {
    let pgn = "[Event \"t\"]\n[Result \"0-1\"]\n\n1. f3 {[%clk 0:00:01.0005]} e5 2. g4 Qh4# {[%eval #-0]} 0-1\n";
    let out = run(&["validate", "-f", "csv", "-"], Some(pgn.as_bytes()));
    let found: Vec<String> = stdout(&out)
        .lines()
        .filter(|l| l.contains("invalid-command"))
        .map(str::to_owned)
        .collect();
    assert_eq!(found.len(), 2, "{}", stdout(&out));
    assert!(found[0].contains("0:00:01.000"), "{}", found[0]);
    assert!(found[1].contains("#-0"), "{}", found[1]);
    let out = run(
        &["convert", "-q", "--to", "jsonl", "-"],
        Some(pgn.as_bytes()),
    );
    assert_eq!(code(&out), 1, "a value lost: {}", stderr(&out));
    let game: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    // Seconds, to the millisecond; no mate distance in the game.
    assert_eq!(game["clock"], serde_json::json!([1, null, null, null]));
    assert_eq!(game["eval_mate"], Value::Null);
}
