//! Hostile file names and comment commands (issue 43, defects 2, 4 and 10).
//!
//! The input's first byte gives the length of a file name (0..64), taken
//! from the bytes after it: any byte a Unix name may hold (`/` becomes `_`,
//! NUL becomes ESC), so names with escapes, bells, newlines, C1 controls
//! and invalid UTF-8 all occur. The rest is the file's text; when the input
//! is of odd length it is wrapped as the comment of a one-move game
//! (`1. e4 { … } e5 *`), so that `[%clk …]`, `[%eval …]`, `[%emt …]` and
//! their malformed kin reach the command reader whatever the fuzzer writes.
//!
//! The file is put in a directory of this process that `validate` walks;
//! `annotate-outcome` and `convert -f text`-like outputs read it by path.
//! Runs use the library API with collected diagnostics, so both outputs
//! for people can be checked. Oracle: no panic, no error (exit 2) on a
//! readable file, and neither the text reports nor any diagnostic line
//! holds a control character other than a newline or a tab (or is not
//! UTF-8): nothing from a name or a comment can move the cursor, retitle
//! the terminal or forge a line.
#![no_main]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use libfuzzer_sys::fuzz_target;
use pgnkit::api::{
    self, AnnotateOutcomeOptions, Collected, Format, Input, RecordSink, RunOptions,
    ValidateOptions,
};
use pgnkit_fuzz::scratch;

/// Panics when `text` could reach a terminal as something other than text.
fn printable(what: &str, text: &[u8]) {
    let text = std::str::from_utf8(text).unwrap_or_else(|err| panic!("{what}: not UTF-8: {err}"));
    if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\n' && c != '\t') {
        panic!("{what}: a raw control character {c:?} in {text:?}");
    }
}

fn run_options() -> RunOptions {
    RunOptions {
        threads: Some(1),
        ..RunOptions::default()
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 64).min(rest.len());
    let (name, body) = rest.split_at(n);
    let mut name: Vec<u8> = name
        .iter()
        .map(|&b| match b {
            b'/' => b'_',
            0 => 0x1b,
            b => b,
        })
        .collect();
    if name.is_empty() || name == b"." || name == b".." {
        name.push(b'x');
        name.push(0x07);
    }
    let text: Vec<u8> = if data.len() % 2 == 1 {
        let mut pgn = b"[Event \"x\"]\n[Date \"2000.01.01\"]\n\n1. e4 { ".to_vec();
        pgn.extend_from_slice(body);
        pgn.extend_from_slice(b" } e5 2. Nf3 { [%clk 0:01:00] } *\n");
        pgn
    } else {
        body.to_vec()
    };

    let dir = scratch("names");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make the scratch directory");
    let file = dir.join(OsStr::from_bytes(&name));
    std::fs::write(&file, &text).expect("write the fuzz input");

    let diagnostics = Collected::default();
    let mut out = Vec::new();
    let options = ValidateOptions {
        run: run_options(),
        format: Format::Text,
        ..ValidateOptions::default()
    };
    let summary = api::validate(
        &options,
        vec![Input::path(dir.clone())],
        RecordSink::Writer(&mut out),
        &diagnostics,
    );
    if let Err(err) = summary {
        panic!("validate: error on a readable input: {err:#}");
    }
    printable("validate -f text", &out);

    let mut out = Vec::new();
    let options = AnnotateOutcomeOptions {
        run: run_options(),
        format: Format::Text,
        ..AnnotateOutcomeOptions::default()
    };
    let summary = api::annotate_outcome(
        &options,
        vec![Input::path(file.clone())],
        RecordSink::Writer(&mut out),
        &diagnostics,
    );
    if let Err(err) = summary {
        panic!("annotate-outcome: error on a readable input: {err:#}");
    }
    printable("annotate-outcome -f text", &out);

    for (level, line) in diagnostics.lines() {
        printable(&format!("a diagnostic ({level:?})"), line.as_bytes());
    }
    let _ = std::fs::remove_dir_all(&dir);
});
