//! Packs the embedded openings table (lichess's TSV files in
//! `src/rules/openings/lichess/`) into positions at build time, so that no
//! run of pgnkit replays its 3,800 lines: `src/rules/openings.rs` reads the
//! bytes back (its `unpack` says the layout). The TSV files stay the
//! source; the reading is the crate's own module.

use std::path::Path;

use shakmaty::{EnPassantMode, Position, Role};

#[path = "src/rules/openings/tsv.rs"]
#[allow(dead_code)]
mod tsv;

fn main() {
    let dir = Path::new("src/rules/openings/lichess");
    println!("cargo::rerun-if-changed=src/rules/openings/tsv.rs");
    let mut lines = Vec::new();
    for name in ["a", "b", "c", "d", "e"] {
        let path = dir.join(format!("{name}.tsv"));
        println!("cargo::rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).expect("the openings table is in the tree");
        if let Err(e) = tsv::read_tsv(&text, &mut lines) {
            panic!("{}:{}: {}", path.display(), e.line, e.message);
        }
    }
    // In the order the table keeps them: by occupied squares, stable (the
    // first of a position named twice first), so that a run sorts nothing.
    lines.sort_by_key(|(pos, ..)| pos.board().occupied().0);
    let mut out = Vec::with_capacity(lines.len() * 128);
    for (pos, plies, eco, name) in &lines {
        let board = pos.board();
        for role in Role::ALL {
            out.extend_from_slice(&board.by_role(role).0.to_le_bytes());
        }
        for color in [shakmaty::Color::White, shakmaty::Color::Black] {
            out.extend_from_slice(&board.by_color(color).0.to_le_bytes());
        }
        out.extend_from_slice(&pos.castles().castling_rights().0.to_le_bytes());
        out.push(u8::from(pos.turn() == shakmaty::Color::Black));
        out.push(pos.ep_square(EnPassantMode::Legal).map_or(64, u8::from));
        out.push(u8::try_from(*plies).expect("a line of under 256 plies"));
        out.push(u8::try_from(eco.len()).expect("a short ECO code"));
        out.extend_from_slice(eco.as_bytes());
        out.extend_from_slice(
            &u16::try_from(name.len())
                .expect("a name under 64 KiB")
                .to_le_bytes(),
        );
        out.extend_from_slice(name.as_bytes());
    }
    let target = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("lichess-openings.bin");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
