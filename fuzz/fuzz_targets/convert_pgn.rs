//! `pgnkit convert --to pgn -j1 -q` on the input as a PGN file, with
//! `--keep-invalid`, `--no-comments`, `--no-variations` and `--no-nags`
//! chosen by the input's length. Oracles, convert's two guarantees for any
//! input: its output re-read by validate has no `syntax` finding, and
//! converting the output again (with `--keep-invalid` if the first
//! conversion had it, no other option) gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnkit_fuzz::{check_pgn_output, input_file, pgn_options, run};

fuzz_target!(|data: &[u8]| {
    let file = input_file("convert-in", data);
    let path = file.path();
    let flags = pgn_options(data.len());
    let mut args = vec!["convert", "--from", "pgn", "--to", "pgn", "-j1", "-q"];
    args.extend_from_slice(&flags);
    args.push(path);
    let out = run(&args);
    out.completed("convert --to pgn");
    check_pgn_output("convert-out", &out.stdout, &flags);
});
