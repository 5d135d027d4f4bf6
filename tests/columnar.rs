//! The columnar formats (`-f parquet`, `-f arrow`): the same records as CSV,
//! typed as the schema says, the same bytes for any thread count, and the
//! typed readings of well-known tags.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float64Type, Int32Type, Time32MillisecondType, UInt8Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::util::{code, fixture, run, stderr, stdout};

/// The batches of a Parquet file.
fn read_parquet(path: &Path) -> Vec<RecordBatch> {
    let file = File::open(path).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_batch_size(8192)
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The batches of an Arrow IPC stream.
fn read_stream(bytes: &[u8]) -> Vec<RecordBatch> {
    arrow_ipc::reader::StreamReader::try_new(bytes, None)
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A value as CSV writes it (null as the empty cell): integers in decimal,
/// words as words, lists space-separated, the `error` struct as
/// `code at ply N: message`.
fn text(column: &dyn Array, row: usize) -> String {
    if column.is_null(row) {
        return String::new();
    }
    match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().value(row).to_owned(),
        DataType::UInt8 => column.as_primitive::<UInt8Type>().value(row).to_string(),
        DataType::UInt32 => column.as_primitive::<UInt32Type>().value(row).to_string(),
        DataType::UInt64 => column.as_primitive::<UInt64Type>().value(row).to_string(),
        DataType::Int32 => column.as_primitive::<Int32Type>().value(row).to_string(),
        // Seconds as CSV writes a clock: the digits of its milliseconds.
        DataType::Float64 => {
            let ms = (column.as_primitive::<Float64Type>().value(row) * 1000.0).round() as u64;
            let frac = format!("{:03}", ms % 1000);
            match frac.trim_end_matches('0') {
                "" => (ms / 1000).to_string(),
                f => format!("{}.{f}", ms / 1000),
            }
        }
        DataType::Boolean => column.as_boolean().value(row).to_string(),
        DataType::Dictionary(..) => {
            let d = column.as_dictionary::<Int32Type>();
            let key = d.keys().value(row) as usize;
            d.values().as_string::<i32>().value(key).to_owned()
        }
        // A time control's periods as the tag writes them, `-` for none.
        DataType::List(item) if matches!(item.data_type(), DataType::Struct(f) if f.find("seconds").is_some()) =>
        {
            let items = column.as_list::<i32>().value(row);
            let s = items.as_struct();
            let periods: Vec<String> = (0..items.len())
                .map(|i| {
                    let field = |name: &str| text(s.column_by_name(name).unwrap(), i);
                    let mut p = String::new();
                    if field("sandclock") == "true" {
                        p.push('*');
                    }
                    let moves = field("moves");
                    if !moves.is_empty() {
                        p.push_str(&format!("{moves}/"));
                    }
                    p.push_str(&field("seconds"));
                    if field("increment") != "0" {
                        p.push_str(&format!("+{}", field("increment")));
                    }
                    p
                })
                .collect();
            if periods.is_empty() {
                "-".to_owned()
            } else {
                periods.join(" ")
            }
        }
        DataType::List(_) => {
            let items = column.as_list::<i32>().value(row);
            // A number list's null item is `-` in CSV.
            (0..items.len())
                .map(|i| match items.is_null(i) {
                    true => "-".to_owned(),
                    false => text(&items, i),
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
        DataType::Struct(_) => {
            let s = column.as_struct();
            let field = |name: &str| text(s.column_by_name(name).unwrap(), row);
            match field("ply").as_str() {
                "" => format!("{}: {}", field("code"), field("message")),
                ply => format!("{} at ply {ply}: {}", field("code"), field("message")),
            }
        }
        other => panic!("no CSV text for {other}"),
    }
}

/// A map column's entries at `row`.
fn entries(column: &dyn Array, row: usize) -> Vec<(String, String)> {
    let map = column.as_map().value(row);
    let (keys, values) = (map.column(0), map.column(1));
    (0..map.len())
        .map(|i| (text(keys, i), text(values, i)))
        .collect()
}

/// The CSV of `out` as a header and rows.
fn csv_rows(out: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(out);
    let header = r.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(str::to_owned).collect())
        .collect();
    (header, rows)
}

/// Asserts that the columnar `batches` hold the rows of the CSV `csv`:
/// every CSV column that is a columnar column has the same text, and a
/// CSV column that is not (a tag) has the value of the `tags` map.
fn assert_same_rows(csv: &[u8], batches: &[RecordBatch], what: &str) {
    let (header, rows) = csv_rows(csv);
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(total, rows.len(), "{what}: rows");
    assert!(!rows.is_empty(), "{what}: some rows");
    let mut at = 0;
    for batch in batches {
        let schema = batch.schema();
        for r in 0..batch.num_rows() {
            let row = &rows[at];
            at += 1;
            let tags: HashMap<String, String> = match batch.column_by_name("tags") {
                Some(t) => entries(t.as_ref(), r).into_iter().rev().collect(),
                None => HashMap::new(),
            };
            for (name, cell) in header.iter().zip(row) {
                let got = match schema.index_of(name) {
                    Ok(i) => text(batch.column(i).as_ref(), r),
                    Err(_) => tags.get(name).cloned().unwrap_or_default(),
                };
                assert_eq!(&got, cell, "{what}: row {at}, column {name}");
            }
        }
    }
}

#[test]
fn parquet_and_arrow_hold_the_csv_rows() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = fixture("");
    let fixtures = fixtures.to_str().unwrap();
    // What each run is, its arguments, those CSV alone takes, and the flag
    // that names the format.
    let runs: [(&str, Vec<&str>, Vec<&str>, &str); 5] = [
        ("validate", vec!["validate", "-q", fixtures], vec![], "-f"),
        // Every fixture: the planted repeats and the games two files share.
        ("dedupe", vec!["dedupe", "-q", fixtures], vec![], "-f"),
        (
            "annotate-outcome",
            vec![
                "annotate-outcome",
                "-q",
                "--tags",
                "ECO,Event,Opening",
                fixtures,
            ],
            vec![],
            "-f",
        ),
        // CSV with every tag: the columnar map has them all.
        (
            "convert",
            vec!["convert", "-q", fixtures],
            vec!["--tags", "all"],
            "--to",
        ),
        (
            "convert --keep-invalid",
            vec!["convert", "-q", "--keep-invalid", fixtures],
            vec!["--tags", "all"],
            "--to",
        ),
    ];
    for (what, args, csv_only, flag) in runs {
        let with = |format: &str| -> Vec<String> {
            let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            a.extend([flag.to_owned(), format.to_owned()]);
            if format == "csv" {
                a.extend(csv_only.iter().map(|s| s.to_string()));
            }
            a
        };
        let csv = run(
            &with("csv").iter().map(String::as_str).collect::<Vec<_>>(),
            None,
        );
        let path = dir.path().join("out.parquet");
        let mut pq_args = with("parquet");
        pq_args.extend(["-o".to_owned(), path.to_str().unwrap().to_owned()]);
        let pq = run(
            &pq_args.iter().map(String::as_str).collect::<Vec<_>>(),
            None,
        );
        assert_eq!(code(&pq), code(&csv), "{what}: {}", stderr(&pq));
        assert_eq!(stderr(&pq), stderr(&csv), "{what}: the same diagnostics");
        assert_same_rows(&csv.stdout, &read_parquet(&path), what);
        let stream = run(
            &with("arrow").iter().map(String::as_str).collect::<Vec<_>>(),
            None,
        );
        assert_eq!(code(&stream), code(&csv));
        assert_same_rows(&csv.stdout, &read_stream(&stream.stdout), what);
    }
}

#[test]
fn columnar_bytes_are_the_same_for_any_thread_count() {
    let corpus = fixture("corpus");
    let corpus = corpus.to_str().unwrap();
    for (cmd, flag, format) in [
        ("convert", "--to", "parquet"),
        ("convert", "--to", "arrow"),
        ("annotate-outcome", "-f", "parquet"),
        ("validate", "-f", "arrow"),
    ] {
        let outs: Vec<Vec<u8>> = ["1", "3"]
            .iter()
            .map(|j| run(&[cmd, "-q", "-j", j, flag, format, corpus], None).stdout)
            .collect();
        assert!(outs[0].len() > 1000, "{cmd} {format}");
        assert!(outs[0] == outs[1], "{cmd} {format}: -j1 and -j3 differ");
    }
}

/// Statistics where a reader can use them: every scalar column of a game
/// record carries its minimum and maximum, the items of its lists (moves,
/// clocks, evaluations) none.
#[test]
fn parquet_statistics_are_kept_for_scalars_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.parquet");
    let (corpus, path) = (fixture("corpus"), path.to_str().unwrap());
    let out = run(
        &[
            "convert",
            "-q",
            "--to",
            "parquet",
            "-o",
            path,
            corpus.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let meta = reader.metadata();
    assert!(meta.num_row_groups() > 0);
    let mut lists = 0;
    for group in meta.row_groups() {
        for chunk in group.columns() {
            let path = chunk.column_path().parts().join(".");
            let has_min_max = chunk
                .statistics()
                .is_some_and(|s| s.min_bytes_opt().is_some() && s.max_bytes_opt().is_some());
            if path.ends_with(".list.item") {
                lists += 1;
                assert!(chunk.statistics().is_none(), "{path} has statistics");
            } else if ["game", "offset", "plies", "white", "final_fen"].contains(&path.as_str()) {
                assert!(has_min_max, "{path} lost its minimum and maximum");
            }
        }
    }
    // uci, san, clock, time_spent, eval_cp, eval_mate in every row group.
    assert_eq!(lists, 6 * meta.num_row_groups());
}

#[test]
fn well_known_tags_are_typed() {
    let pgn = "[Event \"E\"]\n[Site \"S\"]\n[Date \"2024.02.29\"]\n[Round \"3.1\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[WhiteElo \"2750\"]\n[BlackElo \"?\"]\n[UTCDate \"2024.02.29\"]\n[UTCTime \"23:59:58\"]\n[ECO \"C20\"]\n[ECO \"C21\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
               [Date \"2023.02.29\"]\n[WhiteElo \"-\"]\n[UTCTime \"24:00:00\"]\n\n1. e4 *\n\n\
               [White \"X\"]\n\n1. e4 e5 2. Ke3 *\n";
    let out = run(
        &["convert", "-q", "--to", "arrow", "--san"],
        Some(pgn.as_bytes()),
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let batches = read_stream(&out.stdout);
    assert_eq!(batches.len(), 1);
    let b = &batches[0];
    assert_eq!(
        b.num_rows(),
        3,
        "a row for the game that cannot be replayed too"
    );
    let col = |name: &str| b.column_by_name(name).unwrap().clone();
    let date = col("date");
    let date = date.as_primitive::<Date32Type>();
    assert_eq!(date.value(0), 19_782, "2024-02-29");
    assert!(date.is_null(1), "2023.02.29 is no day");
    assert!(date.is_null(2), "no Date tag");
    let elo = col("white_elo");
    let elo = elo.as_primitive::<UInt32Type>();
    assert_eq!(elo.value(0), 2750);
    assert!(elo.is_null(1), "`-` is no rating");
    assert!(col("black_elo").is_null(0), "`?` is no rating");
    let time = col("utc_time");
    let time = time.as_primitive::<Time32MillisecondType>();
    assert_eq!(time.value(0), (23 * 3600 + 59 * 60 + 58) * 1000);
    assert!(time.is_null(1), "24:00:00 is no time of day");
    assert_eq!(text(col("round").as_ref(), 0), "3.1");
    assert_eq!(text(col("white").as_ref(), 1), "?");
    assert_eq!(text(col("result").as_ref(), 0), "1-0");
    assert_eq!(
        text(col("uci").as_ref(), 0),
        "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7"
    );
    assert_eq!(text(col("san").as_ref(), 0), "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#");
    assert_eq!(text(col("plies").as_ref(), 0), "7");
    // The map keeps every tag once, the first value of a repeated one.
    let tags = entries(col("tags").as_ref(), 0);
    assert_eq!(tags.len(), 12);
    assert!(tags.contains(&("ECO".to_owned(), "C20".to_owned())));
    // The game that breaks: its tags and error, no moves.
    assert!(col("uci").is_null(2) && col("plies").is_null(2) && col("san").is_null(2));
    assert_eq!(text(col("error_code").as_ref(), 2), "illegal-move");
    assert!(text(col("error").as_ref(), 2).starts_with("illegal-move at ply 3: "));
}

#[test]
fn an_empty_input_is_an_empty_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.parquet");
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "parquet",
            "-o",
            path.to_str().unwrap(),
        ],
        Some(b""),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let batches = read_parquet(&path);
    assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 0);
    let out = run(&["annotate-outcome", "-q", "-f", "arrow"], Some(b""));
    assert_eq!(code(&out), 0);
    let reader = arrow_ipc::reader::StreamReader::try_new(&out.stdout[..], None).unwrap();
    assert!(reader.schema().index_of("termination").is_ok());
}

#[test]
fn flags_of_other_formats_are_refused() {
    for (args, says) in [
        (
            &[
                "convert",
                "--to",
                "parquet",
                "--tags",
                "ECO",
                "-o",
                "x.parquet",
            ][..],
            "--tags applies to --to csv only",
        ),
        (
            &["convert", "--to", "csv", "--san"][..],
            "--san applies to --to parquet and --to arrow only",
        ),
    ] {
        let out = run(args, Some(b""));
        assert_eq!(code(&out), 2);
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(stdout(&out).is_empty());
    }
    assert!(!Path::new("x.parquet").exists());
}

#[test]
fn position_records_are_the_fen_lines_and_the_moves() {
    let corpus = fixture("corpus");
    let corpus = corpus.to_str().unwrap();
    let fens = run(
        &["convert", "-q", "--to", "fen", "--positions", "all", corpus],
        None,
    );
    let ucis = run(&["convert", "-q", "--to", "uci", corpus], None);
    let out = run(
        &[
            "convert",
            "-q",
            "--to",
            "arrow",
            "--positions",
            "all",
            corpus,
        ],
        None,
    );
    assert_eq!(code(&out), code(&fens), "{}", stderr(&out));
    let fens = stdout(&fens);
    let fens: Vec<&str> = fens.lines().collect();
    let games: Vec<Vec<String>> = stdout(&ucis)
        .lines()
        .map(|l| {
            l.split(' ')
                .filter(|m| !m.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect();
    let batches = read_stream(&out.stdout);
    let mut at = 0;
    for b in &batches {
        let col = |name: &str| b.column_by_name(name).unwrap().clone();
        let (game, ply, fen, uci) = (col("game"), col("ply"), col("fen"), col("uci"));
        for r in 0..b.num_rows() {
            assert_eq!(text(fen.as_ref(), r), fens[at], "position {at}");
            let g: usize = text(game.as_ref(), r).parse().unwrap();
            let p: usize = text(ply.as_ref(), r).parse().unwrap();
            let expected = p
                .checked_sub(1)
                .map(|i| games[g - 1][i].clone())
                .unwrap_or_default();
            assert_eq!(text(uci.as_ref(), r), expected, "game {g} ply {p}");
            at += 1;
        }
    }
    assert_eq!(at, fens.len());
    assert!(at > 100_000);
}
