//! `pgnkit merge` on mutated shards and statistics (issue 20). Once per
//! process, real shards are made of a small real corpus (TWIC games and a
//! game whose comment holds a blank line and `[Event`, so that one plan
//! needs a rerun) for validate CSV/JSONL, annotate-outcome CSV and convert
//! JSONL, with the output of one run over the whole file. Each input picks
//! a plan and a file of it (a shard or its statistics) and a list of edits
//! (set, insert or delete a byte, truncate). Oracle: no panic, and either
//! an error (exit 2) with the old `-o` file untouched, or exit 0 with the
//! output of one run.
//!
//! Reruns run the release binary `target/release/pgnkit` of the checkout
//! (build it first: `cargo build --release`).
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use pgnkit::cli::{Cli, Command};
use pgnkit::exit::ExitStatus;
use pgnkit_fuzz::{run, scratch};

const COMMENT_GAME: &[u8] = b"[Event \"Shard boundary\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
[Round \"?\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
1. e4 {a note\n\n[Event \"not a game\"]\n\n1. d4 d5 (1... Nf6) } e5 2. Qh5 Nc6 \
3. Bc4 Nf6 4. Qxf7# 1-0\n\n";

/// One set of shards and what one run gives.
struct Plan {
    merge_args: Vec<String>,
    files: Vec<PathBuf>,
    one: Vec<u8>,
}

struct Setup {
    dir: PathBuf,
    exe: PathBuf,
    plans: Vec<Plan>,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let exe = root.join("target/release/pgnkit");
        assert!(exe.is_file(), "build the release binary first: cargo build --release");
        let dir = scratch("merge");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let twic = std::fs::read(root.join("fixtures/pgn/twic1599_excerpt.pgn")).unwrap();
        let half = twic.len() / 2 + memchr_event(&twic[twic.len() / 2..]);
        let mut pgn = twic[..half].to_vec();
        let inside = pgn.len() + find(COMMENT_GAME, b"[Event \"not a game");
        pgn.extend_from_slice(COMMENT_GAME);
        pgn.extend_from_slice(&twic[half..]);
        let input = dir.join("games.pgn");
        std::fs::write(&input, &pgn).unwrap();
        let input = input.to_str().unwrap().to_owned();
        let len = pgn.len();
        let mut plans = Vec::new();
        for (k, (args, merge_args)) in [
            (&["validate", "-f", "csv"][..], &[][..]),
            (&["validate", "-f", "jsonl"], &["-f", "jsonl"]),
            (&["annotate-outcome", "-f", "csv", "--tags", "Round"], &[]),
            (&["convert", "--to", "jsonl"], &["-f", "jsonl"]),
            (&["validate", "-f", "csv", "--no-header"], &["--no-header"]),
        ]
        .into_iter()
        .enumerate()
        {
            let mut all: Vec<&str> = args.to_vec();
            all.extend(["-q", "-j1", &input]);
            let one = run(&all).stdout;
            for (p, cuts) in [vec![len / 3, len * 2 / 3], vec![inside - 3, inside + 3]]
                .into_iter()
                .enumerate()
            {
                let mut bounds = vec![String::new()];
                bounds.extend(cuts.iter().map(usize::to_string));
                bounds.push(String::new());
                let mut files = Vec::new();
                for (i, pair) in bounds.windows(2).enumerate() {
                    let out = dir.join(format!("s{k}-{p}-{i}"));
                    let stats = format!("{}.stats.json", out.display());
                    let range = format!("{}..{}", pair[0], pair[1]);
                    let mut all: Vec<&str> = args.to_vec();
                    let out_str = out.to_str().unwrap().to_owned();
                    all.extend([
                        "-q", "-j1", "--byte-range", &range, "--stats", &stats, "-o", &out_str, &input,
                    ]);
                    run(&all);
                    files.push(out);
                }
                plans.push(Plan {
                    merge_args: merge_args.iter().map(|s| (*s).to_owned()).collect(),
                    files,
                    one: one.clone(),
                });
            }
        }
        Setup { dir, exe, plans }
    })
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).unwrap()
}

/// Offset of the next `[Event` at a line start.
fn memchr_event(bytes: &[u8]) -> usize {
    find(bytes, b"\n[Event ") + 1
}

/// Applies the edits of `ops` (four bytes each) to `bytes`.
fn mutate(bytes: &mut Vec<u8>, ops: &[u8]) {
    for op in ops.chunks_exact(4) {
        let at = usize::from(u16::from_le_bytes([op[1], op[2]]));
        let value = op[3];
        match op[0] % 4 {
            0 if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes[i] = value;
            }
            1 => {
                let i = at % (bytes.len() + 1);
                bytes.insert(i, value);
            }
            2 if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes.remove(i);
            }
            3 => bytes.truncate(at % (bytes.len() + 1)),
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let setup = setup();
    let plan = &setup.plans[usize::from(data[0]) % setup.plans.len()];
    let which = usize::from(data[1]) % (2 * plan.files.len());
    let shard = &plan.files[which / 2];
    let victim = if which % 2 == 0 {
        shard.clone()
    } else {
        PathBuf::from(format!("{}.stats.json", shard.display()))
    };
    let original = std::fs::read(&victim).unwrap();
    let mut bytes = original.clone();
    mutate(&mut bytes, &data[2..]);
    std::fs::write(&victim, &bytes).unwrap();

    let target = setup.dir.join("merged");
    std::fs::write(&target, b"old").unwrap();
    let mut args = vec!["pgnkit".to_owned(), "merge".to_owned(), "-o".to_owned()];
    args.push(target.to_str().unwrap().to_owned());
    args.extend(plan.merge_args.iter().cloned());
    args.extend(plan.files.iter().map(|f| f.to_str().unwrap().to_owned()));
    let cli = Cli::try_parse_from(&args).unwrap();
    let Command::Merge(merge_args) = &cli.command else {
        unreachable!()
    };
    let status = pgnkit::cmd::merge::merge(merge_args, &mut Vec::new(), &setup.exe);
    let written = std::fs::read(&target).unwrap();
    std::fs::write(&victim, &original).unwrap();
    match status {
        Err(_) => assert_eq!(written, b"old", "a refused merge wrote its output"),
        Ok(ExitStatus::Ok) => assert!(
            written == plan.one,
            "a merge of mutated shards gave other output than one run"
        ),
        Ok(other) => panic!("merge of honest-looking shards ended {other:?}"),
    }
});
