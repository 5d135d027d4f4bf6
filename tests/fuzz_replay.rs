//! Replays every input a fuzz campaign kept in `fixtures/fuzz/<target>/`
//! through the `pgnkit` binary, with the arguments the target of that name
//! (`fuzz/fuzz_targets/<target>.rs`) chooses for it, and checks what the
//! target checks: no panic, a documented exit code, and the target's
//! oracle. Inputs in `fixtures/fuzz/pending/<target>/` show a bug that is
//! not fixed yet: they must still fail, so that the fix is noticed and the
//! input moved to `fixtures/fuzz/<target>/`, where it must then pass.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use pgnkit::rules::perft::{parse_position, play_uci};

use crate::util;

/// The arguments each target chooses, from the fuzz crate's own source.
#[path = "../fuzz/src/args.rs"]
mod fuzz_args;

/// The targets of `fuzz/`, one fixture directory each.
const TARGETS: [&str; 5] = [
    "validate",
    "annotate_outcome",
    "convert_pgn",
    "lines",
    "perft",
];

/// A failed check: what was run and what went wrong.
type Failure = String;

/// The files of `dir`, sorted (none when it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_file() && path.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

/// Writes `bytes` to a file of `dir` and returns its path as a string.
fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    fs::write(&path, bytes).expect("write a replay input");
    path.to_str().expect("temporary paths are UTF-8").to_owned()
}

/// Runs pgnkit with `args` and checks what every target checks: no panic
/// (no `panicked` on stderr, no death by a signal) and an exit code in
/// `allowed`. Returns the output.
fn run_clean(args: &[&str], allowed: &[i32]) -> Result<Output, Failure> {
    let out = util::run(args, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("panicked") {
        return Err(format!("pgnkit {args:?} panicked:\n{stderr}"));
    }
    match out.status.code() {
        Some(code) if allowed.contains(&code) => Ok(out),
        _ => Err(format!(
            "pgnkit {args:?} exited {:?}, not one of {allowed:?}:\n{stderr}",
            out.status
        )),
    }
}

/// The `syntax` findings of `validate -f jsonl` on `pgn`.
fn syntax_findings(dir: &tempfile::TempDir, pgn: &[u8]) -> Result<Vec<String>, Failure> {
    let path = write(dir, "reread.pgn", pgn);
    let out = run_clean(&["validate", "-j1", "-q", "-f", "jsonl", &path], &[0, 1])?;
    Ok(util::stdout(&out)
        .lines()
        // In a message a quote is escaped: this can only be the code.
        .filter(|line| line.contains(r#""code":"syntax""#))
        .map(str::to_owned)
        .collect())
}

/// Fails with `what` and the findings when there are any.
fn no_syntax(what: &str, syntax: &[String], pgn: &[u8]) -> Result<(), Failure> {
    if syntax.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{what} wrote PGN with syntax errors:\n{}\n--- output ---\n{}",
        syntax.join("\n"),
        String::from_utf8_lossy(pgn)
    ))
}

fn replay_validate(data: &[u8], dir: &tempfile::TempDir) -> Result<(), Failure> {
    let path = write(dir, "input.pgn", data);
    let format = ["text", "csv", "jsonl"][data.len() % 3];
    run_clean(&["validate", "-j1", "-q", "-f", format, &path], &[0, 1]).map(drop)
}

fn replay_annotate_outcome(data: &[u8], dir: &tempfile::TempDir) -> Result<(), Failure> {
    let path = write(dir, "input.pgn", data);
    let mut args = fuzz_args::annotate_outcome(data.len());
    let format = args[4];
    args.push(&path);
    let out = run_clean(&args, &[0, 1])?;
    if format == "pgn" {
        let written = syntax_findings(dir, &out.stdout)?;
        let read = syntax_findings(dir, data)?;
        if written.len() > read.len() {
            return Err(format!(
                "annotate-outcome added syntax errors:\n{}",
                written.join("\n")
            ));
        }
    }
    Ok(())
}

/// Convert's two guarantees (`fuzz/src/lib.rs`, `check_pgn_output`).
fn replay_convert_pgn(data: &[u8], dir: &tempfile::TempDir) -> Result<(), Failure> {
    let path = write(dir, "input.pgn", data);
    let n = data.len();
    let mut args = vec!["convert", "--from", "pgn", "--to", "pgn", "-j1", "-q"];
    let flags = [
        (1, "--keep-invalid"),
        (2, "--no-comments"),
        (4, "--no-variations"),
        (8, "--no-nags"),
    ];
    args.extend(
        flags
            .iter()
            .filter(|(bit, _)| n & bit != 0)
            .map(|(_, f)| *f),
    );
    args.push(&path);
    let out = run_clean(&args, &[0, 1])?;
    no_syntax(
        "convert --to pgn",
        &syntax_findings(dir, &out.stdout)?,
        &out.stdout,
    )?;

    let again_path = write(dir, "again.pgn", &out.stdout);
    let mut again = vec!["convert", "--from", "pgn", "--to", "pgn", "-j1", "-q"];
    if n & 1 != 0 {
        again.push("--keep-invalid");
    }
    again.push(&again_path);
    let second = run_clean(&again, &[0, 1])?;
    if second.stdout != out.stdout {
        return Err(format!(
            "convert --to pgn is not a fixed point:\n--- first ---\n{}\n--- second ---\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&second.stdout)
        ));
    }
    Ok(())
}

fn replay_lines(data: &[u8], dir: &tempfile::TempDir) -> Result<(), Failure> {
    let (&select, rest) = data.split_first().ok_or("no selector byte")?;
    let path = write(dir, "input.txt", rest);
    let (to, mut args) = fuzz_args::lines(select);
    args.push(&path);
    let out = run_clean(&args, &[0, 1])?;
    if to == "pgn" {
        no_syntax(
            "convert of lines",
            &syntax_findings(dir, &out.stdout)?,
            &out.stdout,
        )?;
    }
    Ok(())
}

fn replay_perft(data: &[u8], _dir: &tempfile::TempDir) -> Result<(), Failure> {
    let (&select, rest) = data.split_first().ok_or("no selector byte")?;
    let text = std::str::from_utf8(rest).map_err(|e| e.to_string())?;
    let chosen = fuzz_args::perft(select, text);
    let (fen, moves, depth, chess960) = (chosen.fen, chosen.moves, chosen.depth, chosen.chess960);
    let args: Vec<&str> = chosen.args.iter().map(String::as_str).collect();
    let pos = parse_position(fen, chess960)
        .ok()
        .and_then(|pos| match moves {
            Some(moves) => play_uci(pos, moves).ok(),
            None => Some(pos),
        });
    let Some(pos) = pos else {
        // A FEN or move list perft refuses: exit 2, never a count.
        return run_clean(&args, &[2]).map(drop);
    };
    let out = run_clean(&args, &[0])?;
    let stdout = util::stdout(&out);
    let total: Option<u64> = stdout.lines().last().and_then(|l| l.parse().ok());
    let expected = shakmaty::perft(&pos, depth);
    if total != Some(expected) {
        return Err(format!(
            "perft wrote {stdout:?}, shakmaty counts {expected}"
        ));
    }
    if chosen.divide {
        let sum: u64 = stdout
            .lines()
            .filter_map(|line| line.split_once(": "))
            .filter_map(|(_, n)| n.parse::<u64>().ok())
            .sum();
        if Some(sum) != total {
            return Err(format!("divide lines do not add up: {stdout:?}"));
        }
    }
    Ok(())
}

/// Replays one input of `target`.
fn replay(target: &str, input: &Path) -> Result<(), Failure> {
    let data = fs::read(input).unwrap_or_else(|e| panic!("cannot read {}: {e}", input.display()));
    let dir = tempfile::tempdir().expect("a temporary directory");
    match target {
        "validate" => replay_validate(&data, &dir),
        "annotate_outcome" => replay_annotate_outcome(&data, &dir),
        "convert_pgn" => replay_convert_pgn(&data, &dir),
        "lines" => replay_lines(&data, &dir),
        "perft" => replay_perft(&data, &dir),
        _ => unreachable!("checked against TARGETS"),
    }
}

/// Every input of `fixtures/fuzz/` replays as its target says: those of
/// `fixtures/fuzz/<target>/` pass every check, those of
/// `fixtures/fuzz/pending/<target>/` still fail one (when one passes, its
/// bug is fixed: move it up). Fails when there is no input at all, or a
/// directory that is not a target's.
#[test]
fn fuzz_findings_replay() {
    let root = util::fixture("fuzz");
    for base in [root.clone(), root.join("pending")] {
        let Ok(entries) = fs::read_dir(&base) else {
            assert!(base != root, "fixtures/fuzz/ is missing");
            continue; // nothing pending
        };
        for entry in entries {
            let path = entry.expect("directory entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                !path.is_dir()
                    || TARGETS.contains(&name.as_str())
                    || (base == root && name == "pending"),
                "{} is not the directory of a fuzz target",
                path.display()
            );
        }
    }

    let mut replayed = 0;
    let mut failures = Vec::new();
    for target in TARGETS {
        for input in files(&root.join(target)) {
            replayed += 1;
            if let Err(failure) = replay(target, &input) {
                failures.push(format!("{}: {failure}", input.display()));
            }
        }
        for input in files(&root.join("pending").join(target)) {
            replayed += 1;
            if replay(target, &input).is_ok() {
                failures.push(format!(
                    "{}: passes now; move it to fixtures/fuzz/{target}/",
                    input.display()
                ));
            }
        }
    }
    assert!(replayed > 0, "fixtures/fuzz/ holds no input to replay");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
