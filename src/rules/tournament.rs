//! The tournaments a collection of games records: its events, their rounds,
//! boards and players, each event's standings from the results, and what
//! contradicts itself (a player in two games of one round, two games on one
//! board, a round missing or out of order, a name written two ways, a
//! pairing repeated).
//!
//! Pure: the caller reads the tags of each game and hands them over in
//! input order ([`Games::add`]), with a number of its own for the game
//! (what names it in a report); [`Games::events`] groups them and
//! [`Event::findings`] judges each event.
//!
//! What an event is, and who is who, is read from the tags as PGN archives
//! write them:
//! - an event is the games of one `Event` tag, one `Site` and one
//!   `EventDate` (or, when there is none, one year of `Date`): a series held
//!   every year under one name is one event per year, and old archives'
//!   many events called `It` are told apart by their sites (a `Site` that
//!   is an address, as lichess writes each game's page, is no site);
//! - a round is `Round "5"`, or `Round "5.3"`: round 5, board 3, as TWIC and
//!   most broadcasts write it; in an event where one pairing plays two
//!   games of one round (a knockout's mini-match, a match's tiebreak), the
//!   number after the point is the game's, not a board's;
//! - the board is the `Board` tag, else that number after the point;
//! - a player is one `FideId` (`WhiteFideId`, `BlackFideId`), or, without
//!   one, one name up to case, accents, punctuation and word order
//!   (`Carlsen, Magnus`, `Magnus Carlsen` and `CARLSEN Magnus` are one);
//! - a side named `BYE` (or `-`, or empty) is a bye of the other side, worth
//!   what the result gives it; a game without moves, or whose `Termination`
//!   says `forfeit`, was not played (a forfeit, an unplayed point).

use std::collections::HashMap;
use std::fmt::Write as _;

use super::finding::Code;

/// A round as `Round` writes it: `5`, or `5.3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Round {
    pub number: u32,
    /// The number after the point: a board, or in a knockout a game.
    pub sub: Option<u32>,
}

/// A number of at most nine ASCII digits.
fn digits(text: &str) -> Option<u32> {
    (!text.is_empty() && text.len() <= 9 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

impl Round {
    /// The round `text` names, if it names one: `5`, `5.3`; not `?`, `-`,
    /// `0`, `5a` or `5.x`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::tournament::Round;
    /// assert_eq!(Round::parse("5.3"), Some(Round { number: 5, sub: Some(3) }));
    /// assert_eq!(Round::parse(" 12 "), Some(Round { number: 12, sub: None }));
    /// assert_eq!(Round::parse("-"), None);
    /// assert_eq!(Round::parse("0"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Round> {
        let mut parts = trim(text).split('.');
        let number = digits(parts.next()?).filter(|&n| n > 0)?;
        let sub = match parts.next() {
            None => None,
            Some(sub) => Some(digits(sub)?),
        };
        // `1.2.1` (a broadcast's game of a board): the first two count.
        if parts.any(|p| digits(p).is_none()) {
            return None;
        }
        Some(Round { number, sub })
    }
}

/// The result of a game, as White's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    WhiteWins,
    Draw,
    BlackWins,
}

impl Score {
    /// The result `text` (`1-0`, `0-1`, `1/2-1/2`); `None` for `*` or
    /// anything else.
    pub fn parse(text: &str) -> Option<Score> {
        match trim(text) {
            "1-0" => Some(Score::WhiteWins),
            "0-1" => Some(Score::BlackWins),
            "1/2-1/2" => Some(Score::Draw),
            _ => None,
        }
    }

    /// Half points to White and to Black.
    pub fn halves(self) -> (u32, u32) {
        match self {
            Score::WhiteWins => (2, 0),
            Score::Draw => (1, 1),
            Score::BlackWins => (0, 2),
        }
    }
}

/// The tags of one game that say where it stands in a tournament.
#[derive(Debug, Clone, Copy, Default)]
pub struct GameTags<'a> {
    pub event: Option<&'a str>,
    pub event_date: Option<&'a str>,
    pub date: Option<&'a str>,
    pub round: Option<&'a str>,
    pub board: Option<&'a str>,
    pub white: Option<&'a str>,
    pub black: Option<&'a str>,
    pub white_fide_id: Option<&'a str>,
    pub black_fide_id: Option<&'a str>,
    pub white_elo: Option<&'a str>,
    pub black_elo: Option<&'a str>,
    pub result: Option<&'a str>,
    pub termination: Option<&'a str>,
    pub site: Option<&'a str>,
    /// Whether the main line holds a move: a game without was not played.
    pub has_moves: bool,
}

/// [`GameTags`] owned, in one string: what a worker hands the writer.
#[derive(Debug, Clone, Default)]
pub struct OwnedTags {
    text: String,
    /// Where each value is in `text`, and which are present.
    spans: [(u32, u32); 14],
    present: u16,
    has_moves: bool,
}

impl OwnedTags {
    /// The tags of `game` read here, in one pass over its tags (each
    /// wanted one decoded once, the first of a name counting), and whether
    /// it has moves.
    pub fn of_game(game: &super::game::RawGame<'_>) -> OwnedTags {
        // The first tag of each name read here, then their values in one
        // string made at once (a Latin-1 value decodes longer, and the
        // string grows for it).
        let mut wanted: [Option<&super::game::Tag<'_>>; 14] = [None; 14];
        for tag in &game.tags {
            if let Some(i) = OwnedTags::slot(tag.name) {
                wanted[i].get_or_insert(tag);
            }
        }
        let bytes = wanted.iter().flatten().map(|t| t.value.len()).sum();
        let mut owned = OwnedTags {
            has_moves: game.main_line().next().is_some(),
            text: String::with_capacity(bytes),
            ..OwnedTags::default()
        };
        for (i, tag) in wanted.iter().enumerate() {
            if let Some(tag) = tag {
                owned.set(i, &tag.text());
            }
        }
        owned
    }

    /// Where the tag called `name` goes (its index in `spans`, and the
    /// order [`OwnedTags::tags`] reads them in), if it is one read here.
    fn slot(name: &[u8]) -> Option<usize> {
        Some(match name {
            b"Event" => 0,
            b"EventDate" => 1,
            b"Date" => 2,
            b"Round" => 3,
            b"Board" => 4,
            b"White" => 5,
            b"Black" => 6,
            b"WhiteFideId" => 7,
            b"BlackFideId" => 8,
            b"WhiteElo" => 9,
            b"BlackElo" => 10,
            b"Result" => 11,
            b"Termination" => 12,
            b"Site" => 13,
            _ => return None,
        })
    }

    /// Sets the value of slot `i`.
    fn set(&mut self, i: usize, value: &str) {
        let start = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.text.push_str(value);
        let end = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.spans[i] = (start, end);
        self.present |= 1 << i;
    }

    /// The tags, borrowed.
    pub fn tags(&self) -> GameTags<'_> {
        let value = |i: usize| {
            (self.present & (1 << i) != 0).then(|| {
                let (start, end) = self.spans[i];
                self.text.get(start as usize..end as usize).unwrap_or("")
            })
        };
        GameTags {
            event: value(0),
            event_date: value(1),
            date: value(2),
            round: value(3),
            board: value(4),
            white: value(5),
            black: value(6),
            white_fide_id: value(7),
            black_fide_id: value(8),
            white_elo: value(9),
            black_elo: value(10),
            result: value(11),
            termination: value(12),
            site: value(13),
            has_moves: self.has_moves,
        }
    }
}

/// The codes [`Event::findings`] reports.
pub const CODES: [Code; 6] = [
    Code::PairedTwice,
    Code::BoardTwice,
    Code::RoundMissing,
    Code::RoundOrder,
    Code::NameVariant,
    Code::PairingRepeated,
];

/// One side of a game as added: its name (interned), FIDE ID and rating.
#[derive(Debug, Clone, Copy)]
struct Side {
    name: u32,
    /// 0: none.
    fide_id: u32,
    /// 0: none.
    rating: u16,
    bye: bool,
}

impl Side {
    fn id(&self) -> Option<u32> {
        (self.fide_id > 0).then_some(self.fide_id)
    }

    fn elo(&self) -> Option<u16> {
        (self.rating > 0).then_some(self.rating)
    }
}

/// One game as added: 56 bytes.
#[derive(Debug, Clone, Copy)]
struct Entry {
    event: u32,
    /// The `Round`, `Board` and `Result` tags as written, interned
    /// (`u32::MAX`: absent), to name the game in a report ([`Games::tag`]).
    written: [u32; 3],
    /// The round's number (0: none) and the number after its point
    /// (`u32::MAX`: none); the board (`u32::MAX`: none).
    number: u32,
    sub: u32,
    board_number: u32,
    white: Side,
    black: Side,
    score: Option<Score>,
    unplayed: bool,
    game: u32,
}

impl Entry {
    fn round(&self) -> Option<Round> {
        (self.number > 0).then(|| Round {
            number: self.number,
            sub: (self.sub != u32::MAX).then_some(self.sub),
        })
    }

    fn board(&self) -> Option<u32> {
        (self.board_number != u32::MAX).then_some(self.board_number)
    }
}

/// FNV-1a, 64 bits: a fast hash for the short strings of tags (names,
/// rounds), which no adversary chooses the collisions of to any gain here
/// but time, bounded by the run's own input.
#[derive(Debug, Default, Clone, Copy)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FnvMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

/// A table for at most `n` keys, made at that size up to 4,096 keys: an
/// event's tables are filled once, and growing them one doubling at a time
/// cost more than filling them. A larger event's tables grow as they fill
/// (they may hold far fewer keys than `n`, or none).
fn sized<K, V>(n: usize) -> FnvMap<K, V> {
    FnvMap::with_capacity_and_hasher(n.min(4096), Default::default())
}

/// The games of a run, as they came: what [`Games::events`] groups. A game
/// costs about 70 bytes (and its names, rounds and events, held once).
#[derive(Debug, Default)]
pub struct Games {
    index: FnvMap<std::sync::Arc<str>, u32>,
    strings: Vec<std::sync::Arc<str>>,
    /// Each event (its name's and date's strings) and its number.
    event_of: FnvMap<(u32, u32, u32), u32>,
    events: Vec<(u32, u32, u32)>,
    entries: Vec<Entry>,
    /// The `White` or `Black` tag as written, of the games (and side) where
    /// it is not the side's name: spaces around it, or no tag.
    raw_names: FnvMap<(u32, u8), u32>,
    /// Whether games without a round number are kept (the crosstable of
    /// an event without rounds); the checks need only the others.
    unrounded: bool,
}

/// Whether a side's name says it is a bye.
fn is_bye(name: &str) -> bool {
    let name = trim(name);
    name.is_empty() || name == "-" || name.eq_ignore_ascii_case("bye")
}

/// `text` without the whitespace around it ([`str::trim`]), at once when
/// it starts and ends with a printable ASCII byte, as tag values do.
#[inline]
fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// The tag's value unless it says nothing (`?`, empty).
fn known(text: Option<&str>) -> Option<&str> {
    text.map(trim).filter(|t| !t.is_empty() && *t != "?")
}

impl Games {
    /// Games, keeping those without a round number too (`crosstable`).
    pub fn with_unrounded() -> Games {
        Games {
            unrounded: true,
            ..Games::default()
        }
    }

    fn intern(&mut self, text: &str) -> u32 {
        if let Some(&n) = self.index.get(text) {
            return n;
        }
        let n = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        let shared: std::sync::Arc<str> = text.into();
        self.strings.push(shared.clone());
        self.index.insert(shared, n);
        n
    }

    /// Adds the game the caller numbers `game`. A game without an `Event`
    /// (or with `?`) belongs to no event and is left out: `false`; so is a
    /// game without a round number, unless [`Games::with_unrounded`].
    pub fn add(&mut self, tags: &GameTags<'_>, game: u32) -> bool {
        let Some(event) = known(tags.event) else {
            return false;
        };
        let round = tags.round.and_then(Round::parse);
        if round.is_none() && !self.unrounded {
            return false;
        }
        // EventDate, else the year of Date.
        let when = known(tags.event_date)
            .filter(|d| d.len() >= 4 && d.as_bytes()[..4].iter().all(u8::is_ascii_digit))
            .or_else(|| {
                known(tags.date)
                    .and_then(|d| d.get(..4))
                    .filter(|y| y.bytes().all(|b| b.is_ascii_digit()))
            })
            .unwrap_or_default();
        // A site that is an address names the game's page (lichess writes
        // each game's), not where the event was held.
        let site = known(tags.site)
            .filter(|s| !s.contains("://"))
            .unwrap_or_default();
        let key = (self.intern(event), self.intern(site), self.intern(when));
        let next = u32::try_from(self.events.len()).unwrap_or(u32::MAX);
        let event = *self.event_of.entry(key).or_insert(next);
        if event == next {
            self.events.push(key);
        }
        let mut side = |name: Option<&str>, id: Option<&str>, elo: Option<&str>| {
            let name = trim(name.unwrap_or(""));
            Side {
                name: self.intern(name),
                fide_id: id.and_then(|i| digits(trim(i))).unwrap_or(0),
                rating: elo
                    .and_then(|e| digits(trim(e)))
                    .and_then(|e| u16::try_from(e).ok())
                    .unwrap_or(0),
                bye: is_bye(name),
            }
        };
        let white = side(tags.white, tags.white_fide_id, tags.white_elo);
        let black = side(tags.black, tags.black_fide_id, tags.black_elo);
        let forfeit = tags
            .termination
            .is_some_and(|t| t.to_ascii_lowercase().contains("forfeit"));
        // As written: the names as the sides hold them, unless a tag has
        // spaces around its name, or is missing (noted beside).
        let index = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        for (i, t) in [tags.white, tags.black].into_iter().enumerate() {
            if t.is_none_or(|t| t.len() != trim(t).len()) {
                let raw = t.map_or(u32::MAX, |t| self.intern(t));
                self.raw_names.insert((index, i as u8), raw);
            }
        }
        let written =
            [tags.round, tags.board, tags.result].map(|t| t.map_or(u32::MAX, |t| self.intern(t)));
        self.entries.push(Entry {
            event,
            written,
            number: round.map_or(0, |r| r.number),
            sub: round.and_then(|r| r.sub).unwrap_or(u32::MAX),
            board_number: tags.board.and_then(|b| digits(trim(b))).unwrap_or(u32::MAX),
            white,
            black,
            score: tags.result.and_then(Score::parse),
            unplayed: !tags.has_moves || forfeit || white.bye || black.bye,
            game,
        });
        true
    }

    /// The tag `name` of the `index`th game added, as written: one of
    /// `Event`, `Round`, `Board`, `White`, `Black` and `Result`.
    pub fn tag(&self, index: usize, name: &str) -> Option<&str> {
        let e = self.entries.get(index)?;
        let n = match name {
            "Event" => self.events[e.event as usize].0,
            "Round" => e.written[0],
            "Board" => e.written[1],
            "Result" => e.written[2],
            "White" | "Black" => {
                let side = usize::from(name == "Black");
                let key = (u32::try_from(index).ok()?, side as u8);
                match self.raw_names.get(&key) {
                    Some(&raw) => raw,
                    None => [e.white, e.black][side].name,
                }
            }
            _ => return None,
        };
        self.strings.get(n as usize).map(|s| &**s)
    }

    /// How many games were added.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The events, in the order of their first game.
    pub fn events(&self) -> Vec<Event> {
        self.events_of(1)
    }

    /// The events of at least `games` games, in the order of their first
    /// game (an event of one game has nothing to contradict).
    pub fn events_of(&self, games: usize) -> Vec<Event> {
        use rayon::prelude::*;
        self.groups(games)
            .par_iter()
            .map_init(FnvMap::<u32, String>::default, |keys, group| {
                self.event(group, keys, true)
            })
            .collect()
    }

    /// What contradicts itself in each event (of two games or more), the
    /// events in the order of their first game: [`Event::findings`],
    /// without keeping the events (nor their standings).
    pub fn judge(&self, describe: &(dyn Fn(u32) -> String + Sync)) -> Vec<Finding> {
        use rayon::prelude::*;
        let found: Vec<Vec<Finding>> = self
            .groups(2)
            .par_iter()
            .map_init(FnvMap::<u32, String>::default, |keys, group| {
                self.event(group, keys, false).findings(describe)
            })
            .collect();
        found.into_iter().flatten().collect()
    }

    /// The games of each event of at least `games` games, in the order of
    /// their first game: ranges of one list of the entries' indices,
    /// sorted by event (stable: each event's games in input order).
    fn groups(&self, games: usize) -> Vec<Vec<u32>> {
        let mut first: Vec<u32> = vec![u32::MAX; self.events.len()];
        let mut count: Vec<u32> = vec![0; self.events.len()];
        for (i, e) in self.entries.iter().enumerate() {
            let f = &mut first[e.event as usize];
            if *f == u32::MAX {
                *f = i as u32;
            }
            count[e.event as usize] += 1;
        }
        let mut order: Vec<u32> = (0..self.events.len() as u32)
            .filter(|&k| count[k as usize] as usize >= games.max(1))
            .collect();
        order.sort_unstable_by_key(|&k| first[k as usize]);
        let mut slot: Vec<u32> = vec![u32::MAX; self.events.len()];
        for (n, &k) in order.iter().enumerate() {
            slot[k as usize] = n as u32;
        }
        let mut groups: Vec<Vec<u32>> = order
            .iter()
            .map(|&k| Vec::with_capacity(count[k as usize] as usize))
            .collect();
        for (i, e) in self.entries.iter().enumerate() {
            let n = slot[e.event as usize];
            if n != u32::MAX {
                groups[n as usize].push(i as u32);
            }
        }
        groups
    }

    /// The event of the games `group` (indices of entries).
    fn event(&self, group: &[u32], keys: &mut FnvMap<u32, String>, standings: bool) -> Event {
        let entries: Vec<&Entry> = group.iter().map(|&i| &self.entries[i as usize]).collect();
        let (name, site, date) = self.events[entries[0].event as usize];
        Event::of(
            (&self.strings[name as usize], &self.strings[site as usize]),
            &self.strings[date as usize],
            &entries,
            &self.strings,
            keys,
            standings,
        )
    }
}

/// What kind of tournament an event is, as its games show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Every player can meet every other: no more players than rounds
    /// plus one. `cycles`: how many times each pairing is due (2 for a
    /// double round-robin, the games of a match).
    RoundRobin { cycles: u32 },
    /// More players than a round-robin of its rounds holds.
    Swiss,
    /// A pairing plays more than one game in a round: mini-matches.
    Knockout,
    /// No game has a round number.
    NoRounds,
}

impl Kind {
    /// Its name in records.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::RoundRobin { .. } => "round-robin",
            Kind::Swiss => "swiss",
            Kind::Knockout => "knockout",
            Kind::NoRounds => "no-rounds",
        }
    }

    /// The tie-break the standings use after points, if any.
    pub fn tiebreak(self) -> Option<&'static str> {
        match self {
            Kind::RoundRobin { .. } => Some("sonneborn-berger"),
            Kind::Swiss => Some("buchholz"),
            Kind::Knockout | Kind::NoRounds => None,
        }
    }
}

/// One player of an event.
#[derive(Debug, Clone)]
pub struct Player {
    /// The name as most of the event's games write it (the first of those
    /// most written).
    pub name: String,
    /// Every spelling met, with the caller's number of the first game
    /// that writes it, in the order met.
    pub spellings: Vec<(String, u32)>,
    pub fide_id: Option<u32>,
    /// The highest rating its games give it.
    pub elo: Option<u16>,
}

/// One game of an event.
#[derive(Debug, Clone, Copy)]
pub struct Game {
    /// The caller's number of the game.
    pub game: u32,
    pub round: Option<Round>,
    /// The `Board` tag, or the round's number after the point where that
    /// is a board.
    pub board: Option<u32>,
    /// The players, by their index in [`Event::players`]; `None` for a bye.
    pub white: Option<usize>,
    pub black: Option<usize>,
    pub score: Option<Score>,
    /// A forfeit, a bye, a game without moves.
    pub unplayed: bool,
}

impl Game {
    /// The other side of `player`'s game, and `player`'s colour (`true`:
    /// White); `None` when `player` is not in it.
    pub fn side_of(&self, player: usize) -> Option<(Option<usize>, bool)> {
        if self.white == Some(player) {
            Some((self.black, true))
        } else if self.black == Some(player) {
            Some((self.white, false))
        } else {
            None
        }
    }

    /// What `player` scored in it, in half points (`None`: no result).
    pub fn halves_of(&self, player: usize) -> Option<u32> {
        let (_, white) = self.side_of(player)?;
        let (w, b) = self.score?.halves();
        Some(if white { w } else { b })
    }
}

/// A player's place in the standings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// The player's index in [`Event::players`].
    pub player: usize,
    /// 1 for the first; players level on points and tie-break share one.
    pub rank: u32,
    /// Half points, forfeits and byes included.
    pub halves: u32,
    /// Games played over the board, and their wins, draws and losses.
    pub played: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Forfeits and byes.
    pub unplayed: u32,
    /// The tie-break ([`Kind::tiebreak`]) in quarter points.
    pub tiebreak: Option<u32>,
}

/// One event: its players, games and standings.
#[derive(Debug, Clone)]
pub struct Event {
    pub name: String,
    /// The `Site` tag (may be empty).
    pub site: String,
    /// `EventDate`, or the year of `Date`: what tells this event from
    /// another of its name (may be empty).
    pub date: String,
    pub kind: Kind,
    pub players: Vec<Player>,
    /// In input order.
    pub games: Vec<Game>,
    /// In rank order.
    pub standings: Vec<Standing>,
    /// The round numbers with games, in order.
    pub rounds: Vec<u32>,
    /// Whether the number after a round's point counts games, not boards.
    pub sub_is_game: bool,
    /// Each player's games (indices in `games`), in round order: made
    /// with the standings.
    by_player: Vec<Vec<u32>>,
}

/// One contradiction of an event: its code, the game (the caller's
/// number) it is reported at, and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: Code,
    pub game: u32,
    pub message: String,
}

/// A name folded to its words in order: what two spellings of one name
/// share.
fn name_key(name: &str) -> String {
    let folded = super::select::fold(name);
    let mut words: Vec<&str> = folded.split_whitespace().collect();
    words.sort_unstable();
    words.join(" ")
}

impl Event {
    fn of(
        (name, site): (&str, &str),
        date: &str,
        entries: &[&Entry],
        strings: &[std::sync::Arc<str>],
        keys: &mut FnvMap<u32, String>,
        standings: bool,
    ) -> Event {
        let mut players: Vec<Player> = Vec::new();
        // How many games write each (player, spelling).
        let mut counts: FnvMap<(usize, u32), u32> = sized(2 * entries.len());
        let mut by_id: FnvMap<u32, usize> = sized(2 * entries.len());
        let mut by_name: FnvMap<String, usize> = sized(2 * entries.len());
        // A spelling (with its FideId) met before is the same player: the
        // name is folded once per spelling, not once per game.
        let mut seen: FnvMap<(u32, Option<u32>), usize> = sized(2 * entries.len());
        let mut player_of = |side: &Side, game: u32| -> Option<usize> {
            if side.bye {
                return None;
            }
            if let Some(&p) = seen.get(&(side.name, side.id())) {
                players[p].elo = players[p].elo.max(side.elo());
                *counts.entry((p, side.name)).or_insert(0) += 1;
                return Some(p);
            }
            let spelling = &*strings[side.name as usize];
            let key = keys
                .entry(side.name)
                .or_insert_with(|| name_key(spelling))
                .clone();
            let found = match side.id() {
                Some(id) => by_id.get(&id).copied().or_else(|| {
                    by_name
                        .get(&key)
                        .copied()
                        .filter(|&p| players[p].fide_id.is_none_or(|i| i == id))
                }),
                None => by_name.get(&key).copied(),
            };
            let p = found.unwrap_or_else(|| {
                players.push(Player {
                    name: spelling.to_owned(),
                    spellings: Vec::new(),
                    fide_id: None,
                    elo: None,
                });
                players.len() - 1
            });
            let player = &mut players[p];
            if let Some(id) = side.id() {
                player.fide_id.get_or_insert(id);
                by_id.entry(id).or_insert(p);
            }
            by_name.entry(key).or_insert(p);
            if !player.spellings.iter().any(|(s, _)| s == spelling) {
                player.spellings.push((spelling.to_owned(), game));
            }
            player.elo = player.elo.max(side.elo());
            *counts.entry((p, side.name)).or_insert(0) += 1;
            seen.insert((side.name, side.id()), p);
            Some(p)
        };
        let mut games = Vec::with_capacity(entries.len());
        for e in entries {
            let white = player_of(&e.white, e.game);
            let black = player_of(&e.black, e.game);
            games.push((e, white, black));
        }
        // Each player's name: the spelling most of its games write (the
        // first met of those).
        let mut tally: Vec<Vec<(u32, u32)>> = vec![Vec::new(); players.len()];
        for (&(p, name), &n) in &counts {
            tally[p].push((name, n));
        }
        for (p, player) in players.iter_mut().enumerate() {
            let mut top: Option<(&str, u32)> = None;
            for (s, _) in &player.spellings {
                let n = tally[p]
                    .iter()
                    .find(|(k, _)| &*strings[*k as usize] == s.as_str())
                    .map_or(0, |(_, c)| *c);
                if top.is_none_or(|(_, c)| n > c) {
                    top = Some((s, n));
                }
            }
            if let Some((s, _)) = top {
                player.name = s.to_owned();
            }
        }
        let mut rounds: Vec<u32> = games
            .iter()
            .filter_map(|(e, _, _)| e.round().map(|r| r.number))
            .collect();
        rounds.sort_unstable();
        rounds.dedup();
        // One pairing in two games of one round: the number after the
        // point is a game's.
        let mut seen: FnvMap<(u32, usize, usize), ()> = sized(games.len());
        let mut sub_is_game = false;
        for (e, w, b) in &games {
            if let (Some(r), Some(w), Some(b)) = (e.round(), w, b) {
                let pair = ((*w).min(*b), (*w).max(*b));
                if seen.insert((r.number, pair.0, pair.1), ()).is_some() {
                    sub_is_game = true;
                }
            }
        }
        // Three games or more under one `5.3`: a team event's match (its
        // boards are the Board tag's, if any), not a board.
        let mut slots: FnvMap<(u32, u32), u32> = sized(games.len());
        for (e, _, _) in &games {
            if let Some(Round {
                number,
                sub: Some(sub),
            }) = e.round()
            {
                *slots.entry((number, sub)).or_insert(0) += 1;
            }
        }
        let sub_is_board = !sub_is_game && slots.values().all(|&n| n <= 2);
        let games: Vec<Game> = games
            .into_iter()
            .map(|(e, white, black)| Game {
                game: e.game,
                round: e.round(),
                board: e.board().or(if sub_is_board {
                    e.round().and_then(|r| r.sub)
                } else {
                    None
                }),
                white,
                black,
                score: e.score,
                unplayed: e.unplayed,
            })
            .collect();
        let n = players.len() as u32;
        let max_round = rounds.last().copied().unwrap_or(0);
        let kind = if rounds.is_empty() {
            Kind::NoRounds
        } else if n >= 2 && n <= max_round + 1 {
            let per_cycle = if n.is_multiple_of(2) { n - 1 } else { n };
            Kind::RoundRobin {
                cycles: max_round.div_ceil(per_cycle.max(1)).max(1),
            }
        } else if sub_is_game {
            Kind::Knockout
        } else {
            Kind::Swiss
        };
        let mut event = Event {
            name: name.to_owned(),
            site: site.to_owned(),
            date: date.to_owned(),
            kind,
            players,
            games,
            standings: Vec::new(),
            rounds,
            sub_is_game,
            by_player: Vec::new(),
        };
        if standings {
            event.standings = event.ranked();
            let mut by_player: Vec<Vec<u32>> = vec![Vec::new(); event.players.len()];
            for (i, g) in event.games.iter().enumerate() {
                for p in [g.white, g.black].into_iter().flatten() {
                    // A player against itself (one name both sides) once.
                    if by_player[p].last() != Some(&(i as u32)) {
                        by_player[p].push(i as u32);
                    }
                }
            }
            let games = &event.games;
            for list in &mut by_player {
                list.sort_by_key(|&i| {
                    games[i as usize]
                        .round
                        .map_or((1, 0, 0), |r| (0, r.number, r.sub.unwrap_or(0)))
                });
            }
            event.by_player = by_player;
        }
        event
    }

    /// The standings: points, then the tie-break, then wins, then name.
    fn ranked(&self) -> Vec<Standing> {
        let mut rows: Vec<Standing> = (0..self.players.len())
            .map(|player| Standing {
                player,
                rank: 0,
                halves: 0,
                played: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                unplayed: 0,
                tiebreak: None,
            })
            .collect();
        for g in &self.games {
            for p in [g.white, g.black].into_iter().flatten() {
                let row = &mut rows[p];
                if let Some(h) = g.halves_of(p) {
                    row.halves += h;
                }
                if g.unplayed {
                    row.unplayed += 1;
                } else if let Some(h) = g.halves_of(p) {
                    row.played += 1;
                    match h {
                        2 => row.wins += 1,
                        1 => row.draws += 1,
                        _ => row.losses += 1,
                    }
                }
            }
        }
        if let Some(name) = self.kind.tiebreak() {
            let points: Vec<u32> = rows.iter().map(|r| r.halves).collect();
            for g in self.games.iter().filter(|g| !g.unplayed) {
                for p in [g.white, g.black].into_iter().flatten() {
                    let Some((Some(opponent), _)) = g.side_of(p) else {
                        continue;
                    };
                    let add = if name == "buchholz" {
                        // Half points of the opponent, as quarters.
                        points[opponent] * 2
                    } else {
                        g.halves_of(p).unwrap_or(0) * points[opponent]
                    };
                    *rows[p].tiebreak.get_or_insert(0) += add;
                }
            }
            for r in &mut rows {
                r.tiebreak.get_or_insert(0);
            }
        }
        rows.sort_by(|a, b| {
            (b.halves, b.tiebreak, b.wins)
                .cmp(&(a.halves, a.tiebreak, a.wins))
                .then_with(|| {
                    self.players[a.player]
                        .name
                        .cmp(&self.players[b.player].name)
                })
        });
        for i in 0..rows.len() {
            rows[i].rank = if i > 0
                && (rows[i].halves, rows[i].tiebreak) == (rows[i - 1].halves, rows[i - 1].tiebreak)
            {
                rows[i - 1].rank
            } else {
                i as u32 + 1
            };
        }
        rows
    }

    /// Each player's place in [`Event::standings`] (the row numbers a
    /// crosstable names opponents by), by player index.
    pub fn row_of(&self) -> Vec<usize> {
        let mut row = vec![0; self.players.len()];
        for (i, s) in self.standings.iter().enumerate() {
            row[s.player] = i;
        }
        row
    }

    /// The games of `player`, in round order (games without a round last,
    /// in input order).
    pub fn games_of(&self, player: usize) -> Vec<&Game> {
        match self.by_player.get(player) {
            Some(list) => list.iter().map(|&i| &self.games[i as usize]).collect(),
            // An event made for judging only: looked for.
            None => {
                let mut games: Vec<&Game> = self
                    .games
                    .iter()
                    .filter(|g| g.side_of(player).is_some())
                    .collect();
                games.sort_by_key(|g| {
                    g.round
                        .map_or((1, 0, 0), |r| (0, r.number, r.sub.unwrap_or(0)))
                });
                games
            }
        }
    }

    /// What contradicts itself in the event, in input order of the games
    /// reported at. `describe` names a game by the caller's number
    /// (`game 12 (line 340)`).
    pub fn findings(&self, describe: &dyn Fn(u32) -> String) -> Vec<Finding> {
        let mut out: Vec<(usize, Finding)> = Vec::new();
        let name = |p: usize| format!("`{}`", self.players[p].name);
        let mut push = |at: usize, code: Code, message: String| {
            out.push((
                at,
                Finding {
                    code,
                    game: self.games[at].game,
                    message,
                },
            ))
        };

        // A name written two ways: at the first game of each other spelling.
        for player in &self.players {
            let Some(((first, first_game), rest)) = player.spellings.split_first() else {
                continue;
            };
            for (spelling, game) in rest {
                let at = self.games.iter().position(|g| g.game == *game).unwrap_or(0);
                let why = match player.fide_id {
                    Some(id) if name_key(first) != name_key(spelling) => {
                        format!("the same FideId {id}")
                    }
                    _ => "the same name up to case, accents, punctuation and word order".to_owned(),
                };
                push(
                    at,
                    Code::NameVariant,
                    format!(
                        "`{spelling}` is written `{first}` in {}: one player by {why}",
                        describe(*first_game)
                    ),
                );
            }
        }

        // An event where a player has three games or more in a round (a
        // team match where each plays each, a day of blitz games under one
        // round) has several games a round by design: a player's second
        // game of a round, or a second meeting, is no error there. A name
        // written wrong in one game gives a player two.
        let mut per_round: FnvMap<(u32, usize), u32> = sized(2 * self.games.len());
        for g in &self.games {
            if let Some(round) = g.round {
                for p in [g.white, g.black].into_iter().flatten() {
                    *per_round.entry((round.number, p)).or_insert(0) += 1;
                }
            }
        }
        let one_a_round = per_round.values().all(|&n| n <= 2);

        // A player in two games of one round, against another opponent.
        let mut in_round: FnvMap<(u32, usize), usize> = sized(2 * self.games.len());
        for (i, g) in self.games.iter().enumerate().filter(|_| one_a_round) {
            let Some(round) = g.round else { continue };
            for p in [g.white, g.black].into_iter().flatten() {
                match in_round.get(&(round.number, p)) {
                    None => {
                        in_round.insert((round.number, p), i);
                    }
                    Some(&earlier) => {
                        let before = &self.games[earlier];
                        let other = |g: &Game| g.side_of(p).and_then(|(o, _)| o);
                        if other(before) == other(g) {
                            continue;
                        }
                        let against = |g: &Game| match other(g) {
                            Some(o) => format!("against {}", name(o)),
                            None => "a bye".to_owned(),
                        };
                        push(
                            i,
                            Code::PairedTwice,
                            format!(
                                "{} plays two games in round {}: {} here, {} in {}; a player has one game a round",
                                name(p),
                                round.number,
                                against(g),
                                against(before),
                                describe(before.game)
                            ),
                        );
                    }
                }
            }
        }

        // Two games on one board of a round.
        let mut on_board: FnvMap<(u32, Option<u32>, u32), usize> = sized(self.games.len());
        for (i, g) in self.games.iter().enumerate() {
            let (Some(round), Some(board)) = (g.round, g.board) else {
                continue;
            };
            let sub = if self.sub_is_game { round.sub } else { None };
            match on_board.get(&(round.number, sub, board)) {
                None => {
                    on_board.insert((round.number, sub, board), i);
                }
                Some(&earlier) => {
                    let before = &self.games[earlier];
                    let pair = |g: &Game| {
                        let (a, b) = (g.white, g.black);
                        (a.min(b), a.max(b))
                    };
                    if pair(before) == pair(g) {
                        continue;
                    }
                    push(
                        i,
                        Code::BoardTwice,
                        format!(
                            "board {board} of round {} holds two games: this one and {}",
                            round.number,
                            describe(before.game)
                        ),
                    );
                }
            }
        }

        // Rounds missing between the first and the last with games, in an
        // event whose rounds look whole: a match, or at least two games a
        // round and half the boards its players fill. A player's collection
        // (one game a round, of the rounds the player's file kept) says
        // nothing of the rounds it lacks.
        let in_rounds = self.games.iter().filter(|g| g.round.is_some()).count();
        let boards = (self.players.len() / 2).max(1);
        let per_round = in_rounds as f64 / self.rounds.len().max(1) as f64;
        let whole =
            self.players.len() == 2 || (per_round >= 2.0 && per_round * 2.0 >= boards as f64);
        for pair in self.rounds.windows(if whole { 2 } else { usize::MAX }) {
            let (before, after) = (pair[0], pair[1]);
            if after > before + 1 {
                let at = self
                    .games
                    .iter()
                    .position(|g| g.round.is_some_and(|r| r.number == after))
                    .unwrap_or(0);
                let missing = if after == before + 2 {
                    format!("round {} has no game", before + 1)
                } else {
                    format!("rounds {}–{} have no games", before + 1, after - 1)
                };
                push(
                    at,
                    Code::RoundMissing,
                    format!(
                        "{missing} in this event, though rounds {before} and {after} have: reported at round {after}'s first game"
                    ),
                );
            }
        }

        // Rounds out of order: once an event, at its first game of an
        // earlier round than one before it; in an event whose rounds look
        // whole (collections merged from players' files are in no order).
        let mut highest: Option<(u32, usize)> = None;
        let mut first_back: Option<(usize, u32)> = None;
        let mut back = 0u32;
        for (i, g) in self.games.iter().enumerate().filter(|_| whole) {
            let Some(round) = g.round else { continue };
            match highest {
                Some((h, _)) if round.number < h => {
                    back += 1;
                    first_back.get_or_insert((i, h));
                }
                Some((h, _)) if round.number == h => {}
                _ => highest = Some((round.number, i)),
            }
        }
        if let Some((i, h)) = first_back {
            let round = self.games[i].round.map_or(0, |r| r.number);
            let mut message = format!(
                "a game of round {round} after games of round {h}: the rounds are out of order"
            );
            if back > 1 {
                let _ = write!(
                    message,
                    " ({back} games of this event stand after a game of a later round)"
                );
            }
            push(i, Code::RoundOrder, message);
        }

        // A pairing repeated beyond what the event's kind allows.
        let allowed = match self.kind {
            _ if !one_a_round => None,
            Kind::RoundRobin { cycles } => Some(cycles),
            Kind::Swiss => Some(1),
            Kind::Knockout | Kind::NoRounds => None,
        };
        if let Some(allowed) = allowed {
            // Pairs that meet in two rounds in a row: more than one, and the
            // event plays mini-matches over rounds (a blitz Swiss of
            // two-game matches numbered as rounds), and those are its rule.
            let mut rounds_of: FnvMap<(usize, usize), Vec<u32>> = sized(self.games.len());
            for g in self.games.iter().filter(|g| !g.unplayed) {
                if let (Some(r), Some(w), Some(b)) = (g.round, g.white, g.black) {
                    rounds_of
                        .entry((w.min(b), w.max(b)))
                        .or_default()
                        .push(r.number);
                }
            }
            let in_a_row = rounds_of
                .values_mut()
                .map(|rs| {
                    rs.sort_unstable();
                    rs.windows(2).any(|w| w[1] == w[0] + 1)
                })
                .filter(|&row| row)
                .count();
            let matches_over_rounds = in_a_row >= 2;
            let mut met: FnvMap<(usize, usize), Vec<(u32, usize)>> = sized(self.games.len());
            let mut order: Vec<usize> = (0..self.games.len()).collect();
            order.sort_by_key(|&i| self.games[i].round.map(|r| (r.number, r.sub)));
            for i in order {
                let g = &self.games[i];
                let (Some(round), Some(w), Some(b)) = (g.round, g.white, g.black) else {
                    continue;
                };
                if g.unplayed || w == b {
                    continue;
                }
                let rounds = met.entry((w.min(b), w.max(b))).or_default();
                if rounds.iter().any(|(r, _)| *r == round.number) {
                    continue;
                }
                let next_round = rounds.last().is_some_and(|(r, _)| r + 1 == round.number);
                rounds.push((round.number, i));
                if matches_over_rounds && next_round {
                    // The second game of a mini-match: one meeting.
                    rounds.pop();
                    continue;
                }
                if rounds.len() as u32 > allowed {
                    let (r, first) = rounds[0];
                    let rule = match self.kind {
                        Kind::RoundRobin { cycles: 1 } => {
                            "in a round-robin two players meet once".to_owned()
                        }
                        Kind::RoundRobin { cycles } => {
                            format!(
                                "in this round-robin of {cycles} cycles two players meet {cycles} times"
                            )
                        }
                        _ => "in a Swiss two players meet once".to_owned(),
                    };
                    push(
                        i,
                        Code::PairingRepeated,
                        format!(
                            "{} and {} meet again in round {}: they met in round {r}, {}; {rule}",
                            name(w),
                            name(b),
                            round.number,
                            describe(self.games[first].game)
                        ),
                    );
                }
            }
        }
        out.sort_by_key(|(at, _)| *at);
        out.into_iter().map(|(_, f)| f).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_is_str_trim() {
        for text in [
            "",
            " ",
            "a",
            " a",
            "a ",
            "Carlsen, M",
            "\u{a0}Carlsen\u{a0}",
            "x\u{3000}",
            "\u{2003}x",
            "\tbye\n",
            "é",
            " é",
            "é ",
            "-",
            "?",
        ] {
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
    }

    #[test]
    fn owned_tags_keep_the_first_of_each_name_decoded() {
        // A tag named twice counts once, the first; a Latin-1 value comes
        // out decoded (and longer than its bytes); tags not read here are
        // left out.
        let pgn = b"[Event \"First\"]\n[Annotator \"x\"]\n[White \"M\xfcller\"]\n\
            [Event \"Second\"]\n[Black \"B\"]\n[Round \"3\"]\n\n1. e4 *\n";
        let scan = crate::input::scan::scan(pgn, true);
        let owned = OwnedTags::of_game(&scan.games[0]);
        let tags = owned.tags();
        assert_eq!(tags.event, Some("First"));
        assert_eq!(tags.white, Some("M\u{fc}ller"));
        assert_eq!(tags.black, Some("B"));
        assert_eq!(tags.round, Some("3"));
        assert_eq!(tags.site, None);
        assert!(tags.has_moves);
    }

    fn add(games: &mut Games, n: u32, round: &str, white: &str, black: &str, result: &str) {
        games.add(
            &GameTags {
                event: Some("Test Open"),
                event_date: Some("2025.01.01"),
                round: Some(round),
                white: Some(white),
                black: Some(black),
                result: Some(result),
                has_moves: true,
                ..GameTags::default()
            },
            n,
        );
    }

    fn describe(n: u32) -> String {
        format!("game {n}")
    }

    /// A four-player round-robin, three rounds.
    fn round_robin() -> Games {
        let mut g = Games::default();
        add(&mut g, 1, "1.1", "A", "D", "1-0");
        add(&mut g, 2, "1.2", "B", "C", "1/2-1/2");
        add(&mut g, 3, "2.1", "D", "C", "0-1");
        add(&mut g, 4, "2.2", "A", "B", "1/2-1/2");
        add(&mut g, 5, "3.1", "B", "D", "1-0");
        add(&mut g, 6, "3.2", "C", "A", "0-1");
        g
    }

    #[test]
    fn a_round_robin_counts_its_points_and_sonneborn_berger() {
        let events = round_robin().events();
        assert_eq!(events.len(), 1);
        let e = &events[0];
        assert_eq!(e.kind, Kind::RoundRobin { cycles: 1 });
        let table: Vec<(&str, u32, u32, Option<u32>)> = e
            .standings
            .iter()
            .map(|s| {
                (
                    e.players[s.player].name.as_str(),
                    s.rank,
                    s.halves,
                    s.tiebreak,
                )
            })
            .collect();
        // A 2.5, B 2, C 1.5, D 0. SB of A: 1*0 (D) + ½*2 (B) + 1*1.5 (C)
        // = 2.5 = 10 quarters.
        assert_eq!(
            table,
            vec![
                ("A", 1, 5, Some(10)),
                // B: ½·2.5 (A) + ½·1.5 (C) + 1·0 (D) = 2.
                ("B", 2, 4, Some(8)),
                // C: ½·2 (B) + 0·2.5 (A) + 1·0 (D) = 1.
                ("C", 3, 3, Some(4)),
                ("D", 4, 0, Some(0)),
            ]
        );
        assert!(e.findings(&describe).is_empty());
    }

    #[test]
    fn planted_pairing_errors_are_each_reported() {
        let mut g = round_robin();
        // B again in round 3, against A on board 2 (C's board).
        add(&mut g, 7, "3.2", "B", "A", "1-0");
        // A second spelling of C.
        add(&mut g, 8, "5.1", "c.", "D", "1-0");
        let events = g.events();
        let f = events[0].findings(&describe);
        let codes: Vec<(Code, u32)> = f.iter().map(|f| (f.code, f.game)).collect();
        assert!(codes.contains(&(Code::PairedTwice, 7)), "{f:#?}");
        assert!(codes.contains(&(Code::BoardTwice, 7)), "{f:#?}");
        assert!(codes.contains(&(Code::NameVariant, 8)), "{f:#?}");
        assert!(codes.contains(&(Code::RoundMissing, 8)), "{f:#?}");
        // A and B met in round 2: a single round-robin of 4 (3 rounds a
        // cycle, 5 rounds seen: 2 cycles) allows it.
        assert_eq!(events[0].kind, Kind::RoundRobin { cycles: 2 });
    }

    #[test]
    fn a_players_collection_lacks_rounds_without_a_finding() {
        // One player's games of a 12-player event: rounds 1, 2, 5, 9.
        let mut g = Games::default();
        for (n, (r, b)) in [("1", "B"), ("2", "C"), ("5", "D"), ("9", "E")]
            .into_iter()
            .enumerate()
        {
            add(&mut g, n as u32, r, "A", b, "1-0");
        }
        assert!(g.events()[0].findings(&describe).is_empty());
        // A match's file holds every game: a round missing is one.
        let mut g = Games::default();
        for (n, r) in ["1", "2", "4"].into_iter().enumerate() {
            add(&mut g, n as u32, r, "A", "B", "1/2-1/2");
        }
        let f = g.events()[0].findings(&describe);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!((f[0].code, f[0].game), (Code::RoundMissing, 2));
    }

    #[test]
    fn formats_of_several_games_a_round_are_not_errors() {
        // A team match where each plays each of the other team, under
        // one round: A plays three games of round 1.
        let mut g = Games::default();
        for (n, (w, b)) in [("A", "X"), ("A", "Y"), ("A", "Z"), ("B", "X"), ("B", "Y")]
            .into_iter()
            .enumerate()
        {
            add(&mut g, n as u32, "1", w, b, "1-0");
        }
        assert!(g.events()[0].findings(&describe).is_empty());
        // A blitz Swiss of two-game matches numbered as rounds: pairs meet
        // in rounds 1 and 2, 3 and 4; a third meeting is still one.
        let mut g = Games::default();
        let rounds = [
            ("1", "A", "B"),
            ("1", "C", "D"),
            ("1", "E", "F"),
            ("1", "G", "H"),
            ("2", "B", "A"),
            ("2", "D", "C"),
            ("2", "F", "E"),
            ("3", "A", "C"),
            ("4", "C", "A"),
            ("5", "A", "B"),
        ];
        for (n, (r, w, b)) in rounds.into_iter().enumerate() {
            add(&mut g, n as u32, r, w, b, "1/2-1/2");
        }
        let e = &g.events()[0];
        assert_eq!(e.kind, Kind::Swiss);
        let f = e.findings(&describe);
        assert_eq!(
            f.iter().map(|f| (f.code, f.game)).collect::<Vec<_>>(),
            vec![(Code::PairingRepeated, 9)],
            "{f:#?}"
        );
    }

    #[test]
    fn a_site_that_is_an_address_is_no_place() {
        // lichess writes each game's page as its Site.
        let mut g = Games::default();
        for (n, (site, w, b)) in [
            ("https://lichess.org/abc", "A", "B"),
            ("https://lichess.org/def", "C", "D"),
        ]
        .into_iter()
        .enumerate()
        {
            g.add(
                &GameTags {
                    event: Some("Rated Blitz tournament https://lichess.org/tournament/x"),
                    site: Some(site),
                    round: Some("1"),
                    white: Some(w),
                    black: Some(b),
                    result: Some("1-0"),
                    has_moves: true,
                    ..GameTags::default()
                },
                n as u32,
            );
        }
        let events = g.events();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].site, "");
        // Two places are two events.
        let mut g = Games::default();
        for (n, site) in ["Wijk aan Zee", "Hastings"].into_iter().enumerate() {
            g.add(
                &GameTags {
                    event: Some("It"),
                    date: Some("1960.01.05"),
                    site: Some(site),
                    round: Some("1"),
                    white: Some("A"),
                    black: Some("B"),
                    result: Some("1-0"),
                    has_moves: true,
                    ..GameTags::default()
                },
                n as u32,
            );
        }
        assert_eq!(g.events().len(), 2);
    }

    #[test]
    fn a_knockout_mini_match_is_not_a_clash() {
        let mut g = Games::default();
        for (n, (r, w, b)) in [
            ("1.1", "A", "B"),
            ("1.1", "C", "D"),
            ("1.2", "B", "A"),
            ("1.2", "D", "C"),
            ("1.1", "E", "F"),
            ("1.2", "F", "E"),
        ]
        .into_iter()
        .enumerate()
        {
            add(&mut g, n as u32, r, w, b, "1/2-1/2");
        }
        let e = &g.events()[0];
        assert!(e.sub_is_game);
        assert_eq!(e.kind, Kind::Knockout);
        assert!(
            e.findings(&describe).is_empty(),
            "{:#?}",
            e.findings(&describe)
        );
    }

    #[test]
    fn byes_and_forfeits_score_and_are_not_played() {
        let mut g = Games::default();
        add(&mut g, 1, "1", "A", "B", "1-0");
        add(&mut g, 2, "1", "C", "BYE", "1-0");
        g.add(
            &GameTags {
                event: Some("Test Open"),
                event_date: Some("2025.01.01"),
                round: Some("2"),
                white: Some("A"),
                black: Some("C"),
                result: Some("0-1"),
                termination: Some("forfeit"),
                has_moves: false,
                ..GameTags::default()
            },
            3,
        );
        // A Swiss: a forfeit is no meeting, they may be paired again.
        add(&mut g, 4, "3", "C", "A", "1/2-1/2");
        let e = &g.events()[0];
        let c = e.players.iter().position(|p| p.name == "C").unwrap();
        let row = e.standings.iter().find(|s| s.player == c).unwrap();
        assert_eq!((row.halves, row.played, row.unplayed), (5, 1, 2));
        assert!(e.players.iter().all(|p| p.name != "BYE"));
        assert!(
            !e.findings(&describe)
                .iter()
                .any(|f| f.code == Code::PairingRepeated),
            "{:#?}",
            e.findings(&describe)
        );
    }

    #[test]
    fn one_fide_id_is_one_player_and_a_collections_order_is_not_judged() {
        let mut g = Games::default();
        let mut tags = GameTags {
            event: Some("E"),
            date: Some("2024.05.01"),
            round: Some("2"),
            white: Some("Nepomniachtchi, Ian"),
            white_fide_id: Some("4168119"),
            black: Some("X"),
            result: Some("1-0"),
            has_moves: true,
            ..GameTags::default()
        };
        g.add(&tags, 1);
        tags.round = Some("1");
        tags.white = Some("Nepo");
        tags.black = Some("Y");
        g.add(&tags, 2);
        tags.black = Some("Z");
        tags.white = Some("W");
        tags.white_fide_id = None;
        g.add(&tags, 3);
        let e = &g.events()[0];
        // Nepomniachtchi (twice), X, Y, W, Z.
        assert_eq!(e.players.len(), 5);
        let f = e.findings(&describe);
        let codes: Vec<(Code, u32)> = f.iter().map(|f| (f.code, f.game)).collect();
        // Round 1 after round 2, but in three games of five players: a
        // collection's order, not said (the planted fixture's whole
        // round-robin says it).
        assert_eq!(codes, vec![(Code::NameVariant, 2)], "{f:#?}");
        assert!(f[0].message.contains("FideId 4168119"), "{}", f[0].message);
    }
}
