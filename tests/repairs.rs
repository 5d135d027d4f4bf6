//! The move that was probably meant (issue 23): real games of the fixtures
//! with one move altered in each way a scoresheet goes wrong, and the
//! original move expected back as the full repair; and games that no
//! repair mends.

use pgnkit::input::scan::scan;
use pgnkit::rules::finding::{Code, Finding};
use pgnkit::rules::laws::LawsChoice;
use pgnkit::rules::notation::move_name;
use pgnkit::rules::repair::{At, Repairs};
use pgnkit::rules::replay::replay;
use pgnkit::tasks::validate::check_game;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color};

/// A real game as its moves in SAN (as shakmaty writes them) and result.
struct Game {
    tags: String,
    moves: Vec<String>,
    result: String,
}

/// The games of `path` that replay from the standard position to the end.
fn games(path: &str) -> Vec<Game> {
    let bytes = std::fs::read(path).unwrap();
    let scanned = scan(&bytes, true);
    let mut out = Vec::new();
    for g in &scanned.games {
        if g.tag("FEN").is_some() || g.tag("Variant").is_some() {
            continue;
        }
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        let mut ok = true;
        for t in g.main_line() {
            let Ok(san) = SanPlus::from_ascii(t.text) else {
                ok = false;
                break;
            };
            let Ok(mv) = san.san.to_move(&pos) else {
                ok = false;
                break;
            };
            moves.push(SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string());
        }
        let result = g.tag_text("Result").map(|r| r.into_owned());
        if let Some(result) = result
            && ok
            && moves.len() >= 12
        {
            let tags = g
                .tags
                .iter()
                .map(|t| {
                    let name = String::from_utf8_lossy(t.name);
                    format!("[{name} \"{}\"]\n", t.text().replace('"', "'"))
                })
                .collect();
            out.push(Game {
                tags,
                moves,
                result,
            });
        }
    }
    out
}

/// The game with `moves` instead of its own, as PGN.
fn pgn(game: &Game, moves: &[String]) -> String {
    format!("{}\n{} {}\n", game.tags, moves.join(" "), game.result)
}

/// The first finding about a move that could not be played.
fn move_error(text: &str) -> Option<Finding> {
    let scanned = scan(text.as_bytes(), true);
    check_game(&scanned.games[0], LawsChoice::GameDate)
        .findings
        .into_iter()
        .find(|f| {
            matches!(
                f.code,
                Code::IllegalMove | Code::AmbiguousMove | Code::Syntax
            ) && f.ply.is_some()
        })
}

/// Every repair of the best rank for the move `error` is about.
fn all_best(text: &str, error: &Finding) -> Repairs {
    let scanned = scan(text.as_bytes(), true);
    let game = &scanned.games[0];
    let done = replay(game, Chess::default(), |_| {});
    let ply = error.ply.unwrap();
    let tokens: Vec<_> = game.main_line().skip(ply as usize - 1).collect();
    let at = At {
        pos: &done.pos,
        ply,
        first_move: (1, Color::White),
    };
    let numbers = game.numbered_plies((1, Color::White));
    pgnkit::rules::repair::numbered_repairs(
        at,
        &tokens,
        &numbers[ply as usize - 1..],
        pgnkit::rules::game::recorded_result(game),
    )
}

fn name(ply: usize, san: &str) -> String {
    move_name(ply as u32, (1, Color::White), san)
}

/// The ways a move is miswritten, as (what was done, the altered moves, the
/// ply whose move fails, the repair expected in the suggestion).
fn alterations(game: &Game, k: usize) -> Vec<(&'static str, Vec<String>, usize, String)> {
    let moves = &game.moves;
    let ply = k + 1;
    let orig = &moves[k];
    let mut out = Vec::new();
    let with = |i: usize, text: String| {
        let mut m = moves.clone();
        m[i] = text;
        m
    };
    let bare = orig.trim_end_matches(['+', '#']);
    let first = bare.chars().next().unwrap();
    if "NBRQK".contains(first) {
        // Another piece letter.
        for other in ['N', 'B', 'R', 'Q'] {
            if other != first {
                let text = format!("{other}{}", &bare[1..]);
                out.push(("piece letter", with(k, text), ply, name(ply, orig)));
            }
        }
    }
    // The neighbouring rank.
    if let Some(pos) = bare.rfind(|c: char| c.is_ascii_digit()) {
        let rank = bare.as_bytes()[pos];
        for r in [rank - 1, rank + 1] {
            if (b'1'..=b'8').contains(&r) {
                let mut text = bare.as_bytes().to_vec();
                text[pos] = r;
                let text = String::from_utf8(text).unwrap();
                out.push(("neighbouring square", with(k, text), ply, name(ply, orig)));
            }
        }
    }
    // A capture mark that does not fit.
    if let Some(i) = bare.find('x') {
        let text = format!("{}{}", &bare[..i], &bare[i + 1..]);
        out.push(("capture mark", with(k, text), ply, name(ply, orig)));
    } else if "NBRQK".contains(first) {
        let text = format!("{first}x{}", &bare[1..]);
        out.push(("capture mark", with(k, text), ply, name(ply, orig)));
    }
    // A move left out: the next move is written in its place.
    if k + 2 < moves.len() {
        let mut m = moves.clone();
        m.remove(k);
        out.push((
            "missing move",
            m,
            ply,
            format!(
                "{} (missing) {}",
                name(ply, orig),
                name(ply + 1, &moves[k + 1])
            ),
        ));
    }
    // Two moves in the wrong order.
    if k + 2 < moves.len() {
        let mut m = moves.clone();
        m.swap(k, k + 1);
        let reply = name(ply + 1, &moves[k + 1]);
        let reply = match reply.split_once("...") {
            Some((_, r)) if ply % 2 == 1 => r.to_owned(),
            _ => reply,
        };
        out.push((
            "wrong order",
            m,
            ply,
            format!("{} {reply} (in the other order)", name(ply, orig)),
        ));
    }
    // A move written twice.
    {
        let mut m = moves.clone();
        m.insert(k + 1, orig.clone());
        out.push((
            "written twice",
            m,
            ply + 1,
            format!("{} (written by mistake)", name(ply + 1, orig)),
        ));
    }
    out
}

#[test]
fn real_games_with_a_move_altered_get_the_original_back() {
    let mut tried = 0;
    // Cases where the original is the one best repair.
    let mut alone = 0;
    let mut failures = Vec::new();
    for path in [
        "fixtures/pgn/twic1599_excerpt.pgn",
        "fixtures/pgn/lichess_clocks.pgn",
    ] {
        for game in games(path) {
            // Plies spread over the game, not the last two (their repair
            // has little to replay).
            let n = game.moves.len();
            for k in (3..n - 2).step_by(9) {
                for (how, moves, fails_at, want) in alterations(&game, k) {
                    let text = pgn(&game, &moves);
                    let Some(error) = move_error(&text) else {
                        continue; // the altered move is another legal game
                    };
                    if error.ply != Some(fails_at as u32) {
                        continue; // legal for a while: another slip
                    }
                    tried += 1;
                    let suggestion = error.suggestion.clone().unwrap_or_default();
                    // The original is a full repair of the best rank: shown,
                    // or one of the ties past the three shown, which the
                    // report counts.
                    let found = all_best(&text, &error);
                    let original = found
                        .best
                        .iter()
                        .position(|r| r.describe() == want && r.is_full());
                    let full = format!("{want} (the remaining ");
                    let shown = suggestion.starts_with(&full)
                        || suggestion.contains(&format!("; or {full}"));
                    let counted = suggestion.contains(&format!(
                        "with {} more as good",
                        found.best.len().saturating_sub(3)
                    ));
                    let ok = match original {
                        Some(i) if i < 3 => shown,
                        Some(_) => counted,
                        None => false,
                    };
                    if !ok {
                        failures.push(format!(
                            "{path} ply {fails_at} {how}: want {want}, got {suggestion:?}"
                        ));
                    }
                    if original.is_some_and(|i| i < 3) && found.best.len() == 1 {
                        alone += 1;
                    }
                }
            }
        }
    }
    assert!(tried >= 100, "only {tried} cases");
    // Most slips (nine in ten) leave one best repair: the replay tells
    // them apart.
    assert!(alone * 5 > tried * 4, "{alone} of {tried} alone");
    assert!(
        failures.is_empty(),
        "{} of {tried}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn no_repair_when_nothing_replays_further() {
    // Both sides' moves go on in a way no single slip explains: the white
    // queen captures on squares it cannot reach from any repair.
    let text = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Qh8 Qh1 3. Qxh7 Qxh2 4. Qxg8 Qxg1 *\n";
    let error = move_error(text).unwrap();
    assert_eq!(error.ply, Some(3));
    assert!(
        error
            .suggestion
            .as_deref()
            .is_none_or(|s| !s.contains("the remaining 5 plies replay")),
        "{:?}",
        error.suggestion
    );
    // Nothing readable at all.
    let text = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Zz9 Zz9 Zz9 Zz9 *\n";
    assert_eq!(move_error(text).unwrap().suggestion, None);
    // The last move: only a mate the result names is evidence.
    let text = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qf7 1-0\n";
    assert_eq!(
        move_error(text).unwrap().suggestion.as_deref(),
        Some("4.Qxf7# (it is the last move)")
    );
    let text = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n";
    assert_eq!(move_error(text).unwrap().suggestion, None);
}

/// The movetext of `moves`, each at the ply given, numbered as a scoresheet
/// numbers them: `N.` before White's moves, `N...` before a Black move that
/// does not follow its White move.
fn numbered(game: &Game, moves: &[(usize, &str)]) -> String {
    let mut text = Vec::new();
    let mut last = 0;
    for &(ply, san) in moves {
        let number = ply.div_ceil(2);
        if ply % 2 == 1 {
            text.push(format!("{number}. {san}"));
        } else if last + 1 == ply {
            text.push(san.to_owned());
        } else {
            text.push(format!("{number}... {san}"));
        }
        last = ply;
    }
    format!("{}\n{} {}\n", game.tags, text.join(" "), game.result)
}

#[test]
fn move_numbers_say_where_a_move_is_missing() {
    // The same real games with a move left out, once without move numbers
    // and once with the numbers the scoresheet gave the moves left: the
    // numbers never lose the original, and they leave fewer ties.
    let (mut tried, mut ties_bare, mut ties_numbered) = (0, 0, 0);
    for path in [
        "fixtures/pgn/twic1599_excerpt.pgn",
        "fixtures/pgn/lichess_clocks.pgn",
    ] {
        for game in games(path) {
            let n = game.moves.len();
            for k in (3..n - 2).step_by(5) {
                let kept: Vec<(usize, &str)> = game
                    .moves
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != k)
                    .map(|(i, m)| (i + 1, m.as_str()))
                    .collect();
                let want = format!(
                    "{} (missing) {}",
                    name(k + 1, &game.moves[k]),
                    name(k + 2, &game.moves[k + 1])
                );
                let bare: Vec<String> = kept.iter().map(|(_, m)| (*m).to_owned()).collect();
                let bare = pgn(&game, &bare);
                let with_numbers = numbered(&game, &kept);
                let (Some(e1), Some(e2)) = (move_error(&bare), move_error(&with_numbers)) else {
                    continue;
                };
                if e1.ply != Some(k as u32 + 1) || e2.ply != e1.ply {
                    continue;
                }
                tried += 1;
                let (b1, b2) = (all_best(&bare, &e1), all_best(&with_numbers, &e2));
                for best in [&b1, &b2] {
                    assert!(
                        best.best
                            .iter()
                            .any(|r| r.describe() == want && r.is_full()),
                        "{path} ply {}: {want} not among {:?}",
                        k + 1,
                        best.best.iter().map(|r| r.describe()).collect::<Vec<_>>()
                    );
                }
                assert!(b2.best.len() <= b1.best.len());
                ties_bare += b1.best.len() - 1;
                ties_numbered += b2.best.len() - 1;
                // The numbered game's repairs contradict no number.
                assert!(b2.best.iter().all(|r| r.numbers_disagree == 0));
            }
        }
    }
    assert!(tried >= 50, "only {tried} cases");
    assert!(
        ties_numbered < ties_bare,
        "{ties_numbered} ties with numbers, {ties_bare} without"
    );
}

/// The archive of `fixtures/repairs/planted.pgn`: real games with one
/// error of each kind a recorder makes planted by `plant.py` (the original
/// moves kept in `Planted*` tags). Each is found, and the first repair
/// proposed is the original.
#[test]
fn planted_errors_of_every_kind_are_repaired_to_the_original() {
    let bytes = std::fs::read("fixtures/repairs/planted.pgn").unwrap();
    let scanned = scan(&bytes, true);
    assert_eq!(scanned.games.len(), 12);
    let mut kinds = std::collections::BTreeSet::new();
    for (i, game) in scanned.games.iter().enumerate() {
        let tag = |name: &str| game.tag(name).unwrap().text().into_owned();
        let kind = tag("PlantedKind");
        let ply: usize = tag("PlantedPly").parse().unwrap();
        let original: Vec<String> = tag("PlantedOriginal")
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        // The original moves as a repair names them: numbered from their
        // ply, a Black move after a White one without its number.
        let named = |from: usize, moves: &[String]| -> String {
            let mut out: Vec<String> = Vec::new();
            for (j, m) in moves.iter().enumerate() {
                let p = from + j;
                if j > 0 && p.is_multiple_of(2) {
                    out.push(m.clone());
                } else {
                    out.push(name(p, m));
                }
            }
            out.join(" ")
        };
        let findings = check_game(game, LawsChoice::GameDate).findings;
        let found = findings.iter().find(|f| {
            matches!(
                f.code,
                Code::IllegalMove | Code::AmbiguousMove | Code::MoveAfterEnd | Code::PlayedOn
            )
        });
        let Some(found) = found else {
            panic!("game {}: {kind} not found", i + 1);
        };
        let suggestion = found.suggestion.clone().unwrap_or_default();
        let want = match kind.as_str() {
            "wrong-legal" => format!(
                "{} for the {} written (",
                name(ply, &original[0]),
                name(ply, &tag("PlantedWritten"))
            ),
            "neighbour-square" => format!("{} (", name(ply, &original[0])),
            "swapped" => format!("{} (in the other order)", named(ply, &original)),
            "swapped-one-side" => format!("{} (the two ", named(ply, &original)),
            "skipped-pair" => format!("{} (missing) ", named(ply, &original)),
            "after-mate" => format!(
                "{} as the last move (the {} plies after it dropped)",
                name(ply - 1, &original[0]),
                tag("PlantedWritten").split_whitespace().count()
            ),
            other => panic!("unknown kind {other}"),
        };
        assert!(
            suggestion.starts_with(&want),
            "game {} ({kind} at ply {ply}): want {want:?}, got {suggestion:?}",
            i + 1
        );
        // Found at the planted move, or where the record stops replaying
        // after it (a legal slip or a skipped pair is caught later).
        let at = found.ply.unwrap() as usize;
        assert!(at >= ply, "game {}: found at ply {at}", i + 1);
        kinds.insert(kind);
    }
    assert_eq!(kinds.len(), 6, "{kinds:?}");
}

/// `validate --fix`: the planted archive with every full repair applied as
/// a minimal edit. Only the lines of the planted errors change, each with
/// pgnkit's comment; the fixed file validates without the repaired
/// findings (the one tie, not applied, stays); the report is the same as
/// without `--fix`.
#[test]
fn fix_applies_each_full_repair_as_a_minimal_edit() {
    use crate::util::{code, run, stderr};
    let dir = tempfile::tempdir().unwrap();
    let fixed = dir.path().join("fixed.pgn");
    let input = "fixtures/repairs/planted.pgn";
    let plain = run(&["validate", "-q", "-f", "csv", input], None);
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            "--fix",
            fixed.to_str().unwrap(),
            input,
        ],
        None,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
    let before = std::fs::read_to_string(input).unwrap();
    let after = std::fs::read_to_string(&fixed).unwrap();
    let (before, after): (Vec<&str>, Vec<&str>) =
        (before.lines().collect(), after.lines().collect());
    assert_eq!(before.len(), after.len());
    let changed: Vec<(&str, &str)> = before
        .iter()
        .zip(&after)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (*a, *b))
        .collect();
    // Eleven of the twelve games: all but the tie.
    assert_eq!(changed.len(), 11, "{changed:#?}");
    for (was, now) in &changed {
        assert!(now.contains("{pgnkit: "), "{now}");
        // Outside pgnkit's comment, only move tokens changed: the words of
        // the line without the comment are those written, but for a few.
        let stripped: String = {
            let start = now.find("{pgnkit: ").unwrap();
            let end = start + now[start..].find('}').unwrap() + 1;
            format!("{}{}", &now[..start], &now[end..])
        };
        let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        let (a, b) = (words(was), words(&stripped));
        let differing = a.iter().filter(|w| !b.contains(w)).count()
            + b.iter().filter(|w| !a.contains(w)).count();
        assert!(differing <= 6, "{was}\n{now}");
    }
    // Validated again: of the move errors only the tie is left, and no
    // moves after a mate.
    let again = run(
        &[
            "validate",
            "-q",
            "--only",
            "illegal-move,ambiguous-move,syntax,move-after-end,played-on",
            fixed.to_str().unwrap(),
        ],
        None,
    );
    let text = String::from_utf8_lossy(&again.stdout).into_owned();
    let games: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("dead position"))
        .collect();
    assert_eq!(games.len(), 1, "{text}");
    assert!(
        games[0].contains("game 3 ") && games[0].contains("(a tie)"),
        "{text}"
    );
    // The file is refused where the product or an input is.
    for (flags, why) in [
        (vec!["--fix", input, input], "refusing"),
        (
            vec![
                "--fix",
                fixed.to_str().unwrap(),
                "--byte-range",
                "0..100",
                input,
            ],
            "--byte-range",
        ),
    ] {
        let mut args = vec!["validate", "-q"];
        args.extend(flags);
        let out = run(&args, None);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
    }
    assert_eq!(
        std::fs::read_to_string(input).unwrap().lines().count(),
        before.len()
    );
}
