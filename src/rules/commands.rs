//! Commands embedded in comments, as lichess, chess.com and broadcast
//! software write them after a move: the clock, `{[%clk 0:04:58]}` (time
//! left, fractions of a second kept to the millisecond), and the engine's
//! evaluation, `{[%eval 0.35]}` in pawns or `{[%eval #-3]}` a signed mate
//! distance (optionally followed by `,depth`), both as written: lichess and
//! chess.com give White's point of view.
//!
//! Other commands (`[%emt …]`, `[%csl …]`, `[%cal …]`) are left alone. Of
//! the `[%clk …]` and `[%eval …]` commands the comments after one move
//! hold, the first readable value of each kind counts, in either order
//! (`{[%eval zz] [%eval 0.5]}` gives 0.5 as `{[%eval 0.5] [%eval zz]}`
//! does); every other one is a problem the callers report as an
//! `invalid-command` finding: one that cannot be read (never a zero), a
//! second value for the same move, a mate distance of zero (`#-0`: the
//! sign a zero cannot keep), and a clock written past the millisecond
//! (kept to the millisecond, the rest named).

use crate::rules::finding::{Code, Finding};

/// An engine's evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns (`0.35` is 35; rounded to the nearest centipawn).
    Centipawns(i32),
    /// A signed distance to mate in moves (`#-3`: Black mates in 3), never
    /// zero.
    Mate(i32),
}

/// The clock and the evaluation the comments after one move give: the
/// first readable value of each kind, read with [`Commands::read`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Commands {
    /// Time left in milliseconds.
    pub clock: Option<u64>,
    pub eval: Option<Eval>,
}

impl Commands {
    /// Whether no comment read gave either value.
    pub fn is_empty(&self) -> bool {
        self.clock.is_none() && self.eval.is_none()
    }

    /// Reads the `[%clk …]` and `[%eval …]` commands of `comment`, after
    /// the comments read before for the same move: a value is taken when
    /// none of its kind was. Returns the problems of this comment, each an
    /// `invalid-command` message ([`findings`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::commands::{Commands, Eval};
    /// let mut c = Commands::default();
    /// assert!(c.read(b" [%eval -1.5] [%clk 1:02:03.4] ").is_empty());
    /// assert_eq!(c.clock, Some(3_723_400));
    /// assert_eq!(c.eval, Some(Eval::Centipawns(-150)));
    /// // A second clock for the same move is named, the first kept.
    /// assert_eq!(c.read(b"[%clk 0:00:05]").len(), 1);
    /// assert_eq!(c.clock, Some(3_723_400));
    /// ```
    pub fn read(&mut self, comment: &[u8]) -> Vec<String> {
        let mut problems = Vec::new();
        let mut rest = comment;
        while let Some(at) = rest.windows(2).position(|w| w == b"[%") {
            rest = &rest[at + 2..];
            let name_end = rest
                .iter()
                .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                .unwrap_or(rest.len());
            let (name, after) = rest.split_at(name_end);
            let slot = match name {
                b"clk" => Slot::Clock,
                b"eval" => Slot::Eval,
                _ => continue,
            };
            let close = after.iter().position(|&b| b == b']');
            rest = close.map_or(&after[after.len()..], |c| &after[c + 1..]);
            let Some(argument) = close.map(|c| &after[..c]) else {
                let name = String::from_utf8_lossy(name);
                problems.push(format!(
                    "invalid command unclosed `[%{name}` command: {}: read as none",
                    shown(name.as_ref(), after)
                ));
                continue;
            };
            let read = match slot {
                Slot::Clock => clock(argument).map(|(ms, cut)| {
                    let kept = self.clock.is_none();
                    self.clock = self.clock.or(Some(ms));
                    (kept, cut.then(|| format!("read as {}", clock_text(ms))))
                }),
                Slot::Eval => eval(argument).map(|e| {
                    let kept = self.eval.is_none();
                    self.eval = self.eval.or(Some(e));
                    (kept, None)
                }),
            };
            let written = shown(slot.name(), argument);
            match read {
                Err(why) => {
                    problems.push(format!("invalid command `{written}`: {why}: read as none"));
                }
                Ok((false, _)) => problems.push(format!(
                    "invalid command `{written}`: a second {} for one move: the first counts",
                    slot.what()
                )),
                Ok((true, Some(cut))) => problems.push(format!(
                    "invalid command `{written}`: a clock is kept to the millisecond: {cut}"
                )),
                Ok((true, None)) => {}
            }
        }
        problems
    }
}

/// A command as written, for a message: its name and at most 40
/// characters of its argument.
fn shown(name: &str, argument: &[u8]) -> String {
    let text = String::from_utf8_lossy(argument);
    let text: String = text.chars().take(40).collect();
    format!("[%{name} {}]", text.trim())
}

/// `ms` written as a clock, `H:MM:SS.fff`.
fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{}:{:02}:{:02}.{:03}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

/// An `invalid-command` finding for each of `problems` (from
/// [`Commands::read`]) of a comment at `line`, after the main-line move
/// `on` (its ply and text) when it follows one.
pub fn findings<'a>(
    problems: Vec<String>,
    line: u64,
    on: Option<(u32, &'a str)>,
) -> impl Iterator<Item = Finding> + 'a {
    problems.into_iter().map(move |message| match on {
        Some((ply, san)) => Finding::at_ply(Code::InvalidCommand, line, ply, san, message),
        None => Finding::game(Code::InvalidCommand, line, message),
    })
}

/// Whether `comment` may hold a command (the cheap test before
/// [`Commands::read`]).
pub fn may_hold_command(comment: &[u8]) -> bool {
    // `contains` on bytes is a memchr: comments are most of some archives.
    comment.contains(&b'%') && comment.windows(2).any(|w| w == b"[%")
}

#[derive(Clone, Copy)]
enum Slot {
    Clock,
    Eval,
}

impl Slot {
    /// The command's name as written, `[%clk`.
    fn name(self) -> &'static str {
        match self {
            Slot::Clock => "clk",
            Slot::Eval => "eval",
        }
    }

    /// The command's value in a message: "a second clock for one move".
    fn what(self) -> &'static str {
        match self {
            Slot::Clock => "clock value",
            Slot::Eval => "evaluation",
        }
    }
}

/// `H:MM:SS` or `H:MM:SS.fff` (hours of any number of digits, minutes
/// and seconds below 60) in milliseconds, and whether a digit past the
/// third of the fraction that is not zero was dropped.
fn clock(arg: &[u8]) -> Result<(u64, bool), &'static str> {
    const FORM: &str = "a clock is H:MM:SS, with minutes and seconds below 60";
    let arg = arg.trim_ascii();
    let mut parts = arg.split(|&b| b == b':');
    let (Some(h), Some(m), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(FORM);
    };
    let (s, frac) = match s.iter().position(|&b| b == b'.') {
        Some(dot) => (&s[..dot], Some(&s[dot + 1..])),
        None => (s, None),
    };
    let number = |d: &[u8], most: usize| -> Option<u64> {
        if d.is_empty() || d.len() > most || !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(d).ok()?.parse().ok()
    };
    let (Some(h), Some(m), Some(s)) = (number(h, 9), number(m, 2), number(s, 2)) else {
        return Err(FORM);
    };
    if m >= 60 || s >= 60 {
        return Err(FORM);
    }
    let (ms, cut) = match frac {
        None => (0, false),
        Some(f) if !f.is_empty() && f.iter().all(u8::is_ascii_digit) => (
            f.iter()
                .chain(b"000")
                .take(3)
                .fold(0, |n, d| n * 10 + u64::from(d - b'0')),
            f.iter().skip(3).any(|&d| d != b'0'),
        ),
        Some(_) => return Err(FORM),
    };
    Ok((((h * 60 + m) * 60 + s) * 1000 + ms, cut))
}

/// `0.35`, `-1`, `+2.50` (pawns) or `#3`, `#-3` (mate), optionally followed
/// by `,depth`.
fn eval(arg: &[u8]) -> Result<Eval, &'static str> {
    const FORM: &str = "an evaluation is pawns (`0.35`) or a mate distance (`#-3`)";
    let arg = arg.trim_ascii();
    let value = match arg.iter().position(|&b| b == b',') {
        Some(comma) => {
            let depth = &arg[comma + 1..];
            if depth.is_empty() || !depth.iter().all(u8::is_ascii_digit) {
                return Err(FORM);
            }
            &arg[..comma]
        }
        None => arg,
    };
    let (mate, value) = match value.strip_prefix(b"#") {
        Some(v) => (true, v),
        None => (false, value),
    };
    let (negative, digits) = match value.first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    let (whole, frac) = match digits.iter().position(|&b| b == b'.') {
        Some(dot) if !mate => (&digits[..dot], &digits[dot + 1..]),
        _ => (digits, &b""[..]),
    };
    let all_digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    if whole.is_empty() && frac.is_empty()
        || whole.len() > 6
        || !all_digits(whole)
        || !all_digits(frac)
    {
        return Err(FORM);
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        std::str::from_utf8(whole)
            .ok()
            .and_then(|w| w.parse().ok())
            .ok_or(FORM)?
    };
    let sign = if negative { -1 } else { 1 };
    if mate {
        if whole == 0 {
            return Err("a mate distance is 1 or more (`#0` and `#-0` name no side's mate)");
        }
        return Ok(Eval::Mate((sign * whole) as i32));
    }
    // Hundredths, rounded half away from zero on the third decimal.
    let digit = |i: usize| frac.get(i).map_or(0, |d| i64::from(d - b'0'));
    let mut cp = whole * 100 + digit(0) * 10 + digit(1);
    if digit(2) >= 5 {
        cp += 1;
    }
    Ok(Eval::Centipawns((sign * cp) as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values and the problems of one comment.
    fn read(text: &str) -> (Commands, Vec<String>) {
        let mut c = Commands::default();
        let problems = c.read(text.as_bytes());
        (c, problems)
    }

    fn clock_of(text: &str) -> Option<u64> {
        read(text).0.clock
    }

    fn eval_of(text: &str) -> Option<Eval> {
        read(text).0.eval
    }

    #[test]
    fn clocks_as_lichess_and_chess_com_write_them() {
        assert_eq!(clock_of("[%clk 0:04:58]"), Some(298_000));
        assert_eq!(clock_of(" [%clk 0:00:09.3] "), Some(9_300));
        assert_eq!(clock_of("[%clk 1:30:00.125]"), Some(5_400_125));
        assert_eq!(read("[%clk 1:30:00.125000]"), (clock(5_400_125), vec![]));
        assert_eq!(clock_of("[%clk 120:00:00]"), Some(432_000_000));
        assert_eq!(read("no command"), (Commands::default(), vec![]));
        assert_eq!(
            read("[%emt 0:00:03] [%csl Ga1]"),
            (Commands::default(), vec![])
        );
    }

    fn clock(ms: u64) -> Commands {
        Commands {
            clock: Some(ms),
            eval: None,
        }
    }

    #[test]
    fn a_malformed_clock_is_an_error_never_a_zero() {
        for bad in [
            "[%clk]",
            "[%clk ]",
            "[%clk 4:58]",
            "[%clk 0:60:00]",
            "[%clk 0:00:60]",
            "[%clk 0:0a:00]",
            "[%clk -0:01:00]",
            "[%clk 0:01:00.]",
            "[%clk 0:01:00:00]",
            "[%clk 0:01:00",
            "[%clk 9999999999:00:00]",
        ] {
            let (got, problems) = read(bad);
            assert_eq!(
                (got.clock, problems.len()),
                (None, 1),
                "{bad}: {problems:?}"
            );
        }
        let (_, why) = read("[%clk 0:61:00]");
        assert!(why[0].contains("[%clk 0:61:00]"), "{why:?}");
    }

    #[test]
    fn evaluations_in_pawns_or_mate() {
        assert_eq!(eval_of("[%eval 0.35]"), Some(Eval::Centipawns(35)));
        assert_eq!(eval_of("[%eval -1.2]"), Some(Eval::Centipawns(-120)));
        assert_eq!(eval_of("[%eval +2]"), Some(Eval::Centipawns(200)));
        assert_eq!(eval_of("[%eval -0.005]"), Some(Eval::Centipawns(-1)));
        assert_eq!(eval_of("[%eval .5]"), Some(Eval::Centipawns(50)));
        assert_eq!(eval_of("[%eval 0.17,23]"), Some(Eval::Centipawns(17)));
        assert_eq!(eval_of("[%eval #-3]"), Some(Eval::Mate(-3)));
        assert_eq!(eval_of("[%eval #12,40]"), Some(Eval::Mate(12)));
        for bad in [
            "[%eval]",
            "[%eval x]",
            "[%eval #1.5]",
            "[%eval 1,]",
            "[%eval 1-2]",
        ] {
            let (got, problems) = read(bad);
            assert_eq!((got.eval, problems.len()), (None, 1), "{bad}");
        }
    }

    #[test]
    fn both_in_one_comment_with_text_around() {
        let (c, problems) = read("Good move [%eval #2] and [%clk 0:00:30] left");
        assert_eq!(c.eval, Some(Eval::Mate(2)));
        assert_eq!(c.clock, Some(30_000));
        assert!(problems.is_empty());
        assert!(may_hold_command(b"x [%clk 0:00:01]"));
        assert!(!may_hold_command(b"50% of the time"));
    }

    /// Issue 43, defect 4: in either order, the readable value counts and
    /// every other command of its kind is named.
    #[test]
    fn clock_and_eval_commands_lose_no_value_silently() {
        for text in ["{[%eval 0.5] [%eval zz]}", "{[%eval zz] [%eval 0.5]}"] {
            let (c, problems) = read(text);
            assert_eq!(c.eval, Some(Eval::Centipawns(50)), "{text}");
            assert_eq!(problems.len(), 1, "{text}: {problems:?}");
            assert!(problems[0].contains("[%eval zz]"), "{problems:?}");
        }
        // A second readable value: the first counts, the second is named.
        let (c, problems) = read("[%clk 0:01:00][%clk 0:02:00]");
        assert_eq!(c.clock, Some(60_000));
        assert_eq!(
            problems,
            [
                "invalid command `[%clk 0:02:00]`: a second clock value for one move: the first counts"
            ]
        );
        // Across the comments of one move too.
        let mut c = Commands::default();
        assert!(c.read(b"[%eval 1.0]").is_empty());
        let problems = c.read(b"[%eval 2.0] [%clk 0:00:07]");
        assert_eq!(c.eval, Some(Eval::Centipawns(100)));
        assert_eq!(c.clock, Some(7_000));
        assert_eq!(problems.len(), 1, "{problems:?}");
    }

    /// Issue 43, defect 10: `#-0` has no sign to keep, and a clock past the
    /// millisecond is kept to the millisecond with the rest named.
    #[test]
    fn mate_zero_and_sub_millisecond_clocks_are_named() {
        for text in ["[%eval #-0]", "[%eval #0]", "[%eval #+0,20]"] {
            let (c, problems) = read(text);
            assert_eq!(c.eval, None, "{text}");
            assert_eq!(problems.len(), 1, "{text}");
            assert!(
                problems[0].contains("mate distance is 1 or more"),
                "{problems:?}"
            );
        }
        let (c, problems) = read("[%clk 0:00:01.0005]");
        assert_eq!(c.clock, Some(1_000));
        assert_eq!(
            problems,
            [
                "invalid command `[%clk 0:00:01.0005]`: a clock is kept to the millisecond: read as 0:00:01.000"
            ]
        );
        let (c, problems) = read("[%clk 0:00:00.0009]");
        assert_eq!((c.clock, problems.len()), (Some(0), 1));
    }
}
