//! `pgnkit perft`: [`crate::api::perft`] on the command line, its rows as
//! text ([`PerftText`]).

use std::io::Write;

use crate::api::{self, PerftText, Stderr};
use crate::cli::PerftArgs;
use crate::error::Error;
use crate::exit::ExitStatus;
use crate::output::diag;

/// Runs `perft`.
///
/// # Errors
///
/// As [`api::perft`]; a FEN the shell split into its fields.
pub fn run(args: &PerftArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    if !args.fen_rest.is_empty() {
        // The shell split an unquoted FEN into its fields.
        let fen = args.fen.iter().chain(&args.fen_rest);
        let fen = fen.map(String::as_str).collect::<Vec<_>>().join(" ");
        return Err(Error::usage(format!(
            "the FEN was given as {} arguments: quote it, as in pgnkit perft \"{}\"",
            args.fen_rest.len() + 1,
            diag::clipped(&fen, diag::SHOWN)
        )));
    }
    api::perft(
        &args.options,
        args.fen.as_deref(),
        &mut PerftText(out),
        &Stderr,
    )
}
