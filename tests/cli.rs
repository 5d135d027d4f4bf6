//! The command line as a whole: help, version, usage errors, the man page.

use clap::CommandFactory;
use pgnkit::cli::Cli;

use crate::util::{code, run, stderr, stdout};

/// Renders the man pages: `pgnkit.1` and one page per subcommand.
fn render_man_pages() -> Vec<(String, Vec<u8>)> {
    let cmd = Cli::command();
    let mut pages = Vec::new();
    let mut top = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut top)
        .expect("render man page");
    pages.push(("pgnkit.1".to_owned(), top));
    for sub in cmd.get_subcommands() {
        let name = format!("pgnkit-{}", sub.get_name());
        let mut page = Vec::new();
        clap_mangen::Man::new(sub.clone().name(name.clone()))
            .render(&mut page)
            .expect("render man page");
        pages.push((format!("{name}.1"), page));
    }
    pages
}

/// `man/` is generated from `cli.rs`; this test fails when it drifts.
/// Regenerate with `PGNKIT_UPDATE_MAN=1 cargo test man_pages`.
#[test]
fn man_pages_match_the_cli() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    for (name, page) in render_man_pages() {
        let path = dir.join(&name);
        if std::env::var_os("PGNKIT_UPDATE_MAN").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &page).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(
            committed == page,
            "man/{name} is out of date: run PGNKIT_UPDATE_MAN=1 cargo test man_pages"
        );
    }
}

#[test]
fn help_documents_exit_codes() {
    let out = run(&["--help"], None);
    assert_eq!(code(&out), 0);
    let help = stdout(&out);
    for sub in ["validate", "annotate-outcome", "perft", "convert"] {
        assert!(help.contains(sub), "{help}");
    }
    assert!(help.contains("2  could not do the job"), "{help}");
    let out = run(&["validate", "--help"], None);
    assert!(stdout(&out).contains("--threads"), "{}", stdout(&out));
}

#[test]
fn usage_errors_exit_2() {
    let out = run(&["validate", "--format", "xml"], None);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("xml"), "{}", stderr(&out));
    let out = run(&["validate", "-j", "0"], None);
    assert_eq!(code(&out), 2);
    let out = run(&["frobnicate"], None);
    assert_eq!(code(&out), 2);
}
