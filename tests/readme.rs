//! Every `console` block of the README runs, and prints what it shows.
//!
//! A block is a sequence of commands, each on a line starting with `$ `
//! (a line ending in `\` continues on the next), each followed by its
//! output up to the next `$ ` line or the end of the block. A command runs
//! with `sh -c` from the repository root, with the `pgnkit` under test
//! first on `PATH`, its standard error sent where its standard output goes:
//! the output shown is what a terminal shows, standard error in place
//! (pgnkit writes its summary there after its output), and nothing is
//! left out but what the rules below say.
//!
//! - Timings and throughputs (`0.00 s`, `665.5 Mnodes/s`) match any value.
//! - A line `...` stands for any number of lines.
//! - `$?` is the status of the block's previous command, as in a shell.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root (where the README and `fixtures/` are).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `line` with `sh -c` in `dir`, the `pgnkit` under test first on
/// `PATH`, `$?` set to `status` and standard error merged into standard
/// output.
pub fn sh(line: &str, dir: &Path, status: i32) -> Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_pgnkit"));
    let mut path = bin.parent().unwrap().as_os_str().to_owned();
    if let Some(old) = std::env::var_os("PATH") {
        path.push(":");
        path.push(old);
    }
    Command::new("sh")
        .arg("-c")
        .arg(format!("(exit {status}); {{\n{line}\n}} 2>&1"))
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// One command of a console block and the output the README shows.
#[derive(Debug)]
struct Step {
    /// 1-based README line of the `$ ` line.
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The steps of every ```console block of `readme`.
fn console_steps(readme: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut block: Option<Vec<Step>> = None;
    let mut continued = false;
    for (i, text) in readme.lines().enumerate() {
        match (&mut block, text) {
            (None, "```console") => block = Some(Vec::new()),
            (None, _) => {}
            (Some(_), "```") => blocks.push(block.take().unwrap()),
            (Some(steps), _) => {
                if continued {
                    let step = steps.last_mut().unwrap();
                    step.command.push('\n');
                    step.command.push_str(text);
                } else if let Some(command) = text.strip_prefix("$ ") {
                    steps.push(Step {
                        line: i + 1,
                        command: command.to_owned(),
                        expected: Vec::new(),
                    });
                } else {
                    let step = steps.last_mut().expect("a console block starts with `$ `");
                    step.expected.push(text.to_owned());
                }
                continued = text.starts_with("$ ") && text.ends_with('\\')
                    || continued && text.ends_with('\\');
            }
        }
    }
    assert!(block.is_none(), "README ends inside a console block");
    blocks
}

/// `line` with every timing and throughput replaced by `[T]`: a decimal
/// number followed by ` s` or ` Mnodes/s`.
fn mask(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let len = rest[start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len() - start);
        let number = &rest[start..start + len];
        let after = &rest[start + len..];
        let unit = [" s", " Mnodes/s"].into_iter().find(|unit| {
            after
                .strip_prefix(unit)
                .is_some_and(|tail| !tail.starts_with(|c: char| c.is_alphanumeric() || c == '/'))
        });
        out.push_str(&rest[..start]);
        match unit {
            Some(unit)
                if number.contains('.')
                    && !rest[..start].ends_with(|c: char| c.is_alphanumeric() || c == '.') =>
            {
                out.push_str("[T]");
                rest = &after[unit.len()..];
            }
            _ => {
                out.push_str(number);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether `actual` matches `expected`, where an expected `...` line
/// matches any run of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| a == first && matches(rest, more)),
    }
}

#[test]
fn masks_timings_only() {
    assert_eq!(
        mask("13 games, 2 with errors, 0 with warnings (0.00 s)"),
        "13 games, 2 with errors, 0 with warnings ([T])"
    );
    assert_eq!(
        mask("perft: depth 6: 119060324 nodes in 0.179 s (665.5 Mnodes/s)"),
        "perft: depth 6: 119060324 nodes in [T] ([T])"
    );
    assert_eq!(
        mask("fen 8/8/8 w - - 0 1 id \"1:0\"; 2.5 sec"),
        "fen 8/8/8 w - - 0 1 id \"1:0\"; 2.5 sec"
    );
    assert_eq!(mask("e1d1: 47"), "e1d1: 47");
}

#[test]
fn ellipsis_matches_any_lines() {
    let v = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(&v(&["a", "...", "z"]), &v(&["a", "b", "c", "z"])));
    assert!(matches(&v(&["a", "...", "z"]), &v(&["a", "z"])));
    assert!(!matches(&v(&["a", "...", "z"]), &v(&["a", "b"])));
    assert!(!matches(&v(&["a"]), &v(&["a", ""])));
}

/// Every console block of the README prints what it shows.
#[test]
fn readme_console_blocks_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let blocks = console_steps(&readme);
    assert!(!blocks.is_empty(), "the README has console blocks");
    let mut failures = Vec::new();
    for steps in blocks {
        let mut status = 0;
        for step in steps {
            let out = sh(&step.command, root(), status);
            status = out.status.code().unwrap_or(-1);
            let text = String::from_utf8_lossy(&out.stdout);
            let actual: Vec<String> = text.lines().map(mask).collect();
            let expected: Vec<String> = step.expected.iter().map(|l| mask(l)).collect();
            if !matches(&expected, &actual) {
                failures.push(format!(
                    "README.md:{}: $ {}\n--- README shows\n{}\n--- it prints\n{}",
                    step.line,
                    step.command,
                    step.expected.join("\n"),
                    text.trim_end_matches('\n')
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
