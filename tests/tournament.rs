//! The tournament (issue 47): `pgnkit crosstable`'s standings against a
//! plain count of the results of real events, and `validate`'s pairing
//! findings on the same events with errors planted
//! (fixtures/tournament/README.md).

use std::collections::HashMap;

use crate::util::{code, run, stderr, stdout};

/// Four real events of TWIC 1599: two round-robins (one a tiebreak), a
/// Swiss.
const EVENTS: &str = "fixtures/tournament/twic1599_events.pgn";
/// The same with pairing errors planted by plant.py, each game changed
/// tagged `Planted`.
const PLANTED: &str = "fixtures/tournament/planted.pgn";

/// The tags of each game of PGN `text`, read plainly: one game per
/// `[Event` line.
fn games(text: &str) -> Vec<HashMap<String, String>> {
    let mut out: Vec<HashMap<String, String>> = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let Some((name, value)) = rest.split_once(" \"") else {
            continue;
        };
        let value = value.trim_end_matches("\"]").to_owned();
        if name == "Event" {
            out.push(HashMap::new());
        }
        out.last_mut().unwrap().insert(name.to_owned(), value);
    }
    out
}

/// The report's rows, each a map of column to value.
fn rows(csv: &str) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

#[test]
fn standings_are_a_plain_count_of_the_results() {
    let text = std::fs::read_to_string(EVENTS).unwrap();
    // Half points, wins, draws, losses by (event, FideId).
    let mut count: HashMap<(String, String), [u32; 4]> = HashMap::new();
    for g in games(&text) {
        let (w, b) = match g["Result"].as_str() {
            "1-0" => (2, 0),
            "0-1" => (0, 2),
            "1/2-1/2" => (1, 1),
            _ => continue,
        };
        for (id, h) in [(&g["WhiteFideId"], w), (&g["BlackFideId"], b)] {
            let c = count.entry((g["Event"].clone(), id.clone())).or_default();
            c[0] += h;
            c[match h {
                2 => 1,
                1 => 2,
                _ => 3,
            }] += 1;
        }
    }
    let out = run(&["crosstable", "-q", "-f", "csv", EVENTS], None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let table = rows(&stdout(&out));
    assert_eq!(table.len(), count.len(), "one row per player of each event");
    let mut last: Option<(String, f64)> = None;
    for r in &table {
        let key = (r["event"].clone(), r["fide_id"].clone());
        let [halves, wins, draws, losses] = count[&key];
        let points: f64 = r["points"].parse().unwrap();
        assert_eq!(points, f64::from(halves) / 2.0, "{r:?}");
        // The one game without moves (a tiebreak draw) is counted, not
        // played.
        let unplayed: u32 = r["unplayed"].parse().unwrap();
        let [w, d, l]: [u32; 3] = ["wins", "draws", "losses"].map(|c| r[c].parse().unwrap());
        assert_eq!((w, d + unplayed, l), (wins, draws, losses), "{r:?}");
        // In standings order: points never go up within an event.
        if let Some((event, before)) = &last
            && *event == r["event"]
        {
            assert!(points <= *before, "{r:?}");
        }
        last = Some((r["event"].clone(), points));
    }
    let kinds: HashMap<&str, &str> = table
        .iter()
        .map(|r| (r["event"].as_str(), r["system"].as_str()))
        .collect();
    assert_eq!(kinds["Shamakhi Open 2025"], "swiss");
    assert_eq!(kinds["IV Janos Rigo Mem GMA"], "round-robin");
    assert_eq!(kinds["UzChess Cup Masters TB1"], "round-robin");
}

#[test]
fn each_row_of_a_swiss_lists_its_rounds_against_the_opponents_rows() {
    let out = run(&["crosstable", "-q", "-f", "jsonl", EVENTS], None);
    let records: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let swiss: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["event"] == "Shamakhi Open 2025")
        .collect();
    // Each item `R:Nc S` names the row N whose own item of round R names
    // this row back, with the other colour and the complement score.
    for (i, r) in swiss.iter().enumerate() {
        for item in r["results"].as_array().unwrap() {
            let item = item.as_str().unwrap();
            let (round, rest) = item.split_once(':').unwrap();
            let colour_at = rest.find(['w', 'b']).unwrap();
            let opponent: usize = rest[..colour_at].parse().unwrap();
            let score = &rest[colour_at + 1..];
            let theirs = swiss[opponent - 1]["results"].as_array().unwrap();
            let back = format!(
                "{round}:{}{}{}",
                i + 1,
                if &rest[colour_at..=colour_at] == "w" {
                    'b'
                } else {
                    'w'
                },
                match score {
                    "1" => "0",
                    "0" => "1",
                    s => s,
                }
            );
            assert!(
                theirs.iter().any(|t| t == &back),
                "{item} of row {} against {theirs:?}",
                i + 1
            );
        }
    }
}

#[test]
fn real_events_have_no_pairing_findings() {
    let out = run(&["validate", "-q", "-f", "csv", EVENTS], None);
    let found: Vec<String> = rows(&stdout(&out))
        .into_iter()
        .map(|r| r["code"].clone())
        .filter(|c| c != "played-on")
        .collect();
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn every_planted_pairing_error_is_reported_at_its_game() {
    let text = std::fs::read_to_string(PLANTED).unwrap();
    let out = run(&["validate", "-q", "-f", "csv", PLANTED], None);
    assert_eq!(code(&out), 0, "warnings only: {}", stderr(&out));
    let found = rows(&stdout(&out));
    let mut planted = 0;
    for (i, g) in games(&text).iter().enumerate() {
        let Some(what) = g.get("Planted") else {
            continue;
        };
        let number = (i + 1).to_string();
        for code in what.split(':').next().unwrap().split(", ") {
            planted += 1;
            // At the game, or at a later one naming it (the second game
            // of a player in one round is the one reported).
            let at = found.iter().any(|f| {
                f["code"] == code
                    && (f["game"] == number || f["message"].contains(&format!("game {number} ")))
            });
            assert!(at, "{code} at game {number}: {found:#?}");
        }
    }
    assert_eq!(planted, 9);
    // Nothing else is reported but what the real games had.
    let tournament = [
        "paired-twice",
        "board-twice",
        "round-missing",
        "round-order",
        "name-variant",
        "pairing-repeated",
        "duplicate-game",
    ];
    let reported = found
        .iter()
        .filter(|f| tournament.contains(&f["code"].as_str()))
        .count();
    assert_eq!(reported, planted);
}

#[test]
fn a_shard_cannot_see_a_tournament() {
    let out = run(
        &[
            "validate",
            "-q",
            "--only",
            "paired-twice",
            "--byte-range",
            "0-1000",
            PLANTED,
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--byte-range"), "{}", stderr(&out));
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            "--byte-range",
            "0-200000",
            PLANTED,
        ],
        None,
    );
    assert!(!stdout(&out).contains("paired-twice"), "{}", stdout(&out));
}

#[test]
fn byes_and_forfeits_are_scored_and_marked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("club.pgn");
    let game = |round: &str, white: &str, black: &str, result: &str, extra: &str, moves: &str| {
        format!(
            "[Event \"Club\"]\n[Site \"?\"]\n[Date \"2025.01.10\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n{extra}\n{moves} {result}\n\n"
        )
    };
    let text = [
        game(
            "1",
            "Ann",
            "Bea",
            "1-0",
            "",
            "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#",
        ),
        game("1", "Cleo", "Dora", "0-1", "[Termination \"forfeit\"]", ""),
        game("1", "Eve", "BYE", "1-0", "", ""),
        game("2", "Bea", "Cleo", "1/2-1/2", "", "1. d4 d5"),
        game("2", "Dora", "Ann", "1-0", "", "1. c4 c5"),
        game("2", "Eve", "Frida", "0-1", "", "1. Nf3 Nf6"),
    ]
    .concat();
    std::fs::write(&path, text).unwrap();
    let out = run(
        &["crosstable", "-q", "-f", "csv", path.to_str().unwrap()],
        None,
    );
    let table = rows(&stdout(&out));
    let of = |name: &str| table.iter().find(|r| r["competitor"] == name).unwrap();
    assert!(table.iter().all(|r| r["competitor"] != "BYE"));
    assert_eq!(
        (
            of("Dora")["points"].as_str(),
            of("Dora")["unplayed"].as_str(),
            of("Dora")["played"].as_str()
        ),
        ("2", "1", "1")
    );
    assert!(
        of("Dora")["results"].starts_with("1:") && of("Dora")["results"].contains("b+"),
        "{:?}",
        of("Dora")
    );
    assert!(of("Cleo")["results"].contains("w-"), "{:?}", of("Cleo"));
    assert!(of("Eve")["results"].contains("1:bye+"), "{:?}", of("Eve"));
    let text = run(&["crosstable", "-q", path.to_str().unwrap()], None);
    assert!(
        stdout(&text).contains("Club (2025): Swiss, 6 players, rounds 1–2, 6 games"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn crosstable_refuses_shards_and_writes_a_page() {
    let out = run(&["crosstable", "--byte-range", "0-100", EVENTS], None);
    assert_eq!(code(&out), 2);
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("x.html");
    let out = run(
        &[
            "crosstable",
            "-q",
            "-f",
            "html",
            "-o",
            page.to_str().unwrap(),
            EVENTS,
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<table class=\"xt\"").count(), 4);
    assert!(html.contains("Shamakhi Open 2025 (Shamakhi AZE, 2025.06.27): Swiss, 26 players"));
}

#[test]
fn judgments_against_earlier_games_do_not_depend_on_threads() {
    // Twelve inputs, each the planted tournament: every game of the second
    // and later copies repeats one of the first, and every round is full
    // twice over. Inputs read at once would reach the writer interleaved.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(PLANTED).unwrap();
    let mut files = Vec::new();
    for i in 0..12 {
        let path = dir.path().join(format!("t{i:02}.pgn"));
        std::fs::write(&path, &text).unwrap();
        files.push(path.to_str().unwrap().to_owned());
    }
    let report = |j: &str| {
        let mut args = vec!["validate", "-q", j];
        args.extend(files.iter().map(String::as_str));
        stdout(&run(&args, None))
    };
    let one = report("-j1");
    // Every repeat names the first file's copy.
    let repeats: Vec<&str> = one
        .lines()
        .filter(|l| l.contains(": duplicate-game: "))
        .collect();
    assert!(repeats.len() > 11 * 100, "{}", repeats.len());
    assert!(
        repeats
            .iter()
            .filter(|l| !l.contains("t00.pgn:"))
            .all(|l| l.contains("t00.pgn (line")),
        "{one}"
    );
    for j in ["-j2", "-j8", "-j8"] {
        assert!(report(j) == one, "{j} differs from -j1");
    }
}

#[test]
fn the_page_draws_each_event_and_links_its_problem_cells() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "html",
            "-o",
            page.to_str().unwrap(),
            PLANTED,
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    let section = &html[html
        .find("<section id=\"tournament\"")
        .expect("a tournament section")..];
    let section = &section[..section
        .find("</section><p class=\"noprint\"")
        .expect("its end")];
    assert_eq!(section.matches("<table class=\"xt\"").count(), 4);
    // Every linked cell leads to a game's entry, and every game with a
    // pairing finding is linked from its players' cells (two each).
    let links: Vec<&str> = section
        .split("href=\"#")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    for id in &links {
        assert!(
            html.contains(&format!("<article class=\"game\" id=\"{id}\""))
                || html.contains(&format!("<tr id=\"{id}\"")),
            "{id}"
        );
    }
    // The games with a pairing finding: each linked from its players'
    // cells, to its pairing finding (they have no finding of their own).
    let pairing: Vec<&str> = section
        .split("<tr id=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(pairing.len(), 8, "{pairing:?}");
    for id in &pairing {
        assert_eq!(
            links.iter().filter(|l| *l == id).count(),
            2,
            "{id}: {links:?}"
        );
    }
    // No game has two entries.
    assert!(!html.contains("id=\"g15-2\""));
    assert_eq!(
        html.matches("<article class=\"game\"").count(),
        2,
        "played-on, duplicate-game"
    );
}
