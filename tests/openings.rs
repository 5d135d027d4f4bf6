//! Openings, time controls and the time each move took, as columns
//! (issue 45): checked against what lichess wrote into its own games (the
//! `ECO` and `Opening` tags, the clocks), against the table lichess used
//! that day, and against arithmetic done here.

use std::collections::HashMap;

use serde_json::Value;

use crate::util::{code, fixture, run, stderr, stdout};

const LICHESS: &str = "openings/lichess-2025-05-01.pgn";
const OLD_TABLE: &str = "openings/chess-openings-1e927b9.tsv";

/// The CSV rows of `pgnkit convert --to csv ARGS`, as column → value.
fn rows(args: &[&str]) -> Vec<HashMap<String, String>> {
    let mut all = vec!["convert", "-q", "--to", "csv"];
    all.extend_from_slice(args);
    let out = run(&all, None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

fn path(rel: &str) -> String {
    fixture(rel).to_str().unwrap().to_owned()
}

/// The named positions of a lichess TSV table (or several), replayed
/// here with shakmaty: EPD (en passant only when legal, as lichess writes
/// it) → (eco, name), the first name of a position named twice. A line is
/// its position, whatever its move order.
fn table(texts: &[String]) -> HashMap<String, (String, String)> {
    use shakmaty::{Chess, EnPassantMode, Position, fen::Epd, san::San};
    let mut lines = HashMap::new();
    for text in texts {
        for line in text.lines().filter(|l| !l.starts_with("eco\t")) {
            let cells: Vec<&str> = line.split('\t').collect();
            let mut pos = Chess::default();
            for token in cells[2].split_whitespace().filter(|t| !t.ends_with('.')) {
                let m = token.parse::<San>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
            }
            let epd = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
            lines
                .entry(epd)
                .or_insert((cells[0].to_owned(), cells[1].to_owned()));
        }
    }
    lines
}

fn embedded() -> HashMap<String, (String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules/openings/lichess");
    table(
        &["a", "b", "c", "d", "e"]
            .map(|f| std::fs::read_to_string(dir.join(format!("{f}.tsv"))).unwrap()),
    )
}

#[test]
fn with_the_table_of_the_games_day_every_game_agrees_with_lichess() {
    let games = rows(&["--openings", &path(OLD_TABLE), &path(LICHESS)]);
    assert_eq!(games.len(), 43);
    let mut named = 0;
    for g in &games {
        // lichess writes `?` for a game no line of its table names.
        if g["ECO"] == "?" {
            assert_eq!(
                (g["eco"].as_str(), g["opening"].as_str()),
                ("", ""),
                "{g:?}"
            );
            assert_eq!(g["opening_ply"], "");
            continue;
        }
        named += 1;
        assert_eq!(
            (&g["eco"], &g["opening"]),
            (&g["ECO"], &g["Opening"]),
            "game {}",
            g["game"]
        );
        let ply: u32 = g["opening_ply"].parse().unwrap();
        assert!((1..=36).contains(&ply), "{ply}");
    }
    assert!(named >= 38, "{named}");
}

#[test]
fn with_todays_table_every_disagreement_is_a_line_the_versions_name_differently() {
    let today = rows(&[&path(LICHESS)]);
    let then = rows(&["--openings", &path(OLD_TABLE), &path(LICHESS)]);
    let old = table(&[std::fs::read_to_string(fixture(OLD_TABLE)).unwrap()]);
    let new = embedded();
    // The position after `ply` plies of the game whose moves `uci` gives.
    let at = |uci: &str, ply: &str| -> Option<String> {
        use shakmaty::{Chess, EnPassantMode, Position, fen::Epd, uci::UciMove};
        let ply: usize = ply.parse().ok()?;
        let mut pos = Chess::default();
        for m in uci.split(' ').take(ply) {
            let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        Some(Epd::from_position(&pos, EnPassantMode::Legal).to_string())
    };
    let mut disagree = 0;
    for (now, before) in today.iter().zip(&then) {
        if (&now["eco"], &now["opening"]) == (&before["eco"], &before["opening"]) {
            continue;
        }
        disagree += 1;
        // The position named today, or the one named then, is named
        // otherwise (or not at all) by the other version.
        let renamed = |pos: Option<String>| pos.is_some_and(|p| old.get(&p) != new.get(&p));
        assert!(
            renamed(at(&now["uci"], &now["opening_ply"]))
                || renamed(at(&before["uci"], &before["opening_ply"])),
            "game {}: {} {} then, {} {} now",
            now["game"],
            before["eco"],
            before["opening"],
            now["eco"],
            now["opening"]
        );
    }
    // The fixture holds the sample's games whose tags today's table names
    // otherwise.
    assert!(disagree >= 10, "{disagree}");
}

#[test]
fn a_pgn_table_as_eco_pgn_names_by_opening_variation_and_subvariation() {
    let pgn = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O Nxe4 5. d4 *\n\n\
               [Event \"y\"]\n\n1. c4 e6 2. d4 d5 3. Nc3 *\n\n[Event \"z\"]\n\n1. b3 *\n";
    let out = run(
        &[
            "convert",
            "-q",
            "--to",
            "jsonl",
            "--openings",
            &path("openings/eco-lines.pgn"),
            "-",
        ],
        Some(pgn.as_bytes()),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let games: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let opening = |g: &Value| {
        (
            g["eco"].clone(),
            g["opening"].clone(),
            g["opening_ply"].clone(),
        )
    };
    assert_eq!(
        opening(&games[0]),
        (
            "C67".into(),
            "Ruy Lopez: Berlin defence, open variation".into(),
            8.into()
        )
    );
    // A transposition: 1. c4 e6 2. d4 d5 is the Queen's Gambit Declined.
    assert_eq!(
        opening(&games[1]),
        ("D30".into(), "Queen's gambit declined".into(), 4.into())
    );
    assert_eq!(opening(&games[2]), (Value::Null, Value::Null, Value::Null));
}

#[test]
fn a_table_that_cannot_be_read_stops_the_run_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tsv");
    std::fs::write(
        &bad,
        "eco\tname\tpgn\nC20\tKing's Pawn\t1. e4 e5\nC40\tBroken\t1. e4 e5 2. Ke3\n",
    )
    .unwrap();
    let out_file = dir.path().join("out.csv");
    std::fs::write(&out_file, "old").unwrap();
    let out = run(
        &[
            "convert",
            "--to",
            "csv",
            "--openings",
            bad.to_str().unwrap(),
            "-o",
            out_file.to_str().unwrap(),
            &path(LICHESS),
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("bad.tsv:3:") && err.contains("`Ke3` (ply 3)"),
        "{err}"
    );
    // A refused run leaves the old output as it was.
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "old");
    // A PGN table's line that does not replay, and a missing file.
    let pgn = dir.path().join("bad.pgn");
    std::fs::write(&pgn, "[ECO \"A00\"]\n\n1. e4 e5 2. Qxf7 *\n").unwrap();
    for (table, says) in [
        (pgn.to_str().unwrap(), "bad.pgn:3:"),
        ("/nonexistent/eco.pgn", "eco.pgn"),
    ] {
        let out = run(
            &[
                "convert",
                "--to",
                "csv",
                "--openings",
                table,
                &path(LICHESS),
            ],
            None,
        );
        assert_eq!(code(&out), 2, "{table}");
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(stdout(&out).is_empty());
    }
    // A directory is named too.
    let out = run(
        &[
            "convert",
            "--to",
            "csv",
            "--openings",
            dir.path().to_str().unwrap(),
            &path(LICHESS),
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(dir.path().to_str().unwrap()),
        "{}",
        stderr(&out)
    );
    // Where no record has the columns, --openings is refused.
    let out = run(
        &[
            "convert",
            "--to",
            "uci",
            "--openings",
            &path(OLD_TABLE),
            &path(LICHESS),
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--openings applies to"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn eco_tags_add_what_is_missing_and_correct_only_when_asked() {
    let pgn = "[Event \"a\"]\n\n1. e4 c5 *\n\n\
               [Event \"b\"]\n[ECO \"B20\"]\n[Opening \"Sicilian\"]\n\n1. e4 c5 *\n\n\
               [Event \"c\"]\n[ECO \"?\"]\n\n1. e4 c5 *\n";
    let tags = |how: &str| {
        let out = run(
            &["convert", "--to", "pgn", "--eco-tags", how, "-"],
            Some(pgn.as_bytes()),
        );
        // A disagreement is said, and is no problem of the conversion.
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.matches("eco-mismatch").count(), 1, "{err}");
        assert!(err.contains("Opening \"Sicilian\""), "{err}");
        let text = stdout(&out);
        text.split("\n\n[")
            .map(|g| {
                let tag = |name: &str| {
                    g.lines()
                        .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
                        .map(|v| v.trim_end_matches("\"]").to_owned())
                };
                (tag("ECO"), tag("Opening"))
            })
            .collect::<Vec<_>>()
    };
    let sicilian = (Some("B20".to_owned()), Some("Sicilian Defense".to_owned()));
    let add = tags("add");
    assert_eq!(add[0], sicilian);
    assert_eq!(
        add[1],
        (Some("B20".to_owned()), Some("Sicilian".to_owned()))
    );
    // `?` says nothing: it is filled in.
    assert_eq!(add[2], sicilian);
    assert_eq!(
        tags("correct"),
        vec![sicilian.clone(), sicilian.clone(), sicilian]
    );
    // Without --eco-tags the PGN is as before, and --eco-tags wants PGN.
    let out = run(&["convert", "--to", "pgn", "-"], Some(pgn.as_bytes()));
    assert!(!stdout(&out).contains("Sicilian Defense"));
    let out = run(
        &["convert", "--to", "csv", "--eco-tags", "add", "-"],
        Some(pgn.as_bytes()),
    );
    assert_eq!(code(&out), 2);
}

#[test]
fn validate_reports_eco_mismatch_only_when_enabled() {
    let lichess = path(LICHESS);
    let off = run(&["validate", "-q", &lichess], None);
    assert!(!stdout(&off).contains("eco-mismatch"));
    let on = run(
        &["validate", "-q", "--enable", "eco-mismatch", &lichess],
        None,
    );
    let mismatches = stdout(&on).matches(": eco-mismatch: ").count();
    // As many as convert's records disagree with the tags.
    let disagree = rows(&[&lichess])
        .iter()
        .filter(|g| g["ECO"] != "?" && (&g["eco"], &g["opening"]) != (&g["ECO"], &g["Opening"]))
        .count();
    assert_eq!(mismatches, disagree);
    assert!(disagree > 0);
    // A note does not fail the run; the table of the day finds none.
    assert_eq!(code(&on), code(&off));
    let then = run(
        &[
            "validate",
            "-q",
            "--enable",
            "eco-mismatch",
            "--openings",
            &path(OLD_TABLE),
            &lichess,
        ],
        None,
    );
    assert!(!stdout(&then).contains("eco-mismatch"), "{}", stdout(&then));
    // --only names it too; --enable takes only the codes that are off.
    let only = run(
        &["validate", "-q", "--only", "eco-mismatch", &lichess],
        None,
    );
    assert_eq!(stdout(&only).matches(": eco-mismatch: ").count(), disagree);
    let wrong = run(&["validate", "--enable", "layout", &lichess], None);
    assert_eq!(code(&wrong), 2);
    let wrong = run(
        &["validate", "--openings", &path(OLD_TABLE), &lichess],
        None,
    );
    assert_eq!(code(&wrong), 2);
    assert!(
        stderr(&wrong).contains("--enable eco-mismatch"),
        "{}",
        stderr(&wrong)
    );
}

/// The time each move took, computed here from the clocks as written:
/// each side's clock before its move (the base time before its first),
/// plus the increment, less the clock after; `None` when negative.
fn spent_here(base: f64, inc: f64, clocks: &[f64]) -> Vec<Option<f64>> {
    let mut before = [base, base];
    clocks
        .iter()
        .enumerate()
        .map(|(i, &after)| {
            let t = before[i % 2] + inc - after;
            before[i % 2] = after;
            (t >= -1e-9).then_some((t * 1000.0).round() / 1000.0)
        })
        .collect()
}

/// A CSV list of numbers (`-` for none).
fn numbers(cell: &str) -> Vec<Option<f64>> {
    cell.split(' ')
        .filter(|c| !c.is_empty())
        .map(|c| (c != "-").then(|| c.parse().unwrap()))
        .collect()
}

#[test]
fn time_spent_is_the_clock_arithmetic_of_each_side() {
    let games = rows(&[&path(LICHESS)]);
    let mut checked = 0;
    let mut negative = 0;
    for g in &games {
        let tc = &g["TimeControl"];
        let Some((base, inc)) = tc.split_once('+') else {
            continue;
        };
        let (base, inc): (f64, f64) = (base.parse().unwrap(), inc.parse().unwrap());
        // `300+0` is written `300`: the periods as the tag writes them.
        let want = if inc == 0.0 {
            base.to_string()
        } else {
            tc.clone()
        };
        assert_eq!(g["time_control"], want);
        let Some(clocks) = numbers(&g["clock"])
            .into_iter()
            .collect::<Option<Vec<f64>>>()
        else {
            continue;
        };
        if clocks.is_empty() {
            continue;
        }
        let spent = numbers(&g["time_spent"]);
        let here = spent_here(base, inc, &clocks);
        assert_eq!(spent, here, "game {}", g["game"]);
        negative += here.iter().filter(|t| t.is_none()).count();
        checked += 1;
    }
    assert!(checked >= 30, "{checked}");
    // Each negative time is a clock-mismatch finding on standard error.
    let out = run(&["convert", "--to", "csv", &path(LICHESS)], None);
    assert_eq!(stderr(&out).matches("clock-mismatch").count(), negative);
    assert!(negative > 0);
}

#[test]
fn time_controls_of_every_form_are_typed() {
    let forms = [
        (
            "40/7200:3600",
            "40/7200 3600",
            r#"[{"moves":40,"seconds":7200,"increment":0,"sandclock":false},{"moves":null,"seconds":3600,"increment":0,"sandclock":false}]"#,
        ),
        (
            "300+2",
            "300+2",
            r#"[{"moves":null,"seconds":300,"increment":2,"sandclock":false}]"#,
        ),
        (
            "*180",
            "*180",
            r#"[{"moves":null,"seconds":180,"increment":0,"sandclock":true}]"#,
        ),
        (
            "40/5400+30:1800+30",
            "40/5400+30 1800+30",
            r#"[{"moves":40,"seconds":5400,"increment":30,"sandclock":false},{"moves":null,"seconds":1800,"increment":30,"sandclock":false}]"#,
        ),
        (
            "10+0.05",
            "10+0.05",
            r#"[{"moves":null,"seconds":10,"increment":0.05,"sandclock":false}]"#,
        ),
        ("-", "-", "[]"),
        ("?", "", "null"),
        ("40/", "", "null"),
        ("300:40/7200", "", "null"),
    ];
    for (tag, csv_cell, json) in forms {
        let pgn = format!("[Event \"e\"]\n[TimeControl \"{tag}\"]\n\n1. e4 {{[%clk 0:01:00]}} *\n");
        let out = run(&["convert", "--to", "csv", "-"], Some(pgn.as_bytes()));
        let mut r = csv::Reader::from_reader(out.stdout.as_slice());
        let header = r.headers().unwrap().clone();
        let row = r.records().next().unwrap().unwrap();
        let at = header.iter().position(|h| h == "time_control").unwrap();
        assert_eq!(&row[at], csv_cell, "{tag}");
        // A malformed value is a finding, never a guess.
        let malformed = csv_cell.is_empty() && tag != "?";
        assert_eq!(
            stderr(&out).contains("invalid-tag: TimeControl"),
            malformed,
            "{tag}: {}",
            stderr(&out)
        );
        let out = run(
            &["convert", "--to", "jsonl", "--no-fen", "-"],
            Some(pgn.as_bytes()),
        );
        let v: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
        assert_eq!(
            v["time_control"],
            serde_json::from_str::<Value>(json).unwrap(),
            "{tag}"
        );
    }
    // validate says the same.
    let out = run(
        &["validate", "-"],
        Some(b"[Event \"e\"]\n[TimeControl \"40/\"]\n\n1. e4 *\n"),
    );
    assert!(
        stdout(&out).contains("invalid-tag: TimeControl \"40/\""),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_opponent_of_a_flag_is_asked_whatever_the_result() {
    // Black's flag fell (Black to move) with White's rook on the board:
    // a site's draw, the Laws' loss (6.9). Against a bare king, a draw.
    let game = |fen: &str| {
        format!(
            "[Event \"e\"]\n[Termination \"Time forfeit\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1/2-1/2\n\n"
        )
    };
    let pgn = game("4k3/q7/8/8/8/8/8/4K2R b - - 0 1") + &game("4k3/q7/8/8/8/8/8/4K3 b - - 0 1");
    let out = run(
        &["annotate-outcome", "-q", "-f", "jsonl", "-"],
        Some(pgn.as_bytes()),
    );
    let v: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v[0]["opponent_can_mate"], "yes");
    assert_eq!(v[0]["winner_can_mate"], Value::Null);
    assert_eq!(v[0]["fide_result"], "1-0");
    assert_eq!(v[0]["loss_rule"], "6.9-loss");
    assert!(v[0]["helpmate"].as_array().is_some_and(|h| !h.is_empty()));
    assert_eq!(v[1]["opponent_can_mate"], "no");
    assert_eq!(v[1]["fide_result"], "1/2-1/2");
    assert_eq!(code(&out), 1);
    // The records have the opening too.
    let out = run(
        &["annotate-outcome", "-q", "-f", "csv", &path(LICHESS)],
        None,
    );
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header = r.headers().unwrap().clone();
    let (eco, tag) = (
        header.iter().position(|h| h == "eco").unwrap(),
        header.iter().position(|h| h == "opening_ply").unwrap(),
    );
    let named = r.records().filter(|rec| {
        let rec = rec.as_ref().unwrap();
        !rec[eco].is_empty() && !rec[tag].is_empty()
    });
    assert!(named.count() >= 38);
}

#[test]
fn uci_lines_are_classified_as_the_games_they_came_from() {
    // The lichess games as UCI lines (`convert --to uci`), read back.
    let uci = run(&["convert", "-q", "--to", "uci", &path(LICHESS)], None);
    assert_eq!(code(&uci), 0);
    let out = run(
        &["convert", "-q", "--from", "uci", "--to", "csv", "-"],
        Some(&uci.stdout),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header = r.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (eco, opening, ply) = (col("eco"), col("opening"), col("opening_ply"));
    let lines: Vec<Vec<String>> = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            [eco, opening, ply].map(|i| rec[i].to_owned()).to_vec()
        })
        .collect();
    let games: Vec<Vec<String>> = rows(&[&path(LICHESS)])
        .iter()
        .map(|g| {
            vec![
                g["eco"].clone(),
                g["opening"].clone(),
                g["opening_ply"].clone(),
            ]
        })
        .collect();
    assert_eq!(lines, games);
    assert!(games.iter().filter(|g| !g[0].is_empty()).count() >= 38);
}
