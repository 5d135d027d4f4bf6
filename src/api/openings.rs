//! `--openings FILE`: another openings table than the embedded one
//! ([`crate::rules::openings`]), read once per file and run.
//!
//! The file is a TSV of lichess's columns (`eco`, `name`, `pgn`), or a PGN
//! file of opening lines as pgn-extract's `eco.pgn`: each game a line from
//! the standard start, named by its `ECO` tag and its `Opening`,
//! `Variation` and `SubVariation` tags (`Opening: Variation, SubVariation`).
//! A file whose first line holds no tab is PGN.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use shakmaty::Chess;

use crate::error::Error;
use crate::input::scan::scan;
use crate::rules::openings::OpeningTable;
use crate::rules::replay::replay;

/// The table `path` names, or the embedded one for `None`.
///
/// A table read from a file lives as long as the process (the records
/// borrow its names): each file is read once, and read again only when
/// its size or modification time changed, so that a long-lived caller
/// (the Python package) does not keep copies.
///
/// # Errors
///
/// A file that cannot be read, or a line of it that is not a line of an
/// openings table (named with its line number).
pub fn table(path: Option<&Path>) -> Result<&'static OpeningTable, Error> {
    let Some(path) = path else {
        return Ok(OpeningTable::lichess());
    };
    type Cache = Mutex<HashMap<PathBuf, (Stamp, &'static OpeningTable)>>;
    static LOADED: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let stamp = stamp(path)?;
    let cache = LOADED.get_or_init(Cache::default);
    if let Some(&(seen, table)) = cache.lock().expect("not poisoned").get(path)
        && seen == stamp
    {
        return Ok(table);
    }
    let bytes = std::fs::read(path).map_err(|e| {
        Error::input(
            path,
            format!("cannot read the openings table {}", path.display()),
            e,
        )
    })?;
    let table: &'static OpeningTable = Box::leak(Box::new(read(path, &bytes)?));
    cache
        .lock()
        .expect("not poisoned")
        .insert(path.to_owned(), (stamp, table));
    Ok(table)
}

/// What tells a file changed.
type Stamp = (u64, Option<std::time::SystemTime>);

fn stamp(path: &Path) -> Result<Stamp, Error> {
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::input(
            path,
            format!("cannot read the openings table {}", path.display()),
            e,
        )
    })?;
    if meta.is_dir() {
        return Err(Error::bad_input(
            path,
            format!(
                "the openings table {} is a directory (give one TSV or PGN file)",
                path.display()
            ),
        ));
    }
    Ok((meta.len(), meta.modified().ok()))
}

/// The table the bytes of `path` hold.
fn read(path: &Path, bytes: &[u8]) -> Result<OpeningTable, Error> {
    let refuse = |line: u64, message: &str| {
        Error::bad_input(
            path,
            format!(
                "{}:{line}: {message} (an openings table is a TSV of the columns eco, name and pgn, or a PGN file of opening lines)",
                path.display()
            ),
        )
    };
    // A TSV's first line is its header, with tabs; anything else is PGN
    // (eco.pgn starts with a comment).
    let first = bytes
        .split(|&b| b == b'\n')
        .find(|l| !l.trim_ascii().is_empty());
    if first.is_some_and(|l| !l.contains(&b'\t')) {
        return read_pgn(bytes).map_err(|(line, m)| refuse(line, &m));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        refuse(line as u64, "not UTF-8")
    })?;
    let table = OpeningTable::from_tsv(text).map_err(|e| refuse(e.line, &e.message))?;
    if table.is_empty() {
        return Err(refuse(1, "no named line"));
    }
    Ok(table)
}

/// The table of a PGN file of opening lines.
fn read_pgn(bytes: &[u8]) -> Result<OpeningTable, (u64, String)> {
    let scanned = scan(bytes, true);
    let mut lines = Vec::with_capacity(scanned.games.len());
    for game in &scanned.games {
        if game.tag("FEN").is_some() {
            return Err((
                game.line,
                "a line from a FEN: every line starts from the standard position".into(),
            ));
        }
        let Some(eco) = game.tag_text("ECO").filter(|e| !e.trim().is_empty()) else {
            return Err((game.line, "a line without an ECO tag".into()));
        };
        let mut name = game.tag_text("Opening").unwrap_or_default().into_owned();
        for (tag, sep) in [("Variation", ": "), ("SubVariation", ", ")] {
            if let Some(v) = game.tag_text(tag).filter(|v| !v.trim().is_empty()) {
                if !name.is_empty() {
                    name.push_str(sep);
                }
                name.push_str(&v);
            }
        }
        if name.is_empty() {
            name = eco.to_string();
        }
        let mut moves = Vec::new();
        let done = replay(game, Chess::default(), |ev| moves.push(ev.mv));
        if let Some(f) = done.error {
            return Err((
                f.line,
                format!("the line of {eco} does not replay: {}", f.message),
            ));
        }
        if moves.is_empty() {
            return Err((game.line, format!("the line of {eco} has no move")));
        }
        lines.push((eco.into_owned(), name, moves));
    }
    if let Some(f) = scanned
        .games
        .iter()
        .flat_map(|g| &g.findings)
        .find(|f| f.code == crate::rules::finding::Code::Syntax)
    {
        return Err((f.line, f.message.clone()));
    }
    if lines.is_empty() {
        return Err((1, "no named line".into()));
    }
    Ok(OpeningTable::from_lines(
        lines
            .iter()
            .map(|(e, n, m)| (e.clone(), n.clone(), m.as_slice())),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(text: &str) -> Result<OpeningTable, String> {
        read(Path::new("t"), text.as_bytes()).map_err(|e| format!("{e:#}"))
    }

    #[test]
    fn pgn_lines_as_eco_pgn_writes_them() {
        let t = from("% a comment\n[ECO \"C60\"]\n[Opening \"Ruy Lopez\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n[ECO \"C65\"]\n[Opening \"Ruy Lopez\"]\n[Variation \"Berlin defence\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 *\n").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.depth(), 6);
    }

    #[test]
    fn a_line_that_does_not_replay_is_named() {
        let e = from("[ECO \"C60\"]\n\n1. e4 e5\n2. Ke3 *\n").unwrap_err();
        assert!(e.contains("t:4:") && e.contains("C60"), "{e}");
        let e = from("[Opening \"x\"]\n\n1. e4 *\n").unwrap_err();
        assert!(e.contains("without an ECO tag"), "{e}");
        let e = from("eco\tname\tpgn\nA00\tx\t1. e4 e5 2. Ke3\n").unwrap_err();
        assert!(e.contains("t:2:") && e.contains("`Ke3` (ply 3)"), "{e}");
        assert!(from("").is_err());
    }
}
