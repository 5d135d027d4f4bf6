//! Which Laws judge a game: the one table of the articles whose wording
//! changed on a known day ([`DATED`]), the date a game was played (its
//! `Date` tag, else its `EventDate`), and the choice of `--laws`.
//!
//! This module owns only the question "is this article, in its current
//! wording, in force for this game?". What an article does once the answer
//! is known is left to its rule: [`super::ends`] for the automatic draws of
//! 9.6, [`crate::tasks::annotate_outcome`] for 5.1.2's exception. An article absent from
//! the table holds in today's wording for every game.
//!
//! A date need not be complete: a year alone decides an article whose
//! wording changed on 1 January, and settles one that changed on 1 July
//! for every year but that one (`1937.??.??` is before July 2014,
//! `2014.??.??` is not known to be). Where the date cannot decide, or is
//! unknown, today's Laws apply.

use std::fmt;
use std::str::FromStr;

use super::game::RawGame;

/// A day as `(year, month, day)`, ordered.
pub type Day = (u16, u8, u8);

/// The articles whose wording depends on the date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Article {
    /// 9.6: the game is drawn, with no claim, on a fivefold repetition
    /// (9.6.1) or after 75 moves by each player without a pawn move or a
    /// capture (9.6.2).
    AutomaticDraws,
    /// 5.1.2: a resignation is a draw when the opponent cannot checkmate by
    /// any possible series of legal moves.
    ResignationException,
}

/// One row of the table: an article and the day its current wording came
/// into force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatedArticle {
    pub article: Article,
    /// The article's number in today's Laws.
    pub number: &'static str,
    /// The first day of the edition that brought today's wording.
    pub since: Day,
    /// What the Laws said before.
    pub before: &'static str,
    /// What they say since.
    pub wording: &'static str,
    /// The edition that brought it (docs/outcomes.md "Which Laws" names the sources).
    pub edition: &'static str,
}

/// Every article whose wording depends on the date, in the order of the
/// days they changed. The only place a date of the Laws is written.
pub const DATED: [DatedArticle; 2] = [
    DatedArticle {
        article: Article::AutomaticDraws,
        number: "9.6",
        since: (2014, 7, 1),
        before: "no automatic draw: a fifth repetition or a 75th move ended nothing, \
                 only the claims of 9.2 and 9.3 existed",
        wording: "fivefold repetition and 75 moves draw the game at once",
        edition: "Laws of Chess for competitions starting on or after 1 July 2014 \
                  (84th FIDE Congress, Tallinn)",
    },
    DatedArticle {
        article: Article::ResignationException,
        number: "5.1.2",
        since: (2023, 1, 1),
        before: "a resignation always lost",
        wording: "a resignation is a draw when the opponent cannot checkmate \
                  by any possible series of legal moves",
        edition: "FIDE Laws of Chess taking effect from 1 January 2023 \
                  (93rd FIDE General Assembly, Chennai)",
    },
];

/// The row of `article` in [`DATED`].
pub fn dated(article: Article) -> &'static DatedArticle {
    DATED
        .iter()
        .find(|row| row.article == article)
        .expect("every dated article has its row")
}

/// A date as PGN writes it (`YYYY.MM.DD`, `?` for unknown digits), with a
/// known year; an unknown month or day is 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PgnDate {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl PgnDate {
    /// Reads a tag value. The reader is relaxed: four digits make the year
    /// when nothing or a `.` follows them; a month (01–12) or a day
    /// (01–31) that is not two such digits is unknown, and so is a day
    /// after an unknown month. `None` when the year is not known.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::laws::PgnDate;
    /// let d = PgnDate::parse(b"1937.03.??").unwrap();
    /// assert_eq!((d.year, d.month, d.day), (1937, 3, 0));
    /// assert_eq!(PgnDate::parse(b"1993").unwrap().to_string(), "1993.??.??");
    /// assert_eq!(PgnDate::parse(b"????.??.??"), None);
    /// assert_eq!(PgnDate::parse(b"1993-01-01"), None);
    /// ```
    pub fn parse(value: &[u8]) -> Option<PgnDate> {
        // Read by position, with no iterator: every game asks.
        let v = value.trim_ascii();
        let digit = |i: usize| v.get(i).filter(|c| c.is_ascii_digit()).map(|c| c - b'0');
        let two = |i: usize, max: u8| -> u8 {
            match (digit(i), digit(i + 1), v.get(i + 2)) {
                (Some(a), Some(b), None | Some(b'.')) if (1..=max).contains(&(a * 10 + b)) => {
                    a * 10 + b
                }
                _ => 0,
            }
        };
        let (Some(a), Some(b), Some(c), Some(d)) = (digit(0), digit(1), digit(2), digit(3)) else {
            return None;
        };
        let year = u16::from(a) * 1000 + u16::from(b) * 100 + u16::from(c) * 10 + u16::from(d);
        if year == 0 || v.get(4).is_some_and(|&c| c != b'.') {
            return None;
        }
        let month = if v.len() > 5 { two(5, 12) } else { 0 };
        let day = if month > 0 && v.get(7) == Some(&b'.') {
            two(8, 31)
        } else {
            0
        };
        Some(PgnDate { year, month, day })
    }

    /// The date as days since 1970-01-01 (proleptic Gregorian), when it
    /// is complete and a real day (`2023.02.29` is none).
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::laws::PgnDate;
    /// let days = |t: &[u8]| PgnDate::parse(t).and_then(|d| d.days_since_epoch());
    /// assert_eq!(days(b"1970.01.01"), Some(0));
    /// assert_eq!(days(b"2024.02.29"), Some(19782));
    /// assert_eq!(days(b"1858.11.17"), Some(-40587));
    /// assert_eq!(days(b"2023.02.29"), None);
    /// assert_eq!(days(b"2023.02.??"), None);
    /// ```
    pub fn days_since_epoch(self) -> Option<i32> {
        let (y, m, d) = (
            i32::from(self.year),
            u32::from(self.month),
            u32::from(self.day),
        );
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let length = match m {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        if d == 0 || d > length {
            return None;
        }
        // Days from civil (H. Hinnant's algorithm), on years from March.
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + i32::try_from(doy).ok()?;
        Some(era * 146_097 + doe - 719_468)
    }

    /// The first day the date can stand for.
    fn earliest(self) -> Day {
        (self.year, self.month.max(1), self.day.max(1))
    }

    /// The last day the date can stand for.
    fn latest(self) -> Day {
        match (self.month, self.day) {
            (0, _) => (self.year, 12, 31),
            (m, 0) => (self.year, m, 31),
            (m, d) => (self.year, m, d),
        }
    }
}

impl fmt::Display for PgnDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}.", self.year)?;
        match self.month {
            0 => f.write_str("??.")?,
            m => write!(f, "{m:02}.")?,
        }
        match self.day {
            0 => f.write_str("??"),
            d => write!(f, "{d:02}"),
        }
    }
}

/// Which Laws a run applies (`--laws`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LawsChoice {
    /// Each game by the Laws in force on its date (`date`, the default).
    #[default]
    GameDate,
    /// Today's Laws for every game (`current`).
    Current,
    /// The Laws in force on one day for every game (`YYYY-MM-DD`).
    On(PgnDate),
}

impl LawsChoice {
    /// The value `--laws` takes for this choice, as a rerun of a shard is
    /// given it.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::laws::LawsChoice;
    /// for s in ["date", "current", "2010-05-01"] {
    ///     assert_eq!(s.parse::<LawsChoice>().unwrap().as_arg(), s);
    /// }
    /// ```
    pub fn as_arg(&self) -> String {
        match self {
            LawsChoice::GameDate => "date".to_owned(),
            LawsChoice::Current => "current".to_owned(),
            LawsChoice::On(d) => format!("{:04}-{:02}-{:02}", d.year, d.month, d.day),
        }
    }
}

impl FromStr for LawsChoice {
    type Err = String;

    /// `date`, `current`, or a day as `YYYY-MM-DD` (or `YYYY.MM.DD`).
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::laws::LawsChoice;
    /// assert_eq!("current".parse::<LawsChoice>(), Ok(LawsChoice::Current));
    /// assert!(matches!("2010-05-01".parse::<LawsChoice>(), Ok(LawsChoice::On(_))));
    /// assert!("2010-02-30".parse::<LawsChoice>().is_err());
    /// assert!("2010".parse::<LawsChoice>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<LawsChoice, String> {
        match s {
            "date" => return Ok(LawsChoice::GameDate),
            "current" => return Ok(LawsChoice::Current),
            _ => {}
        }
        let refused = || {
            format!("`{s}` is not `date`, `current` or a day written YYYY-MM-DD (e.g. 2010-05-01)")
        };
        let b = s.as_bytes();
        let shape = b.len() == 10
            && b[4] == b[7]
            && matches!(b[4], b'-' | b'.')
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !shape {
            return Err(refused());
        }
        let dotted = format!("{}.{}.{}", &s[..4], &s[5..7], &s[8..]);
        let date = PgnDate::parse(dotted.as_bytes()).ok_or_else(refused)?;
        let leap = date.year % 4 == 0 && (date.year % 100 != 0 || date.year % 400 == 0);
        let days = match date.month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if date.month == 0 || date.day == 0 || date.day > days {
            return Err(refused());
        }
        Ok(LawsChoice::On(date))
    }
}

/// The Laws that judge one game: today's, or those in force on a date
/// (perhaps partly known).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Laws {
    on: Option<PgnDate>,
}

/// The first FIDE Laws of Chess: adopted at FIDE's 1929 congress.
const FIRST_FIDE_LAWS: Day = (1929, 1, 1);

impl Laws {
    /// Today's Laws.
    pub const CURRENT: Laws = Laws { on: None };

    /// The Laws in force on `date`.
    pub fn on(date: PgnDate) -> Laws {
        Laws { on: Some(date) }
    }

    /// The Laws that judge `game` under `choice`: with
    /// [`LawsChoice::GameDate`], those of its `Date` tag, else of its
    /// `EventDate` tag (the first with a known year), else today's.
    pub fn for_game(game: &RawGame<'_>, choice: LawsChoice) -> Laws {
        match choice {
            LawsChoice::Current => Laws::CURRENT,
            LawsChoice::On(date) => Laws::on(date),
            LawsChoice::GameDate => Laws {
                on: ["Date", "EventDate"]
                    .into_iter()
                    .find_map(|name| game.tag(name).and_then(|t| PgnDate::parse(&t.value))),
            },
        }
    }

    /// The year of a game dated before the FIDE Laws of Chess were first
    /// adopted (1929): a record the Laws' wording was not written for.
    pub fn predates_fide(self) -> Option<u16> {
        self.on
            .filter(|d| d.latest() < FIRST_FIDE_LAWS)
            .map(|d| d.year)
    }

    /// The date these Laws are taken at; `None` for today's.
    pub fn date(self) -> Option<PgnDate> {
        self.on
    }

    /// Whether `article` holds in today's wording: always for today's
    /// Laws and when the date cannot decide; otherwise when the date is on
    /// or after the day of the change.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::laws::{Article, Laws, PgnDate};
    /// let laws = |d: &str| Laws::on(PgnDate::parse(d.as_bytes()).unwrap());
    /// assert!(!laws("1937.??.??").in_force(Article::AutomaticDraws));
    /// assert!(laws("2014.??.??").in_force(Article::AutomaticDraws));
    /// assert!(!laws("2014.06.??").in_force(Article::AutomaticDraws));
    /// assert!(!laws("2022.??.??").in_force(Article::ResignationException));
    /// assert!(Laws::CURRENT.in_force(Article::AutomaticDraws));
    /// ```
    #[inline]
    pub fn in_force(self, article: Article) -> bool {
        match self.on {
            None => true,
            Some(date) => date.latest() >= dated(article).since,
        }
    }

    /// Whether the date decides `article`: the date is known, and wholly
    /// before or wholly on or after the day of the change.
    pub fn decides(self, article: Article) -> bool {
        self.on.is_some_and(|date| {
            let since = dated(article).since;
            date.latest() < since || date.earliest() >= since
        })
    }

    /// "under the Laws in force on 1937.03.10", for a message; `None` for
    /// today's Laws.
    pub fn under(self) -> Option<String> {
        self.on
            .map(|date| format!("under the Laws in force on {date}"))
    }
}

impl Laws {
    /// The `laws` column as bytes, written without the formatting
    /// machinery (once per game of annotate-outcome): `YYYY.MM.DD` or
    /// `current`.
    pub fn column(self, buf: &mut [u8; 10]) -> &str {
        let Some(d) = self.on else {
            return "current";
        };
        let put = |buf: &mut [u8; 10], at: usize, n: u16, width: usize| {
            let mut n = n;
            for i in (0..width).rev() {
                buf[at + i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
        };
        put(buf, 0, d.year, 4);
        buf[4] = b'.';
        buf[7] = b'.';
        match d.month {
            0 => buf[5..7].copy_from_slice(b"??"),
            m => put(buf, 5, u16::from(m), 2),
        }
        match d.day {
            0 => buf[8..10].copy_from_slice(b"??"),
            n => put(buf, 8, u16::from(n), 2),
        }
        std::str::from_utf8(buf).expect("digits, dots and question marks")
    }
}

impl fmt::Display for Laws {
    /// The `laws` column: the date the Laws were taken at, or `current`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.on {
            Some(date) => date.fmt(f),
            None => f.write_str("current"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;

    fn laws(tags: &str, choice: LawsChoice) -> Laws {
        let pgn = format!("{tags}\n1. e4 *\n");
        Laws::for_game(&scan(pgn.as_bytes(), true).games[0], choice)
    }

    #[test]
    fn the_date_tag_then_the_event_date() {
        let by_date = |tags: &str| laws(tags, LawsChoice::GameDate).to_string();
        assert_eq!(by_date("[Date \"1937.03.10\"]\n"), "1937.03.10");
        assert_eq!(
            by_date("[Date \"????.??.??\"]\n[EventDate \"1937.??.??\"]\n"),
            "1937.??.??"
        );
        assert_eq!(
            by_date("[Date \"1938.01.02\"]\n[EventDate \"1937.12.30\"]\n"),
            "1938.01.02"
        );
        assert_eq!(by_date("[Date \"????.??.??\"]\n"), "current");
        assert_eq!(by_date("[Date \"20?3.01.01\"]\n"), "current");
        assert_eq!(by_date(""), "current");
        let old = "[Date \"1937.03.10\"]\n";
        assert_eq!(laws(old, LawsChoice::Current), Laws::CURRENT);
        let on = "2010-05-01".parse().unwrap();
        assert_eq!(laws(old, on).to_string(), "2010.05.01");
    }

    #[test]
    fn a_partial_date_decides_where_it_can() {
        let at = |d: &str| Laws::on(PgnDate::parse(d.as_bytes()).unwrap());
        let (draws, resignation) = (Article::AutomaticDraws, Article::ResignationException);
        for (date, in_force, decides) in [
            ("2014.06.30", false, true),
            ("2014.07.01", true, true),
            ("2014.06.??", false, true),
            ("2014.07.??", true, true),
            ("2014.??.??", true, false),
            ("2013.??.??", false, true),
            ("2015.??.??", true, true),
        ] {
            assert_eq!(at(date).in_force(draws), in_force, "{date}");
            assert_eq!(at(date).decides(draws), decides, "{date}");
        }
        assert!(!at("2022.12.31").in_force(resignation));
        assert!(at("2023.??.??").in_force(resignation));
        assert!(at("2022.??.??").decides(resignation));
        assert!(!Laws::CURRENT.decides(draws));
    }

    #[test]
    fn the_table_is_in_order_of_the_days() {
        assert!(DATED.windows(2).all(|w| w[0].since < w[1].since));
        assert_eq!(dated(Article::AutomaticDraws).since, (2014, 7, 1));
        assert_eq!(dated(Article::ResignationException).since, (2023, 1, 1));
    }

    #[test]
    fn laws_choices() {
        for bad in [
            "",
            "2010",
            "2010-13-01",
            "2010-00-10",
            "2010-04-31",
            "1900-02-29",
            "2010/05/01",
            "2010-05.01",
        ] {
            assert!(bad.parse::<LawsChoice>().is_err(), "{bad}");
        }
        assert!("2000-02-29".parse::<LawsChoice>().is_ok());
        // The column's fast writer agrees with Display.
        let mut buf = [0; 10];
        for d in ["1937.03.10", "1937.??.??", "2014.07.??", "0999.12.31"] {
            let laws = Laws::on(PgnDate::parse(d.as_bytes()).unwrap());
            assert_eq!(laws.column(&mut buf), laws.to_string());
            assert_eq!(laws.to_string(), d);
        }
        assert_eq!(Laws::CURRENT.column(&mut buf), "current");
        assert_eq!(PgnDate::parse(b"1937.3.10").map(|d| d.month), Some(0));
        assert_eq!(PgnDate::parse(b"1937.03.1x").map(|d| d.day), Some(0));
        assert_eq!(PgnDate::parse(b"0000.01.01"), None);
        assert_eq!("date".parse::<LawsChoice>(), Ok(LawsChoice::GameDate));
        assert_eq!(
            "2010.05.01".parse::<LawsChoice>(),
            "2010-05-01".parse::<LawsChoice>()
        );
    }
}
