//! `pgnkit merge`: the outputs of `--byte-range` shards (CSV or JSON Lines,
//! each with the `--stats` it wrote) into the output one run over the
//! whole file gives.
//!
//! The contract, per file (shards ordered by range start): a shard is
//! exact when it began where its predecessor's parse ended (`first_byte`
//! of one equals `end_byte` of the one before). Then its `game` and `line`
//! values are shifted by the games and lines of the shards before it. A
//! shard whose region its predecessor read to the end is skipped; one that
//! began inside a game its predecessor owns is run again from where that
//! game ended, with the arguments its statistics recorded. `offset` is
//! file-wide already and is kept.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};
use serde_json::Value;

use crate::cli::{MergeArgs, MergeFormat};
use crate::exit::ExitStatus;
use crate::output::write_csv_record;

/// One shard: its output, and what its statistics say.
#[derive(Debug, Clone)]
struct Shard {
    output: PathBuf,
    file: String,
    start: u64,
    end: Option<u64>,
    first_byte: u64,
    limit: Option<u64>,
    end_byte: u64,
    games: u64,
    lines: u64,
    args: Vec<String>,
    /// The directory the shard ran in (its arguments may be relative).
    cwd: Option<PathBuf>,
}

/// The statistics file of a shard output.
fn stats_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".stats.json");
    PathBuf::from(name)
}

/// Reads the statistics of the shard written to `output`.
fn read_shard(output: &Path) -> anyhow::Result<Shard> {
    let path = stats_path(output);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the statistics {}", path.display()))?;
    let v: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not pgnkit --stats JSON", path.display()))?;
    let bad = || format!("{} is not the --stats of one shard", path.display());
    let inputs = v["inputs"].as_array().with_context(bad)?;
    let [input] = inputs.as_slice() else {
        bail!(
            "{}: a shard must have read exactly one input",
            path.display()
        );
    };
    let num = |key: &str| input[key].as_u64().with_context(bad);
    let args = v["args"]
        .as_array()
        .with_context(bad)?
        .iter()
        .map(|a| a.as_str().map(str::to_owned).with_context(bad))
        .collect::<anyhow::Result<Vec<String>>>()?;
    Ok(Shard {
        output: output.to_owned(),
        file: input["file"].as_str().with_context(bad)?.to_owned(),
        start: num("start")?,
        end: input["end"].as_u64(),
        first_byte: num("first_byte")?,
        limit: input["limit"].as_u64(),
        end_byte: num("end_byte")?,
        games: num("games")?,
        lines: num("lines")?,
        args,
        cwd: v["cwd"].as_str().map(PathBuf::from),
    })
}

/// Runs `merge`.
///
/// # Errors
///
/// When a shard cannot be read or rerun, shards do not tile their file, or
/// the output cannot be written.
pub fn run(args: &MergeArgs, stdout: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let mut shards = args
        .shards
        .iter()
        .map(|p| read_shard(p))
        .collect::<anyhow::Result<Vec<Shard>>>()?;
    // Files in the order first named, shards of a file by range start.
    let mut files: Vec<String> = Vec::new();
    for s in &shards {
        if !files.contains(&s.file) {
            files.push(s.file.clone());
        }
    }
    shards.sort_by_key(|s| {
        let file = files.iter().position(|f| *f == s.file);
        (file, s.start)
    });
    let dir = tempfile::tempdir().context("cannot make a directory for reruns")?;
    let mut out: Box<dyn Write + '_> = match &args.output {
        Some(p) if p != Path::new("-") => Box::new(std::io::BufWriter::new(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        _ => Box::new(stdout),
    };
    let mut writer = Merged {
        format: args.format,
        header: None,
        write_header: !args.no_header,
    };
    let mut owned_until = 0;
    let (mut games_before, mut lines_before) = (0, 0);
    let mut file: Option<&str> = None;
    for (i, shard) in shards.iter().enumerate() {
        if file != Some(shard.file.as_str()) {
            file = Some(&shard.file);
            (owned_until, games_before, lines_before) = (0, 0, 0);
        }
        if shard.limit.is_some_and(|l| l <= owned_until) {
            continue;
        }
        let rerun;
        let shard = if shard.first_byte == owned_until {
            shard
        } else if shard.first_byte < owned_until {
            rerun = run_again(shard, owned_until, &dir.path().join(i.to_string()))?;
            &rerun
        } else {
            bail!(
                "{}: no shard holds bytes {owned_until}..{} of {} (the ranges must tile the file)",
                shard.output.display(),
                shard.first_byte,
                shard.file
            );
        };
        writer
            .copy(&mut out, shard, games_before, lines_before)
            .with_context(|| format!("cannot merge {}", shard.output.display()))?;
        games_before += shard.games;
        lines_before += shard.lines;
        owned_until = shard.end_byte;
    }
    out.flush().context("failed to write the merged output")?;
    Ok(ExitStatus::Ok)
}

/// Runs `shard` again from `from` (where its predecessor's last game
/// ended), writing into `base` + `.out`, and returns the new shard.
fn run_again(shard: &Shard, from: u64, base: &Path) -> anyhow::Result<Shard> {
    let output = base.with_extension("out");
    let stats = stats_path(&output);
    let range = match shard.end {
        Some(end) => format!("{from}..{}", end.max(from)),
        None => format!("{from}.."),
    };
    let mut args = Vec::new();
    let mut given = shard.args.iter();
    while let Some(arg) = given.next() {
        match arg.as_str() {
            "--byte-range" | "--stats" | "-o" | "--output" => {
                given.next();
            }
            "-q" | "--quiet" => {}
            a if a.starts_with("--byte-range=")
                || a.starts_with("--stats=")
                || a.starts_with("--output=")
                || (a.starts_with("-o") && a.len() > 2) => {}
            _ => args.push(arg.clone()),
        }
    }
    // Subcommand first, then what the merge needs, then the rest.
    let (subcommand, rest) = args
        .split_first()
        .context("the statistics name no subcommand")?;
    let exe = std::env::current_exe().context("cannot find the pgnkit binary to rerun a shard")?;
    let mut command = Command::new(exe);
    if let Some(cwd) = shard.cwd.as_deref().filter(|d| d.is_dir()) {
        command.current_dir(cwd);
    }
    let status = command
        .arg(subcommand)
        .args(["--byte-range", &range, "-q", "--stats"])
        .arg(&stats)
        .arg("-o")
        .arg(&output)
        .args(rest)
        .stdin(Stdio::null())
        .status()
        .context("cannot rerun a shard")?;
    if !matches!(status.code(), Some(0 | 1)) {
        bail!(
            "rerunning {} from byte {from} failed ({status})",
            shard.output.display()
        );
    }
    let again = read_shard(&output)?;
    if again.first_byte != from {
        bail!(
            "rerunning {} from byte {from} began at byte {} instead",
            shard.output.display(),
            again.first_byte
        );
    }
    Ok(again)
}

/// The merged output being written.
struct Merged {
    format: MergeFormat,
    /// The CSV header of the first shard; every other must equal it.
    header: Option<csv::StringRecord>,
    write_header: bool,
}

impl Merged {
    /// Copies the records of `shard`, with `game` and `line` shifted.
    fn copy(
        &mut self,
        out: &mut dyn Write,
        shard: &Shard,
        games: u64,
        lines: u64,
    ) -> anyhow::Result<()> {
        let input = File::open(&shard.output)
            .with_context(|| format!("cannot open {}", shard.output.display()))?;
        match self.format {
            MergeFormat::Csv => self.copy_csv(out, input, games, lines),
            MergeFormat::Jsonl => copy_jsonl(out, input, games, lines),
        }
    }

    fn copy_csv(
        &mut self,
        out: &mut dyn Write,
        input: File,
        games: u64,
        lines: u64,
    ) -> anyhow::Result<()> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(BufReader::with_capacity(1 << 16, input));
        let header = reader.headers()?.clone();
        if header.is_empty() {
            // An empty shard output (no findings, or a shard that read
            // nothing) may have no header at all.
            return Ok(());
        }
        match &self.header {
            Some(first) if *first != header => bail!(
                "its header differs from the first shard's (shards must be run with the same \
                 flags; convert needs the same --tags)"
            ),
            Some(_) => {}
            None => {
                if self.write_header {
                    write_csv_record(out, header.iter())?;
                }
                self.header = Some(header.clone());
            }
        }
        let game = header.iter().position(|h| h == "game");
        let line = header.iter().position(|h| h == "line");
        let mut record = csv::StringRecord::new();
        let mut fields: Vec<String> = Vec::new();
        while reader.read_record(&mut record)? {
            fields.clear();
            fields.extend(record.iter().map(str::to_owned));
            for (column, by) in [(game, games), (line, lines)] {
                if let Some(c) = column {
                    shift(&mut fields[c], by)?;
                }
            }
            write_csv_record(out, &fields)?;
        }
        Ok(())
    }
}

/// Adds `by` to the number in `field`; an empty field stays empty.
fn shift(field: &mut String, by: u64) -> anyhow::Result<()> {
    if !field.is_empty() {
        let n: u64 = field
            .parse()
            .with_context(|| format!("`{field}` is not a number"))?;
        *field = (n + by).to_string();
    }
    Ok(())
}

/// Copies JSON Lines records, shifting the top-level `game` and `line`
/// numbers: pgnkit writes them before any nested object, so the first
/// `"game":` and `"line":` keys of a record are the top-level ones.
fn copy_jsonl(out: &mut dyn Write, input: File, games: u64, lines: u64) -> anyhow::Result<()> {
    let reader = BufReader::with_capacity(1 << 16, input);
    for record in reader.split(b'\n') {
        let mut record = record?;
        for (key, by) in [(&b"\"game\":"[..], games), (b"\"line\":", lines)] {
            record = shift_json_number(&record, key, by)?;
        }
        out.write_all(&record)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `record` with the number after the first `key` increased by `by` (a
/// `null` stays `null`).
fn shift_json_number(record: &[u8], key: &[u8], by: u64) -> anyhow::Result<Vec<u8>> {
    let Some(at) = memchr::memmem::find(record, key) else {
        return Ok(record.to_vec());
    };
    let start = at + key.len();
    let digits = record[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return Ok(record.to_vec());
    }
    let text = std::str::from_utf8(&record[start..start + digits]).expect("ASCII digits");
    let n: u64 = text.parse().context("a number too large")?;
    let mut shifted = record[..start].to_vec();
    shifted.extend_from_slice((n + by).to_string().as_bytes());
    shifted.extend_from_slice(&record[start + digits..]);
    Ok(shifted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers_shift_and_nulls_stay() {
        let r = br#"{"file":"a","game":3,"offset":9,"line":12,"x":{"game":1}}"#;
        let r = shift_json_number(r, b"\"game\":", 10).unwrap();
        let r = shift_json_number(&r, b"\"line\":", 100).unwrap();
        assert_eq!(
            r,
            br#"{"file":"a","game":13,"offset":9,"line":112,"x":{"game":1}}"#
        );
        let n = br#"{"game":null,"line":5}"#;
        assert_eq!(shift_json_number(n, b"\"game\":", 10).unwrap(), n.to_vec());
    }

    #[test]
    fn csv_fields_shift() {
        let mut f = "41".to_owned();
        shift(&mut f, 1).unwrap();
        assert_eq!(f, "42");
        let mut e = String::new();
        shift(&mut e, 5).unwrap();
        assert!(e.is_empty());
        assert!(shift(&mut "x".to_owned(), 1).is_err());
    }
}
