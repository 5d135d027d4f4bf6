//! A shard run again from where its predecessor's last game ended: on the
//! recorded file (its absolute path, byte for byte, after checking that
//! its size, modification time and the bytes the shard read are as they
//! were), with the recorded output-affecting flags only, by the pgnkit
//! binary given. The I/O half of the walk in [`super::plan`], which says
//! which shard and from which byte.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};

use super::read::{Shard, read_shard, stats_path, verify};
use crate::output::stats::Digest;

/// Reruns of shards, in a temporary directory made when the first is
/// needed (and removed with it).
pub struct Reruns<'a> {
    /// The pgnkit binary.
    pub exe: &'a Path,
    /// Set when the merge is to stop (a signal): a rerun's child is ended.
    pub interrupted: &'a AtomicBool,
    pub dir: Option<tempfile::TempDir>,
}

impl Reruns<'_> {
    /// Runs `shard` (the `index`th) again from byte `from`.
    ///
    /// # Errors
    ///
    /// When its input changed, the rerun fails or gives other output than
    /// the shard's, or the temporary directory cannot be made.
    pub fn run(&mut self, index: usize, shard: &Shard, from: u64) -> anyhow::Result<Shard> {
        let dir = match &mut self.dir {
            Some(dir) => dir,
            None => self.dir.insert(tempfile::tempdir().with_context(|| {
                format!(
                    "cannot make a temporary directory in {} to rerun shards (set TMPDIR)",
                    std::env::temp_dir().display()
                )
            })?),
        };
        let base = dir.path().join(index.to_string());
        run_again(shard, from, &base, self.exe, self.interrupted)
    }
}

/// Stops with an error when `flag` is set.
///
/// # Errors
///
/// When it is.
pub fn check_interrupt(flag: &AtomicBool) -> anyhow::Result<()> {
    if flag.load(Ordering::Relaxed) {
        bail!("interrupted: nothing was written, and the temporary files are removed");
    }
    Ok(())
}

/// Runs `shard` again from `from` (where its predecessor's last game
/// ended), writing into `base` + `.out`, and returns the new shard.
fn run_again(
    shard: &Shard,
    from: u64,
    base: &Path,
    exe: &Path,
    interrupted: &AtomicBool,
) -> anyhow::Result<Shard> {
    check_input(shard, from, interrupted)?;
    let name = shard.output.display();
    let input = shard.input();
    let output = base.with_extension("out");
    let stats = stats_path(&output);
    let range = match input.end {
        Some(end) => format!("{from}..{}", end.max(from)),
        None => format!("{from}.."),
    };
    let s = &shard.stats;
    let mut command = Command::new(exe);
    command
        .arg(&s.command)
        .args(["--byte-range", &range, "-q", "--stats"])
        .arg(&stats)
        .arg("-o")
        .arg(&output)
        .args([super::FORMAT_FLAG, &s.format])
        .args(&s.options);
    if !s.header {
        command.arg("--no-header");
    }
    let mut child = command
        .arg("--")
        .arg(&shard.path)
        .stdin(Stdio::null())
        .spawn()
        .context("cannot rerun a shard")?;
    let status = loop {
        if let Some(status) = child.try_wait().context("cannot rerun a shard")? {
            break status;
        }
        if interrupted.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            check_interrupt(interrupted)?;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if !matches!(status.code(), Some(0 | 1)) {
        bail!("rerunning {name} from byte {from} failed ({status})");
    }
    let again = read_shard(&output)?;
    verify(&again)?;
    super::verify::check_rerun(&shard.output, from, &shard.stats, &again.stats)
        .map_err(anyhow::Error::msg)?;
    Ok(again)
}

/// Checks that the file `shard` read is as it was when the shard ran: its
/// size, modification time and the bytes of the shard's region.
fn check_input(shard: &Shard, from: u64, interrupted: &AtomicBool) -> anyhow::Result<()> {
    let input = shard.input();
    let name = shard.output.display();
    let meta = std::fs::metadata(&shard.path).with_context(|| {
        format!(
            "{name} must be run again from byte {from}, and its input {} cannot be read",
            shard.path.display()
        )
    })?;
    let mtime = meta
        .mtime()
        .saturating_mul(1_000_000_000)
        .saturating_add(meta.mtime_nsec());
    if (Some(meta.len()), Some(mtime)) != (input.size, input.mtime_ns) {
        bail!(
            "{name} must be run again from byte {from}, and its input {} changed since the shard ran \
             (its size or modification time differ)",
            shard.path.display()
        );
    }
    let Some(expected) = &input.region_digest else {
        return Ok(());
    };
    let unread = || format!("cannot read {}", shard.path.display());
    let mut file = File::open(&shard.path).with_context(unread)?;
    file.seek(SeekFrom::Start(input.first_byte))
        .with_context(unread)?;
    let mut region = file.take(input.end_byte - input.first_byte);
    let mut digest = Digest::default();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        check_interrupt(interrupted)?;
        let n = region.read(&mut buf).with_context(unread)?;
        if n == 0 {
            break;
        }
        digest.update(&buf[..n]);
    }
    if digest.hex() != *expected || digest.len() != input.end_byte - input.first_byte {
        bail!(
            "{name} must be run again from byte {from}, and its input {} changed since the \
             shard ran (the bytes it read differ)",
            shard.path.display()
        );
    }
    Ok(())
}
