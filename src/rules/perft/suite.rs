//! Perft suites: the text of a suite file read into positions with their
//! expected counts ([`parse_suite`]), and what one check counted
//! ([`CheckCount`]). Counting is [`super`]'s; reading the file (any
//! input, compressed or `-`) and running the checks in order on the
//! workers is `cmd::perft`'s.

use std::fmt;

use super::MAX_DEPTH;
use crate::rules::setup::normalize_fen;

/// One position of a perft suite with its expected counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteRecord {
    /// 1-based line of the FEN in the suite.
    pub line: usize,
    /// The `id` given before an `epd` line, if any.
    pub id: Option<String>,
    /// The FEN, whitespace-normalized, not yet parsed: a bad FEN fails its
    /// checks instead of the whole suite.
    pub fen: String,
    /// Expected counts, in file order.
    pub checks: Vec<SuiteCheck>,
}

/// An expected perft count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuiteCheck {
    /// 1-based line where the count is given.
    pub line: usize,
    /// Depth.
    pub depth: u32,
    /// Expected node count.
    pub nodes: u64,
}

/// A line of a suite that is neither blank, a comment nor a known form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SuiteError {}

/// Parses a perft suite in either of two formats, which may be mixed.
///
/// * EPD lines: `<fen> ;D1 20 ;D2 400 …`.
/// * Blocks: an optional `id <name>` line, an `epd <fen>` line, then
///   `perft <depth> <nodes>` lines.
///
/// Blank lines and lines starting with `#` are ignored; fields may be
/// separated by any run of whitespace. FENs are not checked here.
///
/// # Errors
///
/// [`SuiteError`] for the first line that fits neither format.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::perft::suite::parse_suite;
///
/// let text = "# start\n8/8/8/8/8/8/8/K1k5 w - - ;D1 3\n\nid x\nepd 4k3/8/8/8/8/8/8/4K3 w -\nperft 1 5\n";
/// let suite = parse_suite(text).unwrap();
/// assert_eq!(suite.len(), 2);
/// assert_eq!(suite[1].id.as_deref(), Some("x"));
/// assert_eq!((suite[1].checks[0].depth, suite[1].checks[0].nodes), (1, 5));
/// ```
pub fn parse_suite(text: &str) -> Result<Vec<SuiteRecord>, SuiteError> {
    let mut records: Vec<SuiteRecord> = Vec::new();
    let mut id: Option<String> = None;
    // An `epd` block must hold a check before the next position starts.
    let unchecked = |records: &[SuiteRecord]| match records.last() {
        Some(last) if last.checks.is_empty() => Err(SuiteError {
            line: last.line,
            message: "`epd` line without a `perft <depth> <nodes>` line after it".to_owned(),
        }),
        _ => Ok(()),
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |message: String| SuiteError { line, message };
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (word, rest) = split_word(trimmed);
        match word {
            "id" => id = Some(normalize_fen(rest)),
            "epd" => {
                if rest.is_empty() {
                    return Err(err("`epd` without a fen".to_owned()));
                }
                unchecked(&records)?;
                records.push(SuiteRecord {
                    line,
                    id: id.take(),
                    fen: normalize_fen(rest),
                    checks: Vec::new(),
                });
            }
            "perft" => {
                let record = records
                    .last_mut()
                    .ok_or_else(|| err("`perft` before any `epd` line".to_owned()))?;
                let mut fields = rest.split_whitespace();
                let (Some(depth), Some(nodes), None) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    return Err(err(format!(
                        "expected `perft <depth> <nodes>`, got {trimmed:?}"
                    )));
                };
                record.checks.push(SuiteCheck {
                    line,
                    depth: parse_depth(depth).map_err(err)?,
                    nodes: parse_number(nodes, "node count").map_err(err)?,
                });
            }
            _ => {
                unchecked(&records)?;
                let mut parts = trimmed.split(';');
                let fen = parts.next().unwrap_or_default();
                let mut record = SuiteRecord {
                    line,
                    id: id.take(),
                    fen: normalize_fen(fen),
                    checks: Vec::new(),
                };
                for part in parts {
                    let mut fields = part.split_whitespace();
                    match (fields.next(), fields.next(), fields.next()) {
                        (None, _, _) => {}
                        (Some(op), Some(nodes), None) if op.starts_with('D') => {
                            record.checks.push(SuiteCheck {
                                line,
                                depth: parse_depth(&op[1..]).map_err(err)?,
                                nodes: parse_number(nodes, "node count").map_err(err)?,
                            });
                        }
                        _ => {
                            return Err(err(format!(
                                "expected `;D<depth> <nodes>`, got {:?}",
                                part.trim()
                            )));
                        }
                    }
                }
                if record.checks.is_empty() {
                    return Err(err(
                        "expected `id`, `epd`, `perft` or `<fen> ;D<depth> <nodes> …`".to_owned(),
                    ));
                }
                records.push(record);
            }
        }
    }
    unchecked(&records)?;
    Ok(records)
}

/// First whitespace-separated word and the trimmed rest.
fn split_word(s: &str) -> (&str, &str) {
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim_start()),
        None => (s, ""),
    }
}

fn parse_number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("invalid {what} {text:?}"))
}

/// A check's depth, at most [`MAX_DEPTH`].
fn parse_depth(text: &str) -> Result<u32, String> {
    let depth: u32 = parse_number(text, "depth")?;
    if depth > MAX_DEPTH {
        return Err(format!(
            "depth {depth} is deeper than {MAX_DEPTH}, the deepest pgnkit counts"
        ));
    }
    Ok(depth)
}

/// What one check of a suite counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckCount {
    /// The FEN does not parse.
    NoPosition,
    Nodes(u64),
    /// Stopped once the count passed `--max-nodes`.
    Over(u64),
}

impl CheckCount {
    /// Whether this is the count `check` expects.
    pub fn is_expected(self, check: &SuiteCheck) -> bool {
        self == CheckCount::Nodes(check.nodes)
    }

    /// The nodes counted: all of them, or `max` for a count stopped past it.
    pub fn nodes(self) -> u64 {
        match self {
            CheckCount::NoPosition => 0,
            CheckCount::Nodes(n) | CheckCount::Over(n) => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_formats() {
        let text = "\
# comment
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2\t400

id  k
epd 4k3/8/8/8/8/8/8/4K2R   w K -
perft 1 15
perft   2 66
";
        let suite = parse_suite(text).unwrap();
        assert_eq!(suite.len(), 2);
        assert_eq!(suite[0].line, 2);
        assert_eq!(suite[0].id, None);
        assert_eq!(
            suite[0].checks[1],
            SuiteCheck {
                line: 2,
                depth: 2,
                nodes: 400
            }
        );
        assert_eq!(suite[1].fen, "4k3/8/8/8/8/8/8/4K2R w K -");
        assert_eq!(suite[1].id.as_deref(), Some("k"));
        assert_eq!(
            suite[1].checks[1],
            SuiteCheck {
                line: 7,
                depth: 2,
                nodes: 66
            }
        );
    }

    #[test]
    fn suite_errors_name_the_line() {
        assert_eq!(parse_suite("perft 1 20").unwrap_err().line, 1);
        let err = parse_suite("epd 8/8/8/8/8/8/8/K1k5 w\nperft 1 x").unwrap_err();
        assert_eq!(err.to_string(), "line 2: invalid node count \"x\"");
        assert!(parse_suite("8/8/8/8/8/8/8/K1k5 w ;X1 3").is_err());
        assert!(parse_suite("just some words").is_err());
        // 64-bit counts.
        let big = parse_suite("epd 8/8/8/8/8/8/8/K1k5 w\nperft 9 18446744073709551615").unwrap();
        assert_eq!(big[0].checks[0].nodes, u64::MAX);
    }
}
