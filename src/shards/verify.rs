//! A shard's statistics and output checked against each other, and shards
//! checked to come from one command with the same flags. Shards and their
//! statistics are another run's output, so nothing in them is trusted:
//! every check here is on values already read ([`super::read`] reads them).
//! Each refusal is a message naming what is wrong.

use std::path::Path;

use super::is_mergeable;
use crate::format::{Format, Subcommand};
use crate::output::stats::{Digest, OutputStats, RunStats};

/// Checks statistics read from a `--stats` file for a shard: exactly one
/// input, a mergeable command and format, a CSV shard's columns, numbers
/// that agree with each other, and counts that make its record count. (The
/// checksum was checked when they were parsed.)
///
/// # Errors
///
/// What is wrong, to follow the statistics file's name.
pub fn check_stats(stats: &RunStats) -> Result<(), String> {
    let [input] = stats.inputs.as_slice() else {
        return Err("a shard must have read exactly one input".to_owned());
    };
    if !is_mergeable(&stats.command) {
        return Err(format!(
            "it was written by `pgnkit {}`, whose output does not merge",
            stats.command
        ));
    }
    let merged = Format::from_name(&stats.format).is_some_and(|f| f.is_of(Subcommand::Merge));
    if !merged {
        return Err(format!(
            "its shard is {} output; merge reads CSV, JSON Lines, Parquet and Arrow",
            stats.format
        ));
    }
    if stats.format == "csv" && stats.columns.as_ref().is_none_or(Vec::is_empty) {
        return Err("a CSV shard's statistics name no columns".to_owned());
    }
    // (`first_byte` may lie before `start` only when the range starts past
    // the end of the file.)
    let consistent = input.end_byte >= input.first_byte
        && input.limit.is_none_or(|l| l >= input.first_byte)
        && input.end.is_none_or(|e| e >= input.start)
        && stats.games == input.games
        && input.first_offset.is_none_or(|o| o >= input.first_byte)
        && input.last_offset.is_none_or(|o| o < input.end_byte.max(1));
    if !consistent {
        return Err("its numbers contradict each other".to_owned());
    }
    let command = Subcommand::from_name(&stats.command);
    let recorded = match (command, Format::from_name(&stats.format)) {
        (Some(Subcommand::Validate), _) => Some(
            stats
                .findings
                .values()
                .try_fold(0u64, |a, &n| a.checked_add(n)),
        ),
        (Some(Subcommand::AnnotateOutcome), _) | (Some(Subcommand::Convert), Some(Format::Csv)) => {
            Some(Some(input.games))
        }
        _ => None,
    };
    // A run that selects writes a record for some of its games only.
    let selects = stats
        .options
        .iter()
        .any(|o| crate::rules::select::FLAGS.contains(&o.as_str()));
    match recorded {
        Some(None) => Err("its counts overflow".to_owned()),
        Some(Some(n)) if selects && command != Some(Subcommand::Validate) => {
            if stats.output.records > n {
                Err(format!(
                    "it says {} records were written, more than its {n} games",
                    stats.output.records
                ))
            } else {
                Ok(())
            }
        }
        Some(Some(n)) if n != stats.output.records => Err(format!(
            "it says {} records were written, but its counts make {n}",
            stats.output.records
        )),
        _ => Ok(()),
    }
}

/// Checks that shards (each named by its output, with its statistics) come
/// from one command with the same flags, and are in the format `want`
/// (`None`: the first shard's).
///
/// # Errors
///
/// What differs, naming the shards.
pub fn check_alike(want: Option<&str>, shards: &[(&Path, &RunStats)]) -> Result<(), String> {
    let Some(&(first_name, f)) = shards.first() else {
        return Ok(());
    };
    for &(name, s) in shards {
        match want {
            Some(want) if s.format != want => {
                return Err(format!(
                    "{}: it is a {} shard, and this merge reads {want} (give -f {})",
                    name.display(),
                    s.format,
                    s.format
                ));
            }
            None if s.format != f.format => {
                return Err(format!(
                    "{}: it is a {} shard, and {} a {} one: shards must be of one format",
                    name.display(),
                    s.format,
                    first_name.display(),
                    f.format
                ));
            }
            _ => {}
        }
        if (s.command.as_str(), &s.options, &s.columns)
            != (f.command.as_str(), &f.options, &f.columns)
        {
            let hint = if Subcommand::from_name(&s.command) == Some(Subcommand::Convert)
                && Format::from_name(&s.format) == Some(Format::Csv)
                && !s.options.iter().any(|o| o == "--tags")
            {
                " (convert CSV without --tags chooses its columns from each shard's first games: give --tags)"
            } else {
                ""
            };
            return Err(format!(
                "{} was written by `pgnkit {}` and {} by `pgnkit {}`: shards must come from one \
                 command with the same flags{hint}",
                first_name.display(),
                describe(f),
                name.display(),
                describe(s)
            ));
        }
    }
    Ok(())
}

/// A shard's command and output-affecting flags, as a rerun gives them.
pub fn describe(s: &RunStats) -> String {
    let mut text = format!("{} {} {}", s.command, super::FORMAT_FLAG, s.format);
    for option in &s.options {
        text.push(' ');
        text.push_str(option);
    }
    if let Some(columns) = &s.columns {
        text.push_str(&format!(" ({} columns)", columns.len()));
    }
    text
}

/// Checks a shard's bytes (their `digest`) against what its statistics
/// say it wrote.
///
/// # Errors
///
/// A message naming the shard `name`.
pub fn check_bytes(name: &Path, digest: &Digest, out: &OutputStats) -> Result<(), String> {
    // Name what differs: the size, else the digest of the same size.
    let differs = if digest.len() != out.bytes {
        format!("{} bytes, {} recorded", digest.len(), out.bytes)
    } else if digest.hex() != out.digest {
        format!(
            "its {} bytes have the digest {}, {} recorded",
            digest.len(),
            digest.hex(),
            out.digest.escape_debug()
        )
    } else {
        return Ok(());
    };
    Err(format!(
        "{}: it is not the output its statistics describe ({differs}): it was cut, edited or \
         replaced, or belongs to other statistics",
        name.display(),
    ))
}

/// Checks the records counted in a shard against what its statistics say.
///
/// # Errors
///
/// A message naming the shard `name`.
pub fn check_records(name: &Path, records: u64, out: &OutputStats) -> Result<(), String> {
    if records != out.records {
        return Err(format!(
            "{}: it holds {records} records and its statistics say {}",
            name.display(),
            out.records
        ));
    }
    Ok(())
}

/// Checks that a rerun of a shard from byte `from` kept its shape (the
/// command, flags and columns of `planned`) and began at `from`.
///
/// # Errors
///
/// A message naming the shard `name`.
pub fn check_rerun(
    name: &Path,
    from: u64,
    planned: &RunStats,
    again: &RunStats,
) -> Result<(), String> {
    let shape = |s: &RunStats| (s.command.clone(), s.options.clone(), s.columns.clone());
    if shape(again) != shape(planned) {
        return Err(format!(
            "rerunning {} from byte {from} gave output of another shape",
            name.display()
        ));
    }
    match again.inputs.first() {
        Some(input) if input.first_byte != from => Err(format!(
            "rerunning {} from byte {from} began at byte {} instead",
            name.display(),
            input.first_byte
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::output::stats::{InputStats, VERSION};
    use std::collections::BTreeMap;

    /// Statistics of a validate CSV shard of `file` that read
    /// `first_byte..end_byte` of the range `start..end`.
    pub(crate) fn shard_stats(input: InputStats, records: u64) -> RunStats {
        RunStats {
            version: VERSION,
            command: "validate".into(),
            format: "csv".into(),
            header: true,
            columns: Some(vec!["file".into(), "game".into()]),
            options: vec![],
            games: input.games,
            inputs: vec![input],
            failed: 0,
            findings: BTreeMap::from([("syntax".to_owned(), records)]),
            output: OutputStats {
                bytes: 0,
                records,
                digest: Digest::default().hex(),
            },
            args: vec![],
            cwd: None,
            checksum: None,
        }
    }

    pub(crate) fn input(
        first_byte: u64,
        limit: Option<u64>,
        end_byte: u64,
        games: u64,
    ) -> InputStats {
        InputStats {
            file: "f.pgn".into(),
            path: Some("/f.pgn".into()),
            path_bytes: Some(crate::output::stats::path_hex(Path::new("/f.pgn"))),
            size: Some(1000),
            mtime_ns: Some(7),
            start: first_byte,
            end: limit,
            first_byte,
            limit,
            end_byte,
            games,
            lines: games * 10,
            first_offset: None,
            last_offset: None,
            region_digest: None,
        }
    }

    #[test]
    fn statistics_that_contradict_themselves_are_refused() {
        let good = shard_stats(input(0, Some(100), 120, 3), 2);
        assert_eq!(check_stats(&good), Ok(()));
        let mut s = good.clone();
        s.inputs.push(s.inputs[0].clone());
        assert!(check_stats(&s).unwrap_err().contains("exactly one input"));
        let mut s = good.clone();
        s.command = "perft".into();
        assert!(check_stats(&s).unwrap_err().contains("does not merge"));
        let mut s = good.clone();
        s.format = "text".into();
        assert!(check_stats(&s).unwrap_err().contains("merge reads CSV"));
        let mut s = good.clone();
        s.columns = Some(vec![]);
        assert!(check_stats(&s).unwrap_err().contains("no columns"));
        let mut s = good.clone();
        s.inputs[0].first_byte = 130;
        assert!(check_stats(&s).unwrap_err().contains("contradict"));
        let mut s = good.clone();
        s.games += 1;
        assert!(check_stats(&s).unwrap_err().contains("contradict"));
        let mut s = good.clone();
        s.output.records = 3;
        assert!(check_stats(&s).unwrap_err().contains("its counts make 2"));
        let mut s = good.clone();
        s.findings.insert("other".into(), u64::MAX);
        assert!(check_stats(&s).unwrap_err().contains("overflow"));
        // Convert's columnar records are positions or games: no count to
        // check them against.
        let mut s = good;
        s.command = "convert".into();
        s.format = "parquet".into();
        s.output.records = 99;
        assert_eq!(check_stats(&s), Ok(()));
    }

    #[test]
    fn shards_must_be_alike() {
        let a = shard_stats(input(0, Some(100), 120, 3), 2);
        let (pa, pb) = (Path::new("a"), Path::new("b"));
        assert_eq!(check_alike(Some("csv"), &[(pa, &a), (pb, &a)]), Ok(()));
        assert!(
            check_alike(Some("jsonl"), &[(pa, &a)])
                .unwrap_err()
                .contains("give -f csv")
        );
        let mut b = a.clone();
        b.options = vec!["--only".into(), "syntax".into()];
        let e = check_alike(Some("csv"), &[(pa, &a), (pb, &b)]).unwrap_err();
        assert!(e.contains("one command with the same flags"), "{e}");
        assert!(
            e.contains("validate -f csv --only syntax (2 columns)"),
            "{e}"
        );
        let mut c = a.clone();
        c.format = "arrow".into();
        c.columns = None;
        let e = check_alike(None, &[(pa, &a), (pb, &c)]).unwrap_err();
        assert!(e.contains("of one format"), "{e}");
    }

    #[test]
    fn bytes_records_and_reruns_are_checked_against_the_statistics() {
        let mut s = shard_stats(input(0, Some(100), 120, 3), 2);
        let d = Digest::of(b"x,1\n");
        s.output.bytes = 4;
        s.output.digest = d.hex();
        let name = Path::new("s");
        assert_eq!(check_bytes(name, &d, &s.output), Ok(()));
        assert!(
            check_bytes(name, &Digest::of(b"x,2\n"), &s.output)
                .unwrap_err()
                .contains("not the output its statistics describe")
        );
        assert_eq!(check_records(name, 2, &s.output), Ok(()));
        assert!(check_records(name, 1, &s.output).is_err());
        let mut again = s.clone();
        again.inputs[0].first_byte = 120;
        assert_eq!(check_rerun(name, 120, &s, &again), Ok(()));
        assert!(
            check_rerun(name, 110, &s, &again)
                .unwrap_err()
                .contains("began at byte 120 instead")
        );
        again.options.push("--laws".into());
        assert!(
            check_rerun(name, 120, &s, &again)
                .unwrap_err()
                .contains("another shape")
        );
    }
}
