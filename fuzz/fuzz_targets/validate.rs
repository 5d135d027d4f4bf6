//! `pgnkit validate -j1 -q -f FORMAT FILE` on the input as a PGN file: the
//! scanner, the chunker, replay and every check, with the report format
//! chosen by the input's length. Oracle: no panic and no error (exit 2) on
//! a readable file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnkit_fuzz::{input_file, run};

fuzz_target!(|data: &[u8]| {
    let file = input_file("validate", data);
    let format = ["text", "csv", "jsonl"][data.len() % 3];
    let path = file.path();
    run(&["validate", "-j1", "-q", "-f", format, path]).completed("validate");
});
