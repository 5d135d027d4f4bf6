//! The documentation against the binary: every `console` block of the
//! README and of every page of `docs/` runs and prints what it shows, every
//! relative link leads somewhere, and `docs/codes.md` is the list of
//! finding codes `validate --help` prints.
//!
//! A console block is a sequence of commands, each on a line starting with
//! `$ ` (a line ending in `\` continues on the next), each followed by its
//! output up to the next `$ ` line or the end of the block. A block runs in
//! a scratch directory of its own holding `fixtures/` (a link to the
//! repository's), so the files its commands write go there; each command
//! runs with `sh -c`, with the `pgnkit` under test first on `PATH`, its
//! standard error sent where its standard output goes: the output shown is
//! what a terminal shows, standard error in place (pgnkit writes its
//! summary there after its output), and nothing is left out but what the
//! rules below say.
//!
//! - Timings and throughputs (`0.00 s`, `665.5 Mnodes/s`) match any value.
//! - A line `...` stands for any number of lines.
//! - `$?` is the status of the block's previous command, as in a shell.
//!
//! `sh` blocks are not run: they are recipes for files the repository does
//! not have (`big.pgn`, a cluster).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root (where the README, `docs/` and `fixtures/` are).
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

/// One command of a console block and the output the page shows.
#[derive(Debug)]
struct Step {
    /// 1-based line of the `$ ` line in its page.
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The steps of every ```console block of `page` (named `name`), at the
/// left margin or indented (in a list item): the fence's indent is cut
/// from each line of the block.
fn console_steps(name: &str, page: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut block: Option<Vec<Step>> = None;
    let mut indent = 0;
    let mut continued = false;
    for (i, line) in page.lines().enumerate() {
        let text = match &block {
            None => line.trim_start(),
            Some(_) => line.get(indent..).unwrap_or(line.trim_start()),
        };
        match (&mut block, text) {
            (None, "```console") => {
                indent = line.len() - text.len();
                block = Some(Vec::new());
            }
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
                    let step = steps.last_mut().unwrap_or_else(|| {
                        panic!("{name}:{}: a console block starts with `$ `", i + 1)
                    });
                    step.expected.push(text.to_owned());
                }
                continued = text.starts_with("$ ") && text.ends_with('\\')
                    || continued && text.ends_with('\\');
            }
        }
    }
    assert!(block.is_none(), "{name} ends inside a console block");
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

/// The pages of the documentation, as paths relative to the root: the
/// README, then every `.md` file under `docs/`, sorted, so that a new page
/// is checked without being named here.
fn pages() -> Vec<String> {
    let mut pages = Vec::new();
    let mut dirs = vec![root().join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let relative = path.strip_prefix(root()).unwrap();
                pages.push(relative.to_str().unwrap().to_owned());
            }
        }
    }
    pages.sort();
    pages.insert(0, "README.md".to_owned());
    pages
}

fn read(page: &str) -> String {
    std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// A scratch directory holding `fixtures/`, a link to the repository's.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("fixtures"), dir.path().join("fixtures")).unwrap();
    dir
}

/// Every console block of the README and of `docs/` prints what it shows.
#[test]
fn every_console_block_runs() {
    let mut failures = Vec::new();
    let mut blocks_run = 0;
    for page in pages() {
        let blocks = console_steps(&page, &read(&page));
        if page == "README.md" {
            assert!(!blocks.is_empty(), "the README has console blocks");
        }
        for steps in blocks {
            blocks_run += 1;
            let dir = scratch();
            let mut status = 0;
            for step in steps {
                let out = sh(&step.command, dir.path(), status);
                status = out.status.code().unwrap_or(-1);
                let text = String::from_utf8_lossy(&out.stdout);
                let actual: Vec<String> = text.lines().map(mask).collect();
                let expected: Vec<String> = step.expected.iter().map(|l| mask(l)).collect();
                if !matches(&expected, &actual) {
                    failures.push(format!(
                        "{page}:{}: $ {}\n--- the page shows\n{}\n--- it prints\n{}",
                        step.line,
                        step.command,
                        step.expected.join("\n"),
                        text.trim_end_matches('\n')
                    ));
                }
            }
        }
    }
    assert!(blocks_run > 10, "{blocks_run} console blocks");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README stays a page a newcomer reads in five minutes: what is
/// longer belongs in `docs/`.
#[test]
fn readme_is_short_and_links_every_page() {
    let readme = read("README.md");
    assert!(
        readme.len() < 15 * 1024,
        "README.md is {} bytes: move detail to a page of docs/",
        readme.len()
    );
    for page in pages().iter().skip(1) {
        let link = format!("]({page})");
        assert!(readme.contains(&link), "README.md does not link {page}");
    }
}

/// The anchor GitHub gives a heading: lowercase, punctuation dropped
/// (hyphens and underscores kept), spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of `text` outside fenced code blocks, with their 1-based
/// numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push((i + 1, line));
        }
    }
    lines
}

/// The anchors of the headings of `text` (a repeated heading's get `-1`,
/// `-2`, … as on GitHub).
fn anchors(text: &str) -> Vec<String> {
    let mut anchors: Vec<String> = Vec::new();
    for (_, line) in prose(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let base = slug(heading.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while anchors.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        anchors.push(anchor);
    }
    anchors
}

/// The lines of `text` outside fenced code blocks, with their 1-based
/// numbers, each with its inline code blanked out (a code span may go on
/// over a line end, never over a blank line).
fn prose_without_code(text: &str) -> Vec<(usize, String)> {
    let mut in_code = false;
    prose(text)
        .into_iter()
        .map(|(number, line)| {
            if line.trim().is_empty() {
                in_code = false;
            }
            let blanked = line
                .chars()
                .map(|c| {
                    if c == '`' {
                        in_code = !in_code;
                        ' '
                    } else if in_code {
                        ' '
                    } else {
                        c
                    }
                })
                .collect();
            (number, blanked)
        })
        .collect()
}

/// The targets of the Markdown links of `line`.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        targets.push(after[..end].to_owned());
        rest = &after[end..];
    }
    targets
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(slug(" A tour"), "a-tour");
    assert_eq!(slug(" The arbiter's page"), "the-arbiters-page");
    assert_eq!(
        slug(" Shards: --byte-range, --stats and merge"),
        "shards---byte-range---stats-and-merge"
    );
    assert_eq!(
        slug(" Typed records: Parquet, Arrow, DuckDB and polars"),
        "typed-records-parquet-arrow-duckdb-and-polars"
    );
    assert_eq!(slug(" `finding`"), "finding");
    let page = "see [a](b.md#c) and `[x](y)` and `a\n[z](w)` ![i](p.png) `\n\n[q](r.md)";
    let targets: Vec<String> = prose_without_code(page)
        .iter()
        .flat_map(|(_, line)| link_targets(line))
        .collect();
    assert_eq!(targets, ["b.md#c", "p.png", "r.md"]);
}

/// Every relative link of the README and of `docs/` leads to a file of the
/// repository, and every `#anchor` to a heading of its page.
#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = read(&page);
        let dir = root().join(&page).parent().unwrap().to_owned();
        for (line, content) in prose_without_code(&text) {
            for target in link_targets(&content) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = match target.split_once('#') {
                    Some((file, anchor)) => (file, Some(anchor)),
                    None => (target.as_str(), None),
                };
                let path = if file.is_empty() {
                    root().join(&page)
                } else {
                    dir.join(file)
                };
                if !path.exists() {
                    broken.push(format!("{page}:{line}: {target}: no such file"));
                    continue;
                }
                if let Some(anchor) = anchor {
                    let target_text = std::fs::read_to_string(&path).unwrap_or_default();
                    if !anchors(&target_text).iter().any(|a| a == anchor) {
                        broken.push(format!("{page}:{line}: {target}: no such heading"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

const CODES_MARKER: &str =
    "<!-- generated from FINDING_CODES in src/cli.rs: do not edit below -->\n";

/// The table of `FINDING_CODES` (`code  severity  text`, continuation
/// lines indented), as Markdown.
fn codes_markdown() -> String {
    let mut rows: Vec<(&str, &str, String)> = Vec::new();
    for line in pgnkit::cli::FINDING_CODES.lines() {
        if line.starts_with(' ') {
            let what = &mut rows.last_mut().expect("a code line first").2;
            what.push(' ');
            what.push_str(line.trim());
            continue;
        }
        let code = line.split_whitespace().next().unwrap();
        let rest = line[code.len()..].trim_start();
        let severity = rest.split_whitespace().next().unwrap();
        let what = rest[severity.len()..].trim().to_owned();
        rows.push((code, severity, what));
    }
    let mut out = String::from("| code | severity | what |\n|---|---|---|\n");
    for (code, severity, what) in rows {
        let what = what.replace('|', "\\|");
        out.push_str(&format!("| `{code}` | {severity} | {what} |\n"));
    }
    out
}

/// `docs/codes.md` ends with the codes `validate --help` lists, which are
/// every code the rules give, in order, each with its severity.
#[test]
fn docs_codes_md_is_finding_codes() {
    use pgnkit::rules::finding::Code;
    let listed: Vec<(&str, &str)> = pgnkit::cli::FINDING_CODES
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| {
            let mut words = l.split_whitespace();
            (words.next().unwrap(), words.next().unwrap())
        })
        .collect();
    let codes: Vec<(&str, &str)> = Code::ALL
        .iter()
        .map(|c| (c.as_str(), c.severity().as_str()))
        .collect();
    assert_eq!(listed, codes, "FINDING_CODES (src/cli.rs) and Code::ALL");

    let path = root().join("docs/codes.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let at = doc
        .find(CODES_MARKER)
        .expect("docs/codes.md has the generated marker")
        + CODES_MARKER.len();
    let expected = format!("{}\n{}", &doc[..at], codes_markdown());
    let expected = expected.trim_end().to_owned() + "\n";
    if std::env::var_os("PGNKIT_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    assert!(
        doc == expected,
        "docs/codes.md differs from FINDING_CODES: rerun with PGNKIT_UPDATE_DOCS=1"
    );
}
