//! The command line as a whole: help, version, usage errors, the man page.

use clap::CommandFactory;
use pgnkit::cli::Cli;

use crate::util::{code, fixture, run, stderr, stdout};

/// Escapes one line of text for roff: backslashes, hyphens (so they stay
/// ASCII minus signs) and a leading `.` or `'` (a control line).
fn roff_escape(line: &str) -> String {
    let text = line.replace('\\', "\\e").replace('-', "\\-");
    if text.starts_with('.') || text.starts_with('\'') {
        format!("\\&{text}")
    } else {
        text
    }
}

/// Renders one man page: clap_mangen's title, name, description and
/// options, with the usage line `--help` prints as the synopsis and the
/// sections `--help` ends with (columns, codes, exit status, examples).
fn render_page(cmd: &clap::Command, page_name: &str, help_name: &str) -> Vec<u8> {
    let man = clap_mangen::Man::new(cmd.clone().display_name(page_name.to_owned()))
        .source(format!("pgnkit {}", env!("CARGO_PKG_VERSION")));
    let mut page = Vec::new();
    man.render_title(&mut page).unwrap();
    man.render_name_section(&mut page).unwrap();
    let usage = cmd.clone().render_usage().to_string();
    let usage = usage.trim_start_matches("Usage: ");
    let bin = cmd.get_bin_name().unwrap_or(cmd.get_name());
    let rest = usage
        .strip_prefix(bin)
        .expect("usage starts with the command");
    page.extend(
        format!(
            ".SH SYNOPSIS\n\\fB{}\\fR{}\n",
            roff_escape(bin),
            roff_escape(rest)
        )
        .bytes(),
    );
    man.render_description_section(&mut page).unwrap();
    man.render_options_section(&mut page).unwrap();
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut page).unwrap();
    }
    for section in pgnkit::cli::help_sections(help_name) {
        page.extend(format!(".SH {}\n.nf\n", section.title.to_uppercase()).bytes());
        for line in section.body.lines() {
            page.extend(roff_escape(line).bytes());
            page.push(b'\n');
        }
        page.extend(b".fi\n");
    }
    man.render_version_section(&mut page).unwrap();
    // Each clap_mangen part starts with the same two-line preamble: keep one.
    let text = String::from_utf8(page).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let preamble = [lines[0], lines[1]];
    let mut i = 2;
    while i + 1 < lines.len() {
        if lines[i..i + 2] == preamble {
            lines.drain(i..i + 2);
        } else {
            i += 1;
        }
    }
    (lines.join("\n") + "\n").into_bytes()
}

/// Renders the man pages: `pgnkit.1` and one page per subcommand, from the
/// same definitions as `--help`.
fn render_man_pages() -> Vec<(String, Vec<u8>)> {
    let mut cmd = Cli::command();
    cmd.build();
    // `pgnkit help` is clap's, and has no page of its own.
    let cmd = cmd.mut_subcommand("help", |help| help.hide(true));
    let mut pages = vec![("pgnkit.1".to_owned(), render_page(&cmd, "pgnkit", "pgnkit"))];
    for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let name = format!("pgnkit-{}", sub.get_name());
        pages.push((format!("{name}.1"), render_page(sub, &name, sub.get_name())));
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

/// Each kind of failure of `pgnkit::Error` (a refused usage, an unreadable
/// input, an unwritable `-o`) exits 2 with one line naming what failed.
/// See: issue 21.
#[test]
fn failures_exit_2_naming_the_file() {
    let input = fixture("pgn/wrong_result_mate.pgn");
    let input = input.to_str().unwrap();
    let out = run(&["convert", "--to", "pgn", "--tags", "Event", input], None);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "pgnkit: --tags applies to --to csv only (parquet and arrow keep every tag in the `tags` map)\n"
    );

    let out = run(&["validate", "-q", "no/such/input.pgn"], None);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no/such/input.pgn: cannot open: "),
        "{}",
        stderr(&out)
    );

    let out = run(
        &["validate", "-q", "-o", "no/such/dir/report.txt", input],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("pgnkit: cannot create no/such/dir/report.txt: "),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
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

/// Runs `shell` with `args`, asserts it succeeds, returns its stdout.
fn shell_accepts(shell: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(shell)
        .args(args)
        .output()
        .expect("the shell runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{shell} {args:?}: {text}{err}");
    text
}

/// The bash script parses, and sourcing it registers a completion for
/// `pgnkit` that offers the subcommands.
#[test]
fn bash_completions_load() {
    let script = completion_script("bash");
    let path = script.path().to_str().unwrap();
    shell_accepts("bash", &["-n", path]);
    // Complete `pgnkit val` as bash would and list the candidates.
    let probe = format!(
        "source {path} && complete -p pgnkit && \
         COMP_WORDS=(pgnkit val) COMP_CWORD=1 COMP_LINE='pgnkit val' COMP_POINT=10 && \
         _pgnkit pgnkit val pgnkit && printf '%s\\n' \"${{COMPREPLY[@]}}\""
    );
    let text = shell_accepts("bash", &["-c", &probe]);
    assert!(text.contains("-F _pgnkit pgnkit"), "{text}");
    assert!(text.lines().any(|l| l == "validate"), "{text}");
}

/// `shell` accepts its script (checked with `check`). The shell must be
/// installed: a test that found no shell and passed would check nothing.
fn completions_parse(shell: &str, check: &str) {
    assert!(
        have(shell),
        "{shell} is not installed (apt-get install {shell})"
    );
    let script = completion_script(shell);
    shell_accepts(shell, &[check, script.path().to_str().unwrap()]);
}

/// zsh accepts its script. Ignored by `cargo test` (zsh is optional);
/// `.ci/run` installs zsh and fish and runs both with `--ignored`.
#[test]
#[ignore = "needs zsh: cargo test -- --ignored completions_parse"]
fn zsh_completions_parse() {
    completions_parse("zsh", "-n");
}

/// fish accepts its script; ignored as the zsh test is.
#[test]
#[ignore = "needs fish: cargo test -- --ignored completions_parse"]
fn fish_completions_parse() {
    completions_parse("fish", "--no-execute");
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

/// The commands `--help` ends with: the subcommands that read files.
const DOCUMENTED: [&str; 6] = [
    "pgnkit",
    "validate",
    "annotate-outcome",
    "perft",
    "convert",
    "merge",
];

/// Every example of `--help` runs as written from the repository root (in
/// a scratch directory holding `fixtures/`, so files they write go there)
/// and does its job: exit status 0, or 1 where it finds problems.
#[test]
fn help_examples_run() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        dir.path().join("fixtures"),
    )
    .unwrap();
    for command in DOCUMENTED {
        let examples = pgnkit::cli::examples(command);
        assert!(examples.len() >= 2, "{command} has examples");
        for example in examples {
            let out = crate::readme::sh(example.command, dir.path(), 0);
            let text = String::from_utf8_lossy(&out.stdout);
            let status = out.status.code();
            assert!(
                matches!(status, Some(0 | 1)),
                "{}: {status:?}\n{text}",
                example.command
            );
            assert!(!text.contains("error:"), "{}:\n{text}", example.command);
        }
    }
}

/// `--help` ends with the examples, and `-h` shows them too.
#[test]
fn help_ends_with_examples() {
    for command in DOCUMENTED {
        let last = pgnkit::cli::examples(command).last().unwrap();
        let last_line = last.command.lines().last().unwrap().trim();
        for flag in ["--help", "-h"] {
            let args: Vec<&str> = if command == "pgnkit" {
                vec![flag]
            } else {
                vec![command, flag]
            };
            let out = run(&args, None);
            let help = stdout(&out);
            assert!(help.contains("Examples:"), "{command} {flag}:\n{help}");
            assert_eq!(
                help.trim_end().lines().last().unwrap().trim(),
                last_line,
                "{command} {flag}"
            );
        }
    }
}

/// The codes and columns `validate --help` lists are the ones the report
/// writes: every column of a finding, and every finding code (the same
/// list is `docs/codes.md`, which `readme::docs_codes_md_is_finding_codes`
/// holds to it).
#[test]
fn validate_help_lists_codes_and_columns() {
    let help = stdout(&run(&["validate", "--help"], None));
    for column in pgnkit::schema::finding::FINDING.names_in(pgnkit::schema::Format::Csv) {
        assert!(help.contains(column), "{column}: {help}");
    }
    let (_, codes) = help
        .split_once("Finding codes:")
        .expect("a Finding codes section");
    for code in pgnkit::rules::finding::Code::ALL {
        let listed = codes
            .lines()
            .any(|l| l.split_whitespace().next() == Some(code.as_str()));
        assert!(listed, "{code} is not in validate --help's Finding codes");
    }
}

/// A user who forgets the file sees why nothing happens: standard input is
/// read, and it is a terminal. `script` (util-linux) gives pgnkit a
/// terminal, and types a game and Ctrl-D into it as the user would, so the
/// run ends by itself (no timer).
#[test]
fn a_terminal_on_standard_input_is_announced() {
    use std::io::Write;
    let bin = env!("CARGO_BIN_EXE_pgnkit");
    let typed = |flags: &str| {
        let mut child = std::process::Command::new("script")
            .args(["-qec", &format!("{bin} validate {flags}"), "/dev/null"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("script (util-linux) runs");
        let mut keys = child.stdin.take().unwrap();
        keys.write_all(b"[Event \"x\"]\n\n*\n\x04").unwrap();
        let out = wait_with_output_or_kill(child, std::time::Duration::from_secs(60), keys);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = typed("-j1");
    assert!(
        text.contains("reading standard input (no FILE given)"),
        "{text}"
    );
    assert!(text.contains("1 game"), "the typed game was read: {text}");
    // From a pipe (a script feeding it), nothing is said.
    let piped = run(&["validate"], Some(b"[Event \"x\"]\n\n*\n"));
    assert!(!stderr(&piped).contains("reading standard input"));
    let quiet = typed("-q -j1");
    assert!(!quiet.contains("reading standard input"), "{quiet}");
}

/// `child`'s output, its standard input (`keys`) held open until it ends;
/// killed, and the test failed, after `limit`.
fn wait_with_output_or_kill(
    mut child: std::process::Child,
    limit: std::time::Duration,
    keys: std::process::ChildStdin,
) -> std::process::Output {
    use std::io::Read;
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = stdout.read_to_end(&mut all);
        all
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("the run did not end after Ctrl-D");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    drop(keys);
    std::process::Output {
        status,
        stdout: reader.join().unwrap(),
        stderr: Vec::new(),
    }
}

/// Issue 43, defect 8: `-o /dev/tty` (or `/dev/stdout` on a terminal) is a
/// terminal too: Parquet and the HTML page are refused there, exit 2, as
/// on standard output. `script` gives the run a terminal.
#[test]
fn binary_output_to_a_terminal_named_by_o_is_refused() {
    let bin = env!("CARGO_BIN_EXE_pgnkit");
    let game = fixture("pgn/twic1599_excerpt.pgn");
    let game = game.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("stdout");
    let elsewhere = elsewhere.to_str().unwrap();
    for command in [
        format!("{bin} convert -f parquet -o /dev/tty {game} >{elsewhere}"),
        format!("{bin} validate -f html -o /dev/tty {game} >{elsewhere}"),
        format!("{bin} annotate-outcome -f arrow -o /dev/stdout {game}"),
    ] {
        let out = std::process::Command::new("script")
            .args(["-qec", &format!("{command}; echo \"exit=$?\""), "/dev/null"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("script (util-linux) runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("exit=2"), "{command}: {text}");
        assert!(text.contains("to a terminal"), "{command}: {text}");
        assert!(
            !text.contains("PAR1") && !text.contains("<html"),
            "{command}: {text}"
        );
    }
    // A file named by -o is written as before.
    let file = dir.path().join("games.parquet");
    let out = run(
        &[
            "convert",
            "-f",
            "parquet",
            "-o",
            file.to_str().unwrap(),
            game,
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::read(&file).unwrap().starts_with(b"PAR1"));
}

/// A run of standard input (of unknown length, so counted as large) runs
/// without transparent huge pages (each fault of its fresh memory zeroed 2
/// MiB: issue 48), unless `MIMALLOC_ALLOW_THP` asks for them: read off
/// `/proc` while the run waits for more input.
#[cfg(target_os = "linux")]
#[test]
fn huge_pages_are_off_unless_asked_for() {
    use std::io::Write;
    use std::process::Stdio;
    for (allow, want) in [(None, "0"), (Some("1"), "1")] {
        let mut cmd = crate::util::pgnkit();
        if let Some(value) = allow {
            cmd.env("MIMALLOC_ALLOW_THP", value);
        } else {
            cmd.env_remove("MIMALLOC_ALLOW_THP");
        }
        let mut child = cmd
            .args(["validate", "-q", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("pgnkit starts");
        let mut stdin = child.stdin.take().expect("stdin is piped");
        stdin
            .write_all(b"[Event \"a\"]\n\n1. e4 *\n")
            .expect("pgnkit reads");
        // Once it runs a second thread (its workers), main() has begun.
        let started = std::time::Instant::now();
        let status = loop {
            let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
                .expect("the run's status is readable");
            let threads = status
                .lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse::<u32>().ok())
                .unwrap_or(0);
            if threads >= 2 {
                break status;
            }
            assert!(
                started.elapsed().as_secs() < 60,
                "pgnkit never started its workers"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        drop(stdin);
        crate::util::wait_or_fail(&mut child, "validate did not end at the end of its input");
        let line = status
            .lines()
            .find_map(|l| l.strip_prefix("THP_enabled:"))
            .map(str::trim);
        // Kernels before 6.0 do not report it: nothing to read there.
        if let Some(enabled) = line {
            assert_eq!(enabled, want, "MIMALLOC_ALLOW_THP={allow:?}");
        }
    }
}
