//! `pgnkit annotate-outcome -j1 -q` on the input as a PGN file, with the
//! format, the rules profile and `--fix-results` chosen by the input's
//! length: replay, the end tracker, dead-position and helpmate search, and
//! the three writers. Oracle: no panic, no error (exit 2), and with
//! `--format pgn` no more `syntax` findings in what it wrote than in what
//! it read (it writes games back whole, damage included, and must add none).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnkit_fuzz::{input_file, run, syntax_findings};

fuzz_target!(|data: &[u8]| {
    let file = input_file("annotate-in", data);
    let path = file.path();
    let n = data.len();
    let mut args = pgnkit_fuzz::args::annotate_outcome(n);
    let format = args[4];
    args.push(path);
    let out = run(&args);
    out.completed("annotate-outcome");
    if format == "pgn" {
        let written = syntax_findings("annotate-out", &out.stdout);
        let read = syntax_findings("annotate-in", data);
        assert!(
            written.len() <= read.len(),
            "annotate-outcome --format pgn wrote PGN with more syntax errors than it read:\n{}\n--- input ---\n{}\n--- output ---\n{}",
            written.join("\n"),
            String::from_utf8_lossy(data),
            String::from_utf8_lossy(&out.stdout)
        );
    }
});
