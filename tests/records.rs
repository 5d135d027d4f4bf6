//! The records' one definition (`src/schema/`) against what documents them
//! (`docs/records.md`, `--help`, `pgnkit schema`) and what the writers
//! write: every JSON Lines record of the fixtures, key by key and type by
//! type, and every CSV header.

use pgnkit::schema::{self, Column, Format, InCsv, Schema, Type};
use serde_json::Value;

use crate::convert::{json_elements, json_members, pgn_fixtures};
use crate::util::{code, run, stdout};

const MARKER: &str = "<!-- generated from src/schema: do not edit below -->\n";

#[test]
fn docs_records_md_is_the_schema() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/records.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let at = doc
        .find(MARKER)
        .expect("docs/records.md has the generated marker")
        + MARKER.len();
    let expected = format!("{}\n{}", &doc[..at], schema::markdown());
    let expected = expected.trim_end().to_owned() + "\n";
    if std::env::var_os("PGNKIT_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    assert!(
        doc == expected,
        "docs/records.md differs from src/schema: rerun with PGNKIT_UPDATE_DOCS=1"
    );
}

#[test]
fn schema_subcommand_prints_every_kind() {
    let out = run(&["schema", "--json"], None);
    assert_eq!(code(&out), 0);
    let kinds: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = kinds.iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "finding",
            "outcome",
            "game",
            "position",
            "duplicate",
            "standing",
            "perft",
            "move",
            "error"
        ]
    );
    for (kind, s) in kinds.iter().zip(schema::ALL) {
        let columns: Vec<&str> = kind["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = s.columns.iter().map(|c| c.name).collect();
        assert_eq!(columns, expected);
    }
    let by_command = run(&["schema", "annotate-outcome", "--json"], None);
    assert_eq!(
        stdout(&by_command),
        format!("{}\n", schema::outcome::OUTCOME.to_json())
    );
    let unknown = run(&["schema", "nothing"], None);
    assert_eq!(code(&unknown), 2);
}

/// Whether `value` is of type `ty` (null allowed when `nullable`).
fn check_value(value: &Value, column: &Column, with_flags: bool, what: &str) {
    if value.is_null() {
        assert!(
            column.null_when.is_some(),
            "{what}: `{}` is null but never should be",
            column.name
        );
        return;
    }
    check_type(
        value,
        &column.ty,
        with_flags,
        &format!("{what}.{}", column.name),
    );
}

fn check_type(value: &Value, ty: &Type, with_flags: bool, what: &str) {
    match ty {
        Type::Bool => assert!(value.is_boolean(), "{what}: {value}"),
        Type::UInt8 => assert!(value.as_u64().is_some_and(|n| n <= 255), "{what}: {value}"),
        Type::UInt32 => assert!(
            value.as_u64().is_some_and(|n| n <= u64::from(u32::MAX)),
            "{what}: {value}"
        ),
        Type::UInt64 | Type::Key64 => assert!(value.is_u64(), "{what}: {value}"),
        Type::Int32 => assert!(
            value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
            "{what}: {value}"
        ),
        Type::Float64 => assert!(value.is_number(), "{what}: {value}"),
        Type::Str => assert!(value.is_string(), "{what}: {value}"),
        Type::Date | Type::Time => panic!("{what}: dates and times are columnar only"),
        Type::Vocab(words) => {
            let word = value.as_str().unwrap_or_else(|| panic!("{what}: {value}"));
            assert!(
                words().contains(&word),
                "{what}: `{word}` is not in the vocabulary"
            );
        }
        Type::List(item) => {
            for x in value
                .as_array()
                .unwrap_or_else(|| panic!("{what}: {value}"))
            {
                // A list of numbers has a null for a move without one.
                if x.is_null() && matches!(item, Type::Int32 | Type::Float64) {
                    continue;
                }
                check_type(x, item, with_flags, what);
            }
        }
        Type::Struct(s) => check_object(value, s, with_flags, what),
        Type::Map => {
            let map = value
                .as_object()
                .unwrap_or_else(|| panic!("{what}: {value}"));
            assert!(
                map.values().all(|v| v.is_string() || v.is_null()),
                "{what}: {value}"
            );
        }
    }
}

/// Checks that the object `text` has exactly the JSON columns of `s`, in
/// order (read from the text: a parsed map forgets it), each of its type.
fn check_text(text: &str, s: &Schema, with_flags: bool, what: &str) {
    let members = json_members(text);
    let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    let names: Vec<&str> = s
        .columns
        .iter()
        .filter(|c| c.jsonl == Some("") || (c.jsonl.is_some() && with_flags))
        .map(|c| c.name)
        .collect();
    assert_eq!(keys, names, "{what}: {text}");
    for (key, raw) in &members {
        let column = s.column(key);
        if let Type::Struct(inner) = column.ty
            && raw.trim() != "null"
        {
            check_text(raw, inner, false, what);
        }
        if let Type::List(Type::Struct(inner)) = column.ty
            && raw.trim() != "null"
        {
            for item in json_elements(raw) {
                check_text(item, inner, false, what);
            }
        }
    }
    check_object(&serde_json::from_str(text).unwrap(), s, with_flags, what);
}

/// Checks that `value` has exactly the JSON columns of `s`, each of its
/// type.
fn check_object(value: &Value, s: &Schema, with_flags: bool, what: &str) {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{what}: {value}"));
    let expected: Vec<&Column> = s
        .columns
        .iter()
        .filter(|c| match c.jsonl {
            None => false,
            Some("") => true,
            Some(_) => with_flags,
        })
        .collect();
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    let mut names: Vec<&str> = expected.iter().map(|c| c.name).collect();
    keys.sort_unstable();
    names.sort_unstable();
    assert_eq!(keys, names, "{what}: {value}");
    for c in expected {
        check_value(&object[c.name], c, false, what);
    }
}

fn fixtures() -> Vec<String> {
    let mut inputs: Vec<String> = pgn_fixtures()
        .iter()
        .map(|p| p.to_str().unwrap().to_owned())
        .collect();
    inputs.sort();
    inputs
}

fn lines(args: &[&str], inputs: &[String]) -> Vec<String> {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(inputs.iter().map(String::as_str));
    let out = run(&all, None);
    assert_ne!(code(&out), 2, "{args:?}");
    let lines: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert!(!lines.is_empty(), "{args:?} wrote nothing");
    lines
}

#[test]
fn jsonl_records_are_the_schema() {
    let inputs = fixtures();
    let mut checked = 0;
    let runs: [(&[&str], &Schema, bool); 5] = [
        (
            &["validate", "-q", "-f", "jsonl"],
            &schema::finding::FINDING,
            false,
        ),
        (
            &["annotate-outcome", "-q", "-f", "jsonl"],
            &schema::outcome::OUTCOME,
            false,
        ),
        (
            &[
                "annotate-outcome",
                "-q",
                "-f",
                "jsonl",
                "--tags",
                "Site,GameId",
            ],
            &schema::outcome::OUTCOME,
            true,
        ),
        (
            &["convert", "-q", "-t", "jsonl", "--keep-invalid"],
            &schema::game::GAME,
            false,
        ),
        (
            &["convert", "-q", "-t", "jsonl"],
            &schema::game::GAME,
            false,
        ),
    ];
    for (args, s, with_flags) in runs {
        for line in lines(args, &inputs) {
            check_text(&line, s, with_flags, &format!("{args:?}"));
            checked += 1;
        }
    }
    let line_inputs = [
        "fixtures/convert/games.uci".to_owned(),
        "fixtures/convert/puzzles.epd".to_owned(),
    ];
    for line in lines(&["convert", "-q", "-t", "jsonl"], &line_inputs) {
        check_text(&line, &schema::game::GAME, false, "lines");
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn csv_headers_are_the_schema() {
    let inputs = fixtures();
    let header = |args: &[&str]| lines(args, &inputs)[0].clone();
    let names = |s: &Schema, tags: &[&str]| s.csv_names(tags).join(",");
    assert_eq!(
        header(&["validate", "-q", "-f", "csv"]),
        names(&schema::finding::FINDING, &[])
    );
    assert_eq!(
        header(&[
            "annotate-outcome",
            "-q",
            "-f",
            "csv",
            "--tags",
            "Site,GameId"
        ]),
        names(&schema::outcome::OUTCOME, &["Site", "GameId"])
    );
    let roster = [
        "Event", "Site", "Date", "Round", "White", "Black", "Result", "ECO",
    ];
    assert_eq!(
        header(&["convert", "-q", "-t", "csv", "--tags", "ECO"]),
        names(&schema::game::GAME, &roster)
    );
    // Every column a record kind has in CSV is one cell, a per-tag block,
    // or absent; every record kind names each column once.
    for s in schema::ALL {
        let mut seen = std::collections::HashSet::new();
        for c in s.columns {
            assert!(seen.insert(c.name), "{}: `{}` twice", s.name, c.name);
            assert!(c.csv != InCsv::PerTag || matches!(c.ty, Type::Map));
        }
    }
}

#[test]
fn help_lists_every_column() {
    for (command, s) in [
        ("validate", &schema::finding::FINDING),
        ("annotate-outcome", &schema::outcome::OUTCOME),
        ("convert", &schema::game::GAME),
    ] {
        let help = stdout(&run(&[command, "--help"], None));
        // The lists as written, whatever the wrapping.
        let flat: String = help.chars().filter(|c| !c.is_whitespace()).collect();
        for (label, format) in [("csv", Format::Csv), ("jsonl", Format::Jsonl)] {
            let list = format!("{label}:{}", s.names_in(format).join(","));
            assert!(flat.contains(&list), "{command} --help lacks {list}");
        }
    }
}

/// Every CSV cell of the fixtures' records is of its column's type: an
/// integer where the schema says one, a word of the vocabulary, `true` or
/// `false`, and empty only where the column may be null.
#[test]
fn csv_cells_are_the_schema() {
    let inputs = fixtures();
    let runs: [(&[&str], &Schema); 3] = [
        (&["validate", "-q", "-f", "csv"], &schema::finding::FINDING),
        (
            &["annotate-outcome", "-q", "-f", "csv"],
            &schema::outcome::OUTCOME,
        ),
        (&["convert", "-q", "-t", "csv"], &schema::game::GAME),
    ];
    for (args, s) in runs {
        let text = lines(args, &inputs).join("\n");
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let mut cells = 0;
        for row in reader.records().map(Result::unwrap) {
            assert_eq!(row.len(), header.len(), "{args:?}");
            for (name, cell) in header.iter().zip(row.iter()) {
                // Tag columns (convert's roster and others) are text.
                let Some(c) = s
                    .columns
                    .iter()
                    .find(|c| c.name == name && c.csv == InCsv::Cell)
                else {
                    continue;
                };
                cells += 1;
                if cell.is_empty() {
                    assert!(
                        c.null_when.is_some() || matches!(c.ty, Type::Str),
                        "{args:?}: `{name}` is empty but never null"
                    );
                    continue;
                }
                let ok = match &c.ty {
                    Type::Bool => cell == "true" || cell == "false",
                    Type::UInt8 => cell.parse::<u8>().is_ok(),
                    Type::UInt32 => cell.parse::<u32>().is_ok(),
                    Type::UInt64 | Type::Key64 => cell.parse::<u64>().is_ok(),
                    Type::Int32 => cell.parse::<i32>().is_ok(),
                    Type::Float64 => cell.parse::<f64>().is_ok(),
                    Type::List(Type::Int32) => cell
                        .split(' ')
                        .all(|x| x == "-" || x.parse::<i32>().is_ok()),
                    Type::List(Type::Float64) => cell
                        .split(' ')
                        .all(|x| x == "-" || x.parse::<f64>().is_ok_and(f64::is_finite)),
                    Type::Vocab(words) => words().contains(&cell),
                    Type::List(_) => !cell.starts_with(' ') && !cell.ends_with(' '),
                    Type::Str | Type::Struct(_) | Type::Map => true,
                    Type::Date | Type::Time => false,
                };
                assert!(ok, "{args:?}: `{name}` = {cell:?} is not a {}", c.ty.name());
            }
        }
        assert!(cells > 100, "{args:?}: {cells}");
    }
}

/// A tag named like one of convert's own columns gets no column of its
/// own: the header never names two columns alike, and `--tags` naming one
/// is refused.
#[test]
fn a_tag_named_like_a_column_is_not_a_second_column() {
    let pgn = b"[Event \"x\"]\n[plies \"7\"]\n[uci \"e2e4\"]\n[file \"f\"]\n\n1. e4 *\n";
    let out = run(&["convert", "-t", "csv"], Some(pgn));
    assert_eq!(code(&out), 0, "{}", crate::util::stderr(&out));
    let header: Vec<String> = stdout(&out)
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    let unique: std::collections::HashSet<&String> = header.iter().collect();
    assert_eq!(unique.len(), header.len(), "{header:?}");
    assert!(crate::util::stderr(&out).contains("plies (1 game)"));
    let refused = run(&["convert", "-t", "csv", "--tags", "ECO,plies"], Some(pgn));
    assert_eq!(code(&refused), 2);
    assert!(stdout(&refused).is_empty());
}

/// "Every column of every record is named in exactly one string literal in
/// the non-test source" (issue 21): each column name, quoted, occurs once in
/// `src/` outside the test modules, except the words listed here that are
/// also something else.
#[test]
fn each_column_name_is_one_literal_in_src() {
    // Words that are column names and also, elsewhere, another thing: how
    // many times each may be written in all, and why.
    let also = [
        (
            "move",
            3,
            "the name of the move struct, the perft record's root move (UCI) and a finding's move (`54...Nxg2`)",
        ),
        (
            "error",
            5,
            "the severity word, and --fail-on's default and keyword",
        ),
        (
            "code",
            2,
            "the heading of the per-code table on standard error",
        ),
        (
            "moves",
            5,
            "the UCI keyword `moves` (input and convert line readers), and a time control period's moves",
        ),
        ("tags", 2, "a word of a validate message (`tags are`)"),
        (
            "file",
            2,
            "the key of an input file in `merge --plan`'s JSON walk (shards/plan.rs)",
        ),
        (
            "fen",
            3,
            "a word of UCI's `position fen … moves` (lines.rs)",
        ),
        (
            "date",
            7,
            "a value of `--laws` (cli.rs, laws.rs) and the name of the `date` type",
        ),
        (
            "game",
            2,
            "the name of convert's record kind (`pgnkit schema game`)",
        ),
        (
            "white",
            2,
            "a value of select's --side-to-move and --move's side",
        ),
        (
            "black",
            2,
            "a value of select's --side-to-move and --move's side",
        ),
    ];
    let mut texts = Vec::new();
    let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                // Test modules come last in each file.
                let code = text.split("\n#[cfg(test)]").next().unwrap().to_owned();
                texts.push((path, code));
            }
        }
    }
    let mut names: Vec<&str> = schema::ALL
        .iter()
        .flat_map(|s| s.columns.iter().map(|c| c.name))
        .collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let quoted = format!("\"{name}\"");
        let places: Vec<String> = texts
            .iter()
            .flat_map(|(path, code)| {
                code.matches(&quoted)
                    .map(move |_| path.file_name().unwrap().to_string_lossy().into_owned())
            })
            .collect();
        let allowed = also
            .iter()
            .find(|(w, ..)| *w == name)
            .map_or(1, |(_, n, _)| *n);
        assert!(
            !places.is_empty() && places.len() <= allowed,
            "`{name}` is written in {places:?}"
        );
    }
}
