//! Reading lichess's TSV files of opening lines into positions: one
//! module shared by the crate (`--openings`) and its build script, which
//! packs the embedded table (`src/rules/openings/lichess/`) at build time
//! so that no run replays its 3,800 lines. It knows only shakmaty.

use shakmaty::san::San;
use shakmaty::{Chess, Position};

/// Why a table's line could not be read: its line in the file (1-based)
/// and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    pub line: u64,
    pub message: String,
}

/// One line of a table: the position it reaches, its plies, ECO code and
/// name.
pub type Line = (Chess, u32, String, String);

/// The header of lichess's TSV files: its columns, tab-separated.
const HEADER: &str = "eco\tname\tpgn";

/// Appends the positions of TSV `text` to `out`.
pub fn read_tsv(text: &str, out: &mut Vec<Line>) -> Result<(), TableError> {
    // The columns of eco, name and pgn, from the last header.
    let mut columns: Option<[usize; 3]> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i as u64 + 1;
        let err = |message: String| TableError {
            line: number,
            message,
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split('\t').collect();
        let mut names = HEADER.split('\t');
        let (code, name, moves) = (
            names.next().unwrap_or_default(),
            names.next().unwrap_or_default(),
            names.next().unwrap_or_default(),
        );
        if cells.contains(&code) && cells.contains(&moves) {
            let at = |name: &str| cells.iter().position(|c| *c == name);
            columns = Some(match (at(code), at(name), at(moves)) {
                (Some(e), Some(n), Some(p)) => [e, n, p],
                _ => return Err(err("the header has no `name` column".into())),
            });
            continue;
        }
        let Some([e, n, p]) = columns else {
            return Err(err(
                "not a header of the columns `eco`, `name` and `pgn` (tab-separated)".into(),
            ));
        };
        let cell = |c: usize, what: &str| {
            cells
                .get(c)
                .map(|s| s.trim())
                .filter(|s| !s.is_empty())
                .ok_or_else(|| err(format!("no {what}")))
        };
        let (eco, name, pgn) = (
            cell(e, "ECO code")?,
            cell(n, "name")?,
            cell(p, "line of moves")?,
        );
        let mut pos = Chess::default();
        let mut plies = 0;
        for token in pgn.split_ascii_whitespace() {
            // Move numbers: `1.`, `1...`, `12.`
            if token.ends_with('.')
                && token
                    .trim_end_matches('.')
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            {
                continue;
            }
            let m = token
                .parse::<San>()
                .ok()
                .and_then(|san| san.to_move(&pos).ok())
                .ok_or_else(|| {
                    err(format!(
                        "`{token}` (ply {}) is not a legal move in the line `{pgn}`",
                        plies + 1
                    ))
                })?;
            pos.play_unchecked(m);
            plies += 1;
        }
        if plies == 0 {
            return Err(err(format!("the line `{pgn}` has no move")));
        }
        out.push((pos, plies, eco.to_owned(), name.to_owned()));
    }
    Ok(())
}
