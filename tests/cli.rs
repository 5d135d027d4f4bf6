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

/// Writes the completion script for `shell` to a temporary file.
fn completion_script(shell: &str) -> tempfile::NamedTempFile {
    let out = run(&["completions", shell], None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!out.stdout.is_empty());
    let mut file = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut file, &out.stdout).unwrap();
    file
}

/// Whether `program` runs here (zsh and fish are optional).
fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The bash script parses, and sourcing it registers a completion for
/// `pgnkit` that offers the subcommands.
#[test]
fn bash_completions_load() {
    let script = completion_script("bash");
    let path = script.path().to_str().unwrap();
    let check = std::process::Command::new("bash")
        .args(["-n", path])
        .output()
        .expect("bash runs");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // Complete `pgnkit val` as bash would and list the candidates.
    let probe = format!(
        "source {path} && complete -p pgnkit && \
         COMP_WORDS=(pgnkit val) COMP_CWORD=1 COMP_LINE='pgnkit val' COMP_POINT=10 && \
         _pgnkit pgnkit val pgnkit && printf '%s\\n' \"${{COMPREPLY[@]}}\""
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &probe])
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("-F _pgnkit pgnkit"), "{text}");
    assert!(text.lines().any(|l| l == "validate"), "{text}");
}

/// zsh and fish accept their scripts, where they are installed.
#[test]
fn zsh_and_fish_completions_parse() {
    for (shell, check) in [("zsh", "-n"), ("fish", "--no-execute")] {
        if !have(shell) {
            continue;
        }
        let script = completion_script(shell);
        let out = std::process::Command::new(shell)
            .args([check, script.path().to_str().unwrap()])
            .output()
            .expect("shell runs");
        assert!(
            out.status.success(),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every shell clap_complete knows gets a script.
#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["completions", shell], None);
        assert_eq!(code(&out), 0, "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("pgnkit"), "{shell}");
    }
    assert_eq!(code(&run(&["completions", "tcsh"], None)), 2);
}
