//! The walk over each file's shards, from their statistics alone: which
//! shards a file has and in what order ([`order`]), and, given the
//! statistics of each shard's latest run, which are accepted with which
//! shift of `game` and `line`, which are skipped, and the one rerun each
//! file needs next, or why the shards cannot merge ([`walk`]).
//!
//! The walk is pure: whoever runs the shards (merge itself, or the Spark
//! job through `pgnkit merge --plan`) runs the rerun it asks for, adds its
//! statistics, and walks again. The walk of a file goes as far as the
//! statistics at hand allow: a rerun's result decides what comes after it.

use std::path::Path;

use serde_json::{Value, json};

use crate::output::stats::{InputStats, RunStats};

/// What the walk reads of one run of a shard.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// Its one input.
    pub input: &'a InputStats,
    /// Whether it could not read its input to the end.
    pub failed: bool,
    /// The records it wrote.
    pub records: u64,
}

impl<'a> Run<'a> {
    /// The run `stats` describe; `None` unless it read exactly one input.
    pub fn of(stats: &'a RunStats) -> Option<Run<'a>> {
        match stats.inputs.as_slice() {
            [input] => Some(Run {
                input,
                failed: stats.failed > 0,
                records: stats.output.records,
            }),
            _ => None,
        }
    }
}

/// One shard as the walk sees it: its planned run, its rerun once there is
/// one, and how messages name it and its file.
#[derive(Debug, Clone, Copy)]
pub struct ShardRuns<'a> {
    /// The shard, as messages name it (its output, or its statistics).
    pub name: &'a str,
    /// Its input file, as messages name it.
    pub file: &'a str,
    /// The run of its planned byte range.
    pub planned: Run<'a>,
    /// Its run again from where its predecessor's last game ended.
    pub rerun: Option<Run<'a>>,
}

/// The files of `shards` (each the path its input has, `None` for
/// standard input, and its planned run's input) and each file's shards in
/// walk order, as indexes into `shards`: files in the order first named,
/// a file's shards by range start, then first byte (ties keep their
/// order). A shard that read standard input is a file of its own.
pub fn order(shards: &[(Option<&Path>, &InputStats)]) -> Vec<Vec<usize>> {
    let mut files: Vec<(Option<&Path>, Vec<usize>)> = Vec::new();
    for (i, &(path, _)) in shards.iter().enumerate() {
        match files.iter_mut().find(|(p, _)| path.is_some() && *p == path) {
            Some((_, file)) => file.push(i),
            None => files.push((path, vec![i])),
        }
    }
    files
        .into_iter()
        .map(|(_, mut file)| {
            file.sort_by_key(|&i| (shards[i].1.start, shards[i].1.first_byte));
            file
        })
        .collect()
}

/// A shard to run again: from `from` (where its predecessor's last game
/// ended) to `end` (`None`: to the end of the file), with its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rerun {
    pub shard: usize,
    pub from: u64,
    pub end: Option<u64>,
}

/// A shard run the merge keeps, and what is added to its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    pub shard: usize,
    /// Whether the run kept is the shard's rerun.
    pub rerun: bool,
    /// Added to its `game`: the games of the file's shards before it.
    pub games_before: u64,
    /// Added to its `line`.
    pub lines_before: u64,
    /// The records before its first one in the merged output; `None`
    /// while a file before it awaits a rerun.
    pub records_before: Option<u64>,
    pub records: u64,
    /// The name its records give their file, when its rerun named the
    /// file otherwise than the shard did.
    pub rename: Option<String>,
}

/// What stops the shards of a file from merging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// Two shards name their file differently.
    NamedDifferently,
    /// Two shards read the file at different sizes or times.
    FileChanged,
    /// No shard holds bytes `from..to`.
    Gap { shard: usize, from: u64, to: u64 },
    /// No shard holds the end of the file, from `from`.
    NoEnd { from: u64 },
    /// A count of games, lines or records overflows.
    Overflow,
    /// A shard's rerun from `from` began at `at`.
    RerunElsewhere { shard: usize, from: u64, at: u64 },
}

/// Why shards cannot merge, and the message that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkError {
    pub problem: Problem,
    pub message: String,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WalkError {}

/// Where the walk of a file ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Every shard is accepted or skipped: the file merges.
    Done,
    /// The walk needs this rerun to go on.
    Rerun(Rerun),
    /// The shards do not merge.
    Refused(WalkError),
}

/// The walk of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWalk {
    /// Its shards, in walk order.
    pub shards: Vec<usize>,
    /// The runs kept, in order, as far as the walk went.
    pub accepted: Vec<Accepted>,
    /// Shards whose whole region a shard before them read.
    pub skipped: Vec<usize>,
    /// The accepted shard whose run could not read the file to the end:
    /// the file's merged output ends with it, and the shards after it are
    /// skipped.
    pub failed: Option<usize>,
    /// The records of its accepted runs.
    pub records: u64,
    pub next: Next,
}

/// The walk of every file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    pub files: Vec<FileWalk>,
}

impl Walk {
    /// What stands in the way of the merge, in file order: the first file
    /// that needs a rerun or is refused (`None`: every file merges).
    pub fn pending(&self) -> Option<&Next> {
        self.files
            .iter()
            .map(|f| &f.next)
            .find(|n| **n != Next::Done)
    }

    /// The first refusal, whatever comes before it.
    pub fn refusal(&self) -> Option<&WalkError> {
        self.files.iter().find_map(|f| match &f.next {
            Next::Refused(e) => Some(e),
            _ => None,
        })
    }

    /// The records of the merged output, once every file merges.
    pub fn records(&self) -> Option<u64> {
        if self.pending().is_some() {
            return None;
        }
        self.files
            .iter()
            .try_fold(0u64, |n, f| n.checked_add(f.records))
    }

    /// The accepted runs of every file, in the merged output's order.
    pub fn accepted(&self) -> impl Iterator<Item = &Accepted> {
        self.files.iter().flat_map(|f| &f.accepted)
    }
}

/// Walks each of `files` (as [`order`] gives them) over `shards`: per
/// file, a shard whose region the one before it read to the end is
/// skipped; one that began where the one before it ended is accepted, its
/// `game` and `line` shifted by the games and lines before it; one that
/// began inside a game the one before it owns needs a rerun from where
/// that game ended, and the walk of its file stops there until the rerun
/// is added. A file's walk must reach its end, and no bytes may be
/// missing between shards.
pub fn walk(files: &[Vec<usize>], shards: &[ShardRuns<'_>]) -> Walk {
    let mut records = Some(0u64);
    let files = files
        .iter()
        .map(|file| {
            let mut w = FileWalk {
                shards: file.clone(),
                accepted: Vec::new(),
                skipped: Vec::new(),
                failed: None,
                records: 0,
                next: Next::Done,
            };
            if let Err(e) = w.advance(shards, records) {
                w.next = Next::Refused(e);
            }
            records = match (&w.next, records) {
                (Next::Done, Some(r)) => match r.checked_add(w.records) {
                    Some(r) => Some(r),
                    None => {
                        w.next = Next::Refused(overflow("the shards' record counts overflow")());
                        None
                    }
                },
                _ => None,
            };
            w
        })
        .collect();
    Walk { files }
}

impl FileWalk {
    /// Walks the file's shards, `base` records before its first.
    fn advance(&mut self, shards: &[ShardRuns<'_>], base: Option<u64>) -> Result<(), WalkError> {
        let Some(&head) = self.shards.first() else {
            return Ok(());
        };
        let first = &shards[head];
        let (mut owned_until, mut games, mut lines) = (0u64, 0u64, 0u64);
        let mut reached_end = false;
        for at in 0..self.shards.len() {
            let k = self.shards[at];
            let shard = &shards[k];
            same_file(first, shard)?;
            let input = shard.planned.input;
            if self.failed.is_some() || input.limit.is_some_and(|l| l <= owned_until) {
                // Its whole region was read by the shard before it.
                self.skipped.push(k);
                continue;
            }
            let used = match shard.rerun {
                Some(again) if again.input.first_byte == owned_until => again,
                Some(again) => return Err(rerun_elsewhere(k, shard, owned_until, again)),
                None if input.first_byte == owned_until => shard.planned,
                None if input.first_byte < owned_until => {
                    let end = input.end.map(|e| e.max(owned_until));
                    self.next = Next::Rerun(Rerun {
                        shard: k,
                        from: owned_until,
                        end,
                    });
                    return Ok(());
                }
                None => return Err(gap(k, shard, owned_until)),
            };
            let rename = (used.input.file != input.file).then(|| input.file.clone());
            self.accepted.push(Accepted {
                shard: k,
                rerun: shard.rerun.is_some(),
                games_before: games,
                lines_before: lines,
                records_before: match base {
                    Some(b) => Some(
                        b.checked_add(self.records)
                            .ok_or_else(overflow("the shards' record counts overflow"))?,
                    ),
                    None => None,
                },
                records: used.records,
                rename,
            });
            if used.failed {
                self.failed = Some(k);
            }
            games = games
                .checked_add(used.input.games)
                .ok_or_else(overflow("the shards' game counts overflow"))?;
            lines = lines
                .checked_add(used.input.lines)
                .ok_or_else(overflow("the shards' line counts overflow"))?;
            self.records = self
                .records
                .checked_add(used.records)
                .ok_or_else(overflow("the shards' record counts overflow"))?;
            owned_until = used.input.end_byte;
            reached_end = used.input.limit.is_none();
        }
        if self.failed.is_none() && !reached_end {
            return Err(WalkError {
                problem: Problem::NoEnd { from: owned_until },
                message: format!(
                    "no shard holds the end of {} (bytes {owned_until}.. are missing)",
                    first.file
                ),
            });
        }
        Ok(())
    }
}

/// Checks that `shard` read the file of `first` as it did: by the same
/// name, at the same size and modification time.
fn same_file(first: &ShardRuns<'_>, shard: &ShardRuns<'_>) -> Result<(), WalkError> {
    let (a, b) = (first.planned.input, shard.planned.input);
    if b.file != a.file {
        return Err(WalkError {
            problem: Problem::NamedDifferently,
            message: format!(
                "{} and {} name {} differently (`{}` and `{}`), which no one run does: run \
                 the shards with the same file name",
                first.name, shard.name, first.file, a.file, b.file
            ),
        });
    }
    if (b.size, b.mtime_ns) != (a.size, a.mtime_ns) {
        return Err(WalkError {
            problem: Problem::FileChanged,
            message: format!(
                "{} and {} read {} at different times (its size or modification time \
                 differ): the file changed between shards",
                first.name, shard.name, first.file
            ),
        });
    }
    Ok(())
}

fn gap(k: usize, shard: &ShardRuns<'_>, owned_until: u64) -> WalkError {
    let to = shard.planned.input.first_byte;
    WalkError {
        problem: Problem::Gap {
            shard: k,
            from: owned_until,
            to,
        },
        message: format!(
            "{}: no shard holds bytes {owned_until}..{to} of {} (the ranges must tile the file)",
            shard.name, shard.file
        ),
    }
}

fn rerun_elsewhere(k: usize, shard: &ShardRuns<'_>, from: u64, again: Run<'_>) -> WalkError {
    let at = again.input.first_byte;
    WalkError {
        problem: Problem::RerunElsewhere { shard: k, from, at },
        message: format!(
            "rerunning {} from byte {from} began at byte {at} instead",
            shard.name
        ),
    }
}

fn overflow(message: &'static str) -> impl Fn() -> WalkError {
    move || WalkError {
        problem: Problem::Overflow,
        message: message.to_owned(),
    }
}

/// Walks `shards`, adding each rerun the walk asks for from `reruns` (the
/// path of each one's input, and its run) as it asks: a rerun answers the
/// request of its file (`paths`: each shard's input path) with the same
/// byte range. Returns the last walk and, for each rerun, the shard it was
/// added to (`None`: no walk asked for it).
pub fn settle<'a>(
    files: &[Vec<usize>],
    shards: &mut [ShardRuns<'a>],
    paths: &[Option<&Path>],
    reruns: &[(Option<&Path>, Run<'a>)],
) -> (Walk, Vec<Option<usize>>) {
    let mut used: Vec<Option<usize>> = vec![None; reruns.len()];
    loop {
        let walk = walk(files, shards);
        let mut added = false;
        for file in &walk.files {
            let Next::Rerun(r) = &file.next else {
                continue;
            };
            let answer = reruns.iter().enumerate().position(|(j, (path, run))| {
                used[j].is_none()
                    && path.is_some()
                    && *path == paths[r.shard]
                    && (run.input.start, run.input.end) == (r.from, r.end)
            });
            if let Some(j) = answer {
                used[j] = Some(r.shard);
                shards[r.shard].rerun = Some(reruns[j].1);
                added = true;
            }
        }
        if !added {
            return (walk, used);
        }
    }
}

/// The walk as JSON, for `pgnkit merge --plan`: shards named by their
/// place among `shards`, reruns by theirs among the reruns (`rerun_of`:
/// the shard each was added to).
pub fn to_json(walk: &Walk, shards: &[ShardRuns<'_>], rerun_of: &[Option<usize>]) -> Value {
    let rerun_index = |k: usize| rerun_of.iter().position(|s| *s == Some(k));
    let files: Vec<Value> = walk
        .files
        .iter()
        .map(|f| {
            let input = f.shards.first().map(|&k| shards[k].planned.input);
            let accepted: Vec<Value> = f
                .accepted
                .iter()
                .map(|a| {
                    json!({
                        "shard": a.shard,
                        "rerun": if a.rerun { rerun_index(a.shard) } else { None },
                        "games_before": a.games_before,
                        "lines_before": a.lines_before,
                        "records_before": a.records_before,
                        "records": a.records,
                        "rename": a.rename,
                    })
                })
                .collect();
            let rerun = match &f.next {
                Next::Rerun(r) => json!({"shard": r.shard, "from_byte": r.from, "end": r.end}),
                _ => Value::Null,
            };
            json!({
                "file": input.map(|i| &i.file),
                "path": input.and_then(|i| i.path.as_ref()),
                "shards": f.shards,
                "accepted": accepted,
                "skipped": f.skipped,
                "failed": f.failed,
                "rerun": rerun,
            })
        })
        .collect();
    let complete = walk.pending().is_none();
    json!({"complete": complete, "records": walk.records(), "files": files})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input of a run of `f.pgn` over `start..end` that read
    /// `first_byte..end_byte` (its region ending at `limit`).
    fn input(
        (start, end): (u64, Option<u64>),
        first_byte: u64,
        limit: Option<u64>,
        end_byte: u64,
        games: u64,
    ) -> InputStats {
        InputStats {
            file: "f.pgn".into(),
            path: Some("/d/f.pgn".into()),
            path_bytes: None,
            size: Some(1000),
            mtime_ns: Some(7),
            start,
            end,
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

    fn run(input: &InputStats) -> Run<'_> {
        Run {
            input,
            failed: false,
            records: input.games,
        }
    }

    fn shards<'a>(
        planned: &'a [InputStats],
        reruns: &'a [Option<InputStats>],
    ) -> Vec<ShardRuns<'a>> {
        planned
            .iter()
            .zip(reruns)
            .map(|(p, r)| ShardRuns {
                name: "s",
                file: "f.pgn",
                planned: run(p),
                rerun: r.as_ref().map(run),
            })
            .collect()
    }

    fn one_file(n: usize) -> Vec<Vec<usize>> {
        vec![(0..n).collect()]
    }

    fn problem(w: &Walk) -> Problem {
        w.refusal().expect("a refusal").problem
    }

    #[test]
    fn shards_that_tile_are_accepted_and_shifted_by_what_came_before() {
        let planned = [
            input((0, Some(100)), 0, Some(100), 100, 3),
            input((100, Some(250)), 100, Some(250), 250, 4),
            input((250, None), 250, None, 300, 2),
        ];
        let w = walk(&one_file(3), &shards(&planned, &[None, None, None]));
        let f = &w.files[0];
        assert_eq!(f.next, Next::Done);
        let shifts: Vec<_> = f
            .accepted
            .iter()
            .map(|a| {
                (
                    a.shard,
                    a.games_before,
                    a.lines_before,
                    a.records_before,
                    a.rerun,
                )
            })
            .collect();
        assert_eq!(
            shifts,
            [
                (0, 0, 0, Some(0), false),
                (1, 3, 30, Some(3), false),
                (2, 7, 70, Some(7), false)
            ]
        );
        assert_eq!(w.records(), Some(9));
        assert!(f.skipped.is_empty() && f.failed.is_none());
    }

    #[test]
    fn a_shard_that_began_inside_a_game_is_rerun_from_where_it_ended() {
        // Shard 0's region ends at a cut point inside a comment (100); it
        // reads on to 130. Shard 1 began at 100, inside that game.
        let planned = [
            input((0, Some(100)), 0, Some(100), 130, 3),
            input((100, Some(200)), 100, Some(200), 200, 5),
            input((200, None), 200, None, 260, 2),
        ];
        let mut reruns = [None, None, None];
        let w = walk(&one_file(3), &shards(&planned, &reruns));
        let want = Rerun {
            shard: 1,
            from: 130,
            end: Some(200),
        };
        assert_eq!(w.pending(), Some(&Next::Rerun(want)));
        assert_eq!(w.files[0].accepted.len(), 1);
        assert_eq!(w.records(), None);
        let mut again = input((130, Some(200)), 130, Some(200), 200, 4);
        again.file = "/d/f.pgn".into();
        reruns[1] = Some(again);
        let w = walk(&one_file(3), &shards(&planned, &reruns));
        assert_eq!(w.pending(), None);
        let a = &w.files[0].accepted;
        assert_eq!(
            a.iter()
                .map(|a| (a.shard, a.rerun, a.games_before, a.records))
                .collect::<Vec<_>>(),
            [(0, false, 0, 3), (1, true, 3, 4), (2, false, 7, 2)]
        );
        // The rerun named the file by its absolute path: its records get
        // the shard's name back.
        assert_eq!(a[1].rename.as_deref(), Some("f.pgn"));
        assert_eq!(a[0].rename, None);
        // A rerun that began elsewhere than asked: refused.
        reruns[1] = Some(input((130, Some(200)), 150, Some(200), 200, 4));
        let w = walk(&one_file(3), &shards(&planned, &reruns));
        assert_eq!(
            problem(&w),
            Problem::RerunElsewhere {
                shard: 1,
                from: 130,
                at: 150
            }
        );
    }

    #[test]
    fn the_rerun_of_a_range_that_ends_before_its_start_ends_there() {
        let planned = [
            input((0, Some(100)), 0, Some(150), 120, 3),
            input((100, None), 110, None, 300, 5),
        ];
        let w = walk(&one_file(2), &shards(&planned, &[None, None]));
        assert_eq!(
            w.pending(),
            Some(&Next::Rerun(Rerun {
                shard: 1,
                from: 120,
                end: None
            }))
        );
        let planned = [
            input((0, Some(100)), 0, Some(100), 160, 3),
            input((100, Some(150)), 100, Some(170), 170, 5),
            input((150, None), 170, None, 300, 5),
        ];
        let w = walk(&one_file(3), &shards(&planned, &[None, None, None]));
        assert_eq!(
            w.pending(),
            Some(&Next::Rerun(Rerun {
                shard: 1,
                from: 160,
                end: Some(160)
            }))
        );
    }

    #[test]
    fn a_shard_whose_region_was_read_through_is_skipped() {
        let planned = [
            input((0, Some(100)), 0, Some(100), 260, 3), // a game from 90 to 260
            input((150, Some(200)), 150, Some(200), 200, 1),
            input((200, Some(260)), 200, Some(260), 260, 1),
            input((260, None), 260, None, 400, 1),
        ];
        let w = walk(&one_file(4), &shards(&planned, &[None, None, None, None]));
        let f = &w.files[0];
        assert_eq!(f.next, Next::Done);
        assert_eq!(f.skipped, [1, 2]);
        assert_eq!(
            f.accepted
                .iter()
                .map(|a| (a.shard, a.games_before))
                .collect::<Vec<_>>(),
            [(0, 0), (3, 3)]
        );
    }

    #[test]
    fn gaps_overlaps_and_a_missing_end_are_refused() {
        let gap = [
            input((0, Some(100)), 0, Some(100), 100, 1),
            input((120, None), 120, None, 200, 1),
        ];
        let w = walk(&one_file(2), &shards(&gap, &[None, None]));
        assert_eq!(
            problem(&w),
            Problem::Gap {
                shard: 1,
                from: 100,
                to: 120
            }
        );
        assert!(
            w.refusal()
                .unwrap()
                .message
                .contains("no shard holds bytes 100..120 of f.pgn")
        );
        let open = [input((0, Some(100)), 0, Some(100), 100, 1)];
        let w = walk(&one_file(1), &shards(&open, &[None]));
        assert_eq!(problem(&w), Problem::NoEnd { from: 100 });
        assert!(
            w.refusal()
                .unwrap()
                .message
                .contains("no shard holds the end of f.pgn")
        );
        let mut other = [
            input((0, Some(100)), 0, Some(100), 100, 1),
            input((100, None), 100, None, 200, 1),
        ];
        other[1].file = "g.pgn".into();
        let w = walk(&one_file(2), &shards(&other, &[None, None]));
        assert_eq!(problem(&w), Problem::NamedDifferently);
        other[1].file = "f.pgn".into();
        other[1].mtime_ns = Some(8);
        let w = walk(&one_file(2), &shards(&other, &[None, None]));
        assert_eq!(problem(&w), Problem::FileChanged);
        other[1].mtime_ns = Some(7);
        other[0].games = u64::MAX;
        let w = walk(&one_file(2), &shards(&other, &[None, None]));
        assert_eq!(problem(&w), Problem::Overflow);
        assert!(
            w.refusal()
                .unwrap()
                .message
                .contains("game counts overflow")
        );
    }

    #[test]
    fn a_run_that_could_not_read_to_the_end_ends_its_file() {
        let planned = [
            input((0, Some(100)), 0, Some(100), 60, 1),
            input((100, None), 100, None, 200, 1),
        ];
        let mut runs = shards(&planned, &[None, None]);
        runs[0].planned.failed = true;
        let w = walk(&one_file(2), &runs);
        let f = &w.files[0];
        assert_eq!(
            (f.failed, &f.skipped, &f.next),
            (Some(0), &vec![1], &Next::Done)
        );
    }

    #[test]
    fn files_come_in_the_order_first_named_and_their_shards_by_start() {
        let (a, b) = (Path::new("/a"), Path::new("/b"));
        let at = |start: u64, first: u64| input((start, None), first, None, 0, 0);
        let inputs = [
            at(50, 60),
            at(0, 0),
            at(0, 0),
            at(50, 50),
            at(0, 0),
            at(0, 0),
        ];
        let keys = [Some(a), Some(b), Some(a), Some(a), None, None];
        let pairs: Vec<_> = keys.iter().copied().zip(&inputs).collect();
        assert_eq!(order(&pairs), [vec![2, 3, 0], vec![1], vec![4], vec![5]]);
    }

    #[test]
    fn each_file_walks_alone_and_the_first_in_the_way_is_pending() {
        let planned = [
            input((0, Some(100)), 0, Some(100), 130, 3),
            input((100, None), 100, None, 200, 5),
            input((0, None), 0, None, 500, 4),
            input((0, Some(10)), 0, Some(10), 10, 1),
        ];
        let runs = shards(&planned, &[None, None, None, None]);
        let w = walk(&[vec![0, 1], vec![2], vec![3]], &runs);
        assert!(matches!(w.pending(), Some(Next::Rerun(r)) if r.shard == 1));
        // The second file merges, but what comes before it is not known yet.
        assert_eq!(w.files[1].next, Next::Done);
        assert_eq!(w.files[1].accepted[0].records_before, None);
        assert_eq!(problem(&w), Problem::NoEnd { from: 10 });
        let w = walk(&[vec![2], vec![3]], &runs);
        assert!(matches!(w.pending(), Some(Next::Refused(_))));
        let w = walk(&[vec![2], vec![2]], &runs);
        assert_eq!(w.files[1].accepted[0].records_before, Some(4));
        assert_eq!(w.records(), Some(8));
    }

    #[test]
    fn reruns_given_are_added_where_the_walk_asks_for_them() {
        let planned = [
            input((0, Some(100)), 0, Some(100), 130, 3),
            input((100, None), 100, None, 200, 5),
        ];
        let again = input((130, None), 130, None, 200, 4);
        let stray = input((120, None), 130, None, 200, 4);
        let mut runs = shards(&planned, &[None, None]);
        let path = Some(Path::new("/d/f.pgn"));
        let reruns = [
            (path, run(&stray)),
            (None, run(&again)),
            (path, run(&again)),
        ];
        let (w, used) = settle(&one_file(2), &mut runs, &[path, path], &reruns);
        assert_eq!(used, [None, None, Some(1)]);
        assert_eq!(w.pending(), None);
        let json = to_json(&w, &runs, &used);
        assert_eq!(json["complete"], true);
        assert_eq!(json["records"], 7);
        let f = &json["files"][0];
        assert_eq!(f["file"], "f.pgn");
        assert_eq!(f["path"], "/d/f.pgn");
        assert_eq!(f["accepted"][1]["rerun"], 2);
        assert_eq!(f["accepted"][1]["games_before"], 3);
        assert_eq!(f["accepted"][1]["lines_before"], 30);
        assert_eq!(f["accepted"][1]["records_before"], 3);
        assert_eq!(f["accepted"][0]["rerun"], Value::Null);
        assert_eq!(f["rerun"], Value::Null);
        // Without the rerun: the request, and no total yet.
        let mut runs = shards(&planned, &[None, None]);
        let (w, used) = settle(&one_file(2), &mut runs, &[path, path], &reruns[..2]);
        assert_eq!(used, [None, None]);
        let json = to_json(&w, &runs, &used);
        assert_eq!(json["complete"], false);
        assert_eq!(json["records"], Value::Null);
        assert_eq!(
            json["files"][0]["rerun"],
            json!({"shard": 1, "from_byte": 130, "end": null})
        );
    }

    /// A run of the model: its input, and its rows (game, line, offset).
    type ModelRun = (InputStats, Vec<(u64, u64, u64)>);

    /// A PGN file as the shard contract sees it: game starts, and false
    /// cut points inside games (a `[` after a blank line in a comment).
    /// Each byte is one line, so `line` is offset + 1 in the whole file.
    struct Model {
        size: u64,
        games: Vec<u64>,
        cuts: Vec<u64>,
    }

    impl Model {
        fn first_cut(&self, at: u64) -> u64 {
            self.cuts
                .iter()
                .copied()
                .find(|&c| c >= at)
                .unwrap_or(self.size)
        }

        fn next_game(&self, at: u64) -> u64 {
            self.games
                .iter()
                .copied()
                .find(|&g| g >= at)
                .unwrap_or(self.size)
        }

        /// `--byte-range start..end`: its input and rows (game, line, offset).
        fn run(&self, start: u64, end: Option<u64>) -> (InputStats, Vec<(u64, u64, u64)>) {
            let first = self.first_cut(start);
            let limit = end.map(|e| self.first_cut(e)).filter(|&l| l < self.size);
            let stop = limit.unwrap_or(self.size);
            let mut starts: Vec<u64> = self
                .games
                .iter()
                .copied()
                .filter(|&g| first <= g && g < stop)
                .collect();
            if first < stop && !self.games.contains(&first) {
                starts.insert(0, first); // garbage parsed from inside a comment
            }
            let end_byte = if starts.is_empty() {
                stop.max(first)
            } else {
                self.next_game(stop)
            };
            let rows: Vec<_> = (1..)
                .zip(&starts)
                .map(|(i, &s)| (i, s - first + 1, s))
                .collect();
            let mut i = input((start, end), first, limit, end_byte, rows.len() as u64);
            i.lines = end_byte - first;
            (i, rows)
        }
    }

    /// Random files cut into random uneven ranges: the walk, the reruns and
    /// the shift of game and line give the whole file's rows, in order.
    #[test]
    fn random_tilings_walk_into_the_whole_file() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut below = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n.max(1)
        };
        let cases = if crate::long_tests() { 4000 } else { 400 };
        for case in 0..cases {
            let size = 1 + below(400);
            let mut games: Vec<u64> = (0..below(30)).map(|_| below(size)).collect();
            games.push(0);
            games.sort_unstable();
            games.dedup();
            let mut cuts = games.clone();
            cuts.extend((0..below(8)).map(|_| below(size)));
            cuts.sort_unstable();
            cuts.dedup();
            let model = Model { size, games, cuts };
            let mut bounds: Vec<u64> = (0..below(9)).map(|_| 1 + below(size + 20)).collect();
            bounds.sort_unstable();
            let mut ranges = vec![];
            let mut from = 0;
            for b in bounds {
                ranges.push((from, Some(b)));
                from = b;
            }
            ranges.push((from, None));
            let planned: Vec<_> = ranges.iter().map(|&(s, e)| model.run(s, e)).collect();
            let mut reruns: Vec<Option<ModelRun>> = vec![None; ranges.len()];
            let files = one_file(ranges.len());
            let w = loop {
                let inputs: Vec<InputStats> = planned.iter().map(|p| p.0.clone()).collect();
                let again: Vec<Option<InputStats>> = reruns
                    .iter()
                    .map(|r| r.as_ref().map(|r| r.0.clone()))
                    .collect();
                let w = walk(&files, &shards(&inputs, &again));
                match w.pending().cloned() {
                    None => break w,
                    Some(Next::Rerun(r)) => {
                        assert!(
                            reruns[r.shard].is_none(),
                            "case {case}: shard {} twice",
                            r.shard
                        );
                        reruns[r.shard] = Some(model.run(r.from, r.end));
                    }
                    Some(Next::Refused(e)) => panic!("case {case}, {ranges:?}: {e}"),
                    Some(Next::Done) => unreachable!(),
                }
            };
            let mut merged = vec![];
            for a in w.accepted() {
                let rows = if a.rerun {
                    &reruns[a.shard].as_ref().unwrap().1
                } else {
                    &planned[a.shard].1
                };
                merged.extend(
                    rows.iter()
                        .map(|&(g, l, o)| (g + a.games_before, l + a.lines_before, o)),
                );
            }
            let whole: Vec<_> = (1..)
                .zip(&model.games)
                .map(|(i, &g)| (i, g + 1, g))
                .collect();
            assert_eq!(merged, whole, "case {case}: {ranges:?} of {:?}", model.cuts);
        }
    }
}
