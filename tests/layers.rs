//! The crate's modules form no import cycle (issue 42).
//!
//! Reads every `.rs` file under `src/` (the library's module tree; the
//! binary's `main.rs` is its own crate and uses the library from outside),
//! cuts it at its test module (the repository's convention: test modules
//! come last), and collects each module's uses of the crate's other modules:
//! `use crate::…`, `use super::…`, `use self::…` (multi-line groups
//! included) and paths written inline in code (`crate::a::b::f()`). A use of
//! anything inside a module counts as a use of that module, and a use of an
//! item a module re-exports (`pub use`) as a use of where it comes from.
//!
//! Two modules that share a parent are siblings: `schema::arrow` and
//! `schema::finding`, or the crate's top-level modules `rules` and
//! `schema`. A use from anywhere inside one sibling of anything inside
//! another is an edge between the two siblings, and the test fails on any
//! cycle among siblings, naming each edge's file and line. A child using
//! its parent's items (or the parent declaring and using its children) is
//! no cycle: that is what a module tree is.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Uses that close a cycle and are let be for now, each as (the file, the
/// module it uses: `"crate::a::b"`), with a comment saying why and until
/// when. The test ignores exactly these uses; each must still be in the
/// code, so the list only shrinks: when the use goes, delete its entry.
///
/// Empty: when the `schema/` cycle was broken (issue 42) no other cycle
/// was left, in `cli`, `cmd`, `output`, `stream` and `embed` either.
const ALLOWED: &[(&str, &str)] = &[];

/// What `src/lib.rs` says of its layers, for the modules it says it of:
/// `tasks` uses `rules` only, and `rules` uses nothing of the crate above
/// it. (If a layer is meant to change, change the comment with this.)
const LAYERS: &[(&str, &[&str])] = &[("rules", &[]), ("tasks", &["rules"])];

#[test]
fn layers_src_has_no_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = source_files(&root.join("src"), root);
    assert!(
        files.iter().any(|(path, _)| path == "src/lib.rs"),
        "src/lib.rs not found among {} files",
        files.len()
    );
    let uses = crate_uses(&files);
    let (report, unused) = cycles(&uses, ALLOWED);
    assert!(
        unused.is_empty(),
        "these ALLOWED uses are gone from the code: delete them from the list in tests/layers.rs:\n{}",
        unused
            .iter()
            .map(|(file, module)| format!("  ({file:?}, {module:?})"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(report.is_empty(), "import cycles in src/:\n{report}");
}

#[test]
fn layers_are_as_lib_rs_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let uses = crate_uses(&source_files(&root.join("src"), root));
    let mut wrong = Vec::new();
    for &(layer, may_use) in LAYERS {
        for u in &uses {
            let (Some(from), Some(to)) = (u.from.first(), u.to.first()) else {
                continue;
            };
            if from == layer && to != layer && !may_use.contains(&to.as_str()) {
                wrong.push(u);
            }
        }
    }
    let wrong = locations(&wrong);
    assert!(
        wrong.is_empty(),
        "src/lib.rs says `tasks` uses `rules` only and `rules` nothing above it, but:\n{wrong}"
    );
}

/// The test finds a cycle planted across the forms a use takes: a
/// multi-line group, an inline path, `super::` from a module declared inline,
/// with a decoy in a comment, a string and the test module.
#[test]
fn layers_finds_a_planted_cycle() {
    let files = vec![
        (
            "src/lib.rs".to_owned(),
            "pub mod a;\npub mod b;\npub mod c;\npub use a::y::Why as Because;\n".to_owned(),
        ),
        (
            "src/a/mod.rs".to_owned(),
            "pub mod x;\npub mod y;\npub struct Shared;\n".to_owned(),
        ),
        (
            "src/a/x.rs".to_owned(),
            concat!(
                "use super::Shared;\n",
                "use crate::{\n",
                "    c::One,\n",
                "    a::{y::{Why, self}},\n",
                "};\n",
                "// use crate::b::Nope;\n",
                "const S: &str = \"crate::b::Nope\";\n",
                "#[cfg(test)]\n",
                "mod tests {\n",
                "    use crate::b::AlsoNope;\n",
                "}\n",
            )
            .to_owned(),
        ),
        (
            "src/a/y.rs".to_owned(),
            concat!(
                "pub struct Why;\n",
                "mod inner {\n",
                "    fn f() -> u8 { super::super::x::g() }\n",
                "}\n",
            )
            .to_owned(),
        ),
        (
            "src/b.rs".to_owned(),
            "fn f() { let _ = crate::Because; }\n".to_owned(),
        ),
        (
            "src/c.rs".to_owned(),
            "use crate::b;\nuse self::b::Q;\n".to_owned(),
        ),
    ];
    let uses = crate_uses(&files);
    let (report, unused) = cycles(&uses, &[]);
    assert!(unused.is_empty());
    // Siblings under `a`: x uses y (line 4), y uses x (line 3, from its
    // inline `inner`).
    assert!(
        report.contains("a::x -> a::y -> a::x")
            && report.contains("src/a/x.rs:4")
            && report.contains("src/a/y.rs:3"),
        "{report}"
    );
    // Top level: a -> c -> b -> a (b using `a::y::Why` as the root
    // re-exports it).
    assert!(
        report.contains("a -> c -> b -> a")
            && report.contains("src/a/x.rs:3")
            && report.contains("src/c.rs:1")
            && report.contains("src/b.rs:1"),
        "{report}"
    );
    assert!(!report.contains("Nope"), "{report}");
    // Allowing the one use from b breaks the top-level cycle, and only it.
    let (report, unused) = cycles(&uses, &[("src/b.rs", "crate::a::y")]);
    assert!(unused.is_empty());
    assert!(report.contains("a::x -> a::y -> a::x"), "{report}");
    assert!(!report.contains("a -> c"), "{report}");
    // An allowed use that is not there is reported.
    let (_, unused) = cycles(&uses, &[("src/b.rs", "crate::c")]);
    assert_eq!(unused, vec![("src/b.rs".to_owned(), "crate::c".to_owned())]);
}

/// One use of one module by another.
#[derive(Clone, Debug)]
struct Use {
    /// The module the use is written in (inline modules included).
    from: Vec<String>,
    /// The module used: the longest prefix of the path that names a module.
    to: Vec<String>,
    file: String,
    line: usize,
    /// What of `to` the path names (empty for `to` itself), for the message.
    item: String,
}

/// Every `.rs` file under `dir`, as (path relative to `root`, text), except
/// `src/main.rs`.
fn source_files(dir: &Path, root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(source_files(&path, root));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let rel = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            if rel == "src/main.rs" {
                continue;
            }
            let text =
                fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((rel, text));
        }
    }
    out
}

/// The module a file under `src/` defines: `src/lib.rs` is the crate root,
/// `src/a/mod.rs` and `src/a.rs` are `a`, `src/a/b.rs` is `a::b`.
fn file_module(path: &str) -> Vec<String> {
    let rel = path.strip_prefix("src/").expect("a path under src/");
    let rel = rel.strip_suffix(".rs").expect("a .rs file");
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// `text` without its test module: cut at the first `#[cfg(test)]` that
/// starts a line and is attached to a `mod` (a `#[cfg(test)]` helper
/// function elsewhere is code like any other, and stays).
fn without_tests(text: &str) -> &str {
    let mut from = 0;
    while let Some(at) = text[from..].find("\n#[cfg(test)]") {
        let start = from + at + 1;
        let rest = text[start + "#[cfg(test)]".len()..].trim_start();
        // Skip further attributes and doc comments between it and the item.
        let item = rest
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("#[") && !l.starts_with("//"))
            .unwrap_or("");
        let item = item
            .strip_prefix("pub")
            .map(|r| {
                r.trim_start()
                    .strip_prefix('(')
                    .and_then(|r| r.split_once(')'))
                    .map_or(r, |(_, r)| r)
            })
            .unwrap_or(item)
            .trim_start();
        if item.starts_with("mod ") {
            return &text[..start];
        }
        from = start;
    }
    text
}

/// `text` with its comments and the insides of its string and character
/// literals blanked (lines kept), so that only code is left.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if (c == 'r' || (c == 'b' && next == Some('r')))
            && (i == 0 || !is_ident(chars[i - 1]))
            && raw_string_hashes(&chars, i + if c == 'b' { 2 } else { 1 }).is_some()
        {
            let open = i + if c == 'b' { 2 } else { 1 };
            let hashes = raw_string_hashes(&chars, open).expect("checked");
            let mut j = open + hashes + 1;
            while j < chars.len()
                && !(chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')))
            {
                j += 1;
            }
            let end = (j + 1 + hashes).min(chars.len());
            out.extend(chars[i..end].iter().map(|&c| blank(c)));
            i = end;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), or else a
            // lifetime or label ('a), which stays.
            let end = if next == Some('\\') {
                (i + 2..chars.len()).find(|&j| chars[j] == '\'' && j > i + 2)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.extend(chars[i..=end].iter().map(|&c| blank(c)));
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The number of `#` of a raw string whose `#`s start at `at`, if `at`
/// starts one (`"`, `#"`, `##"`, …).
fn raw_string_hashes(chars: &[char], at: usize) -> Option<usize> {
    let hashes = chars[at.min(chars.len())..]
        .iter()
        .take_while(|&&c| c == '#')
        .count();
    (chars.get(at + hashes) == Some(&'"')).then_some(hashes)
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

/// The tokens of code (comments and literals already blanked), each with
/// its line.
fn tokens(code: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // A raw identifier `r#name` is the identifier `name`.
            if word == "r" && chars.get(i) == Some(&'#') {
                i += 1;
                continue;
            }
            out.push((Token::Ident(word), line));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push((Token::PathSep, line));
            i += 2;
        } else {
            out.push((Token::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// Every module of the tree: one per file, and one per `mod name { … }`
/// written inline outside the test modules.
fn modules(files: &[(String, String)]) -> BTreeSet<Vec<String>> {
    let mut all = BTreeSet::new();
    for (path, text) in files {
        let module = file_module(path);
        all.insert(module.clone());
        let toks = tokens(&code_only(without_tests(text)));
        walk_modules(&toks, &module, |inline, _| {
            all.insert(inline.to_vec());
        });
    }
    all
}

/// Calls `visit(module, index)` for each token with the module it is in
/// (`base` and the inline `mod name {` blocks open at that token).
fn walk_modules(toks: &[(Token, usize)], base: &[String], mut visit: impl FnMut(&[String], usize)) {
    let mut module = base.to_vec();
    // The brace depth at which each open inline module started.
    let mut opened: Vec<usize> = Vec::new();
    let mut depth = 0;
    for i in 0..toks.len() {
        match &toks[i].0 {
            Token::Punct('{') => {
                let inline = i >= 2
                    && toks[i - 2].0 == Token::Ident("mod".to_owned())
                    && matches!(toks[i - 1].0, Token::Ident(_));
                if inline {
                    let Token::Ident(name) = &toks[i - 1].0 else {
                        unreachable!()
                    };
                    module.push(name.clone());
                    opened.push(depth);
                }
                depth += 1;
            }
            Token::Punct('}') => {
                depth -= 1;
                if opened.last() == Some(&depth) {
                    opened.pop();
                    module.pop();
                }
            }
            _ => {}
        }
        visit(&module, i);
    }
}

/// Every use of a module of the crate in `files`.
fn crate_uses(files: &[(String, String)]) -> Vec<Use> {
    let all = modules(files);
    let mut written = Vec::new();
    for (path, text) in files {
        let toks = tokens(&code_only(without_tests(text)));
        let mut paths: Vec<Written> = Vec::new();
        // Tokens already read as part of a `use` item.
        let mut skip_to = 0;
        walk_modules(&toks, &file_module(path), |module, i| {
            if i < skip_to {
                return;
            }
            let ident = |j: usize| match toks.get(j) {
                Some((Token::Ident(s), _)) => Some(s.as_str()),
                _ => None,
            };
            if ident(i) == Some("use") && toks.get(i + 1).is_some_and(|t| t.0 != Token::Punct('<'))
            {
                let public = is_pub(&toks, i);
                let mut found = Vec::new();
                let end = use_tree(&toks, i + 1, Vec::new(), &mut found);
                skip_to = end;
                for (segments, line, name) in found {
                    paths.push(Written {
                        file: path.clone(),
                        segments,
                        line,
                        module: module.to_vec(),
                        exported: name.filter(|n| public && n != "_"),
                    });
                }
                return;
            }
            // An inline path: `crate::`, `super::` or `self::` not itself
            // after `::`, and not the `in` of `pub(in crate::a)`.
            let starts = matches!(ident(i), Some("crate" | "super" | "self"))
                && toks.get(i + 1).is_some_and(|t| t.0 == Token::PathSep)
                && (i == 0 || toks[i - 1].0 != Token::PathSep)
                && !(i >= 3
                    && ident(i - 1) == Some("in")
                    && toks[i - 2].0 == Token::Punct('(')
                    && ident(i - 3) == Some("pub"));
            if starts {
                let mut segments = vec![ident(i).expect("an identifier").to_owned()];
                let mut j = i + 1;
                while toks.get(j).is_some_and(|t| t.0 == Token::PathSep) {
                    match ident(j + 1) {
                        Some(s) => segments.push(s.to_owned()),
                        None => break,
                    }
                    j += 2;
                }
                skip_to = j;
                paths.push(Written {
                    file: path.clone(),
                    segments,
                    line: toks[i].1,
                    module: module.to_vec(),
                    exported: None,
                });
            }
        });
        written.extend(paths);
    }
    // What each `pub use` makes a name for: `crate::Error` is
    // `crate::error::Error`.
    let reexports: BTreeMap<Vec<String>, Vec<String>> = written
        .iter()
        .filter_map(|w| {
            let name = w.exported.clone()?;
            let target = resolve(&w.segments, &w.module, &all)?;
            let mut key = w.module.clone();
            key.push(name);
            (key != target).then_some((key, target))
        })
        .collect();
    let mut uses = Vec::new();
    for w in written {
        let Some(mut absolute) = resolve(&w.segments, &w.module, &all) else {
            continue;
        };
        // Follow re-exports (a few deep at most: a cycle of them would not
        // compile).
        for _ in 0..8 {
            let Some(n) = (1..=absolute.len())
                .rev()
                .find(|&n| reexports.contains_key(&absolute[..n]))
            else {
                break;
            };
            let mut target = reexports[&absolute[..n]].clone();
            target.extend_from_slice(&absolute[n..]);
            absolute = target;
        }
        let to = (0..=absolute.len())
            .rev()
            .map(|n| absolute[..n].to_vec())
            .find(|prefix| all.contains(prefix))
            .expect("the crate root is a module");
        uses.push(Use {
            from: w.module,
            item: absolute[to.len()..].join("::"),
            to,
            file: w.file,
            line: w.line,
        });
    }
    uses
}

/// A path as written, before it is resolved.
struct Written {
    file: String,
    segments: Vec<String>,
    line: usize,
    /// The module it is written in.
    module: Vec<String>,
    /// For a leaf of a `pub use`, the name it gives the item.
    exported: Option<String>,
}

/// Whether the `use` at `toks[i]` is public: `pub use` or `pub(…) use`.
fn is_pub(toks: &[(Token, usize)], i: usize) -> bool {
    let pub_at = |j: usize| toks[j].0 == Token::Ident("pub".to_owned());
    match i.checked_sub(1).map(|j| &toks[j].0) {
        Some(Token::Ident(s)) => s == "pub",
        Some(Token::Punct(')')) => (0..i - 1)
            .rev()
            .find(|&j| toks[j].0 == Token::Punct('('))
            .is_some_and(|j| j > 0 && pub_at(j - 1)),
        _ => false,
    }
}

/// Reads the use tree starting at `toks[i]` up to its `;` (or the `,` or
/// `}` that ends it inside a group), adding each leaf path, prefixed by
/// `prefix`, to `found` with the line of its last segment and the name it
/// binds (none for a glob). Returns the index after the tree.
fn use_tree(
    toks: &[(Token, usize)],
    mut i: usize,
    mut prefix: Vec<String>,
    found: &mut Vec<(Vec<String>, usize, Option<String>)>,
) -> usize {
    let mut line = toks.get(i).map_or(0, |t| t.1);
    let mut alias = None;
    let mut glob = false;
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Token::PathSep) => i += 1,
            Some(Token::Ident(s)) if s == "as" => {
                // `as name` renames the leaf.
                if let Some((Token::Ident(name), _)) = toks.get(i + 1) {
                    alias = Some(name.clone());
                }
                i += 2;
            }
            Some(Token::Ident(s)) => {
                // `self` in a group names the group's prefix.
                if s != "self" || prefix.is_empty() {
                    prefix.push(s.clone());
                }
                line = toks[i].1;
                i += 1;
            }
            Some(Token::Punct('*')) => {
                glob = true;
                i += 1;
            }
            Some(Token::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i).map(|t| &t.0) {
                        Some(Token::Punct('}')) => {
                            i += 1;
                            break;
                        }
                        Some(Token::Punct(',')) => i += 1,
                        None => return i,
                        Some(_) => i = use_tree(toks, i, prefix.clone(), found),
                    }
                }
                // The group's leaves were added by the inner trees.
                return skip_to_end(toks, i);
            }
            _ => {
                if !prefix.is_empty() {
                    let name = match alias {
                        Some(alias) => Some(alias),
                        None if glob => None,
                        None => prefix.last().cloned(),
                    };
                    found.push((prefix, line, name));
                }
                return i;
            }
        }
    }
}

/// After a group: the index of the `,`, `}` or past the `;` that follows.
fn skip_to_end(toks: &[(Token, usize)], i: usize) -> usize {
    match toks.get(i).map(|t| &t.0) {
        Some(Token::Punct(';')) => i + 1,
        _ => i,
    }
}

/// The absolute path (without `crate`) that `segments`, written in
/// `module`, names, if it names something of this crate: paths from
/// `crate`, `super` and `self`, and relative paths whose first segment is a
/// child module of `module` (the others name another crate or something in
/// scope, whose own `use` is counted where it is written).
fn resolve(
    segments: &[String],
    module: &[String],
    all: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let first = segments.first()?;
    let mut rest = segments;
    let mut base: Vec<String>;
    match first.as_str() {
        "crate" => {
            base = Vec::new();
            rest = &segments[1..];
        }
        "self" => {
            base = module.to_vec();
            rest = &segments[1..];
        }
        "super" => {
            base = module.to_vec();
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => {
            let mut child = module.to_vec();
            child.push(first.clone());
            if !all.contains(&child) {
                return None;
            }
            base = module.to_vec();
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Each line of `uses` (in order), as `  file:line uses crate::a::b (Item, …)`.
fn locations(uses: &[&Use]) -> String {
    // (file, line, module), and the items of the module used there.
    type Line<'u> = ((&'u str, usize, String), Vec<&'u str>);
    let mut lines: Vec<Line<'_>> = Vec::new();
    for u in uses {
        let key = (u.file.as_str(), u.line, display(&u.to));
        match lines.iter_mut().find(|(k, _)| *k == key) {
            Some((_, items)) => items.push(&u.item),
            None => lines.push((key, vec![&u.item])),
        }
    }
    let mut out = String::new();
    for ((file, line, module), items) in lines {
        let items: Vec<&str> = items.into_iter().filter(|i| !i.is_empty()).collect();
        let _ = write!(out, "  {file}:{line} uses {module}");
        if !items.is_empty() {
            let _ = write!(out, " ({})", items.join(", "));
        }
        out.push('\n');
    }
    out
}

fn display(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        format!("crate::{}", module.join("::"))
    }
}

/// One edge between siblings: from child `a` of a parent to child `b`,
/// with the uses that make it.
type Edges = BTreeMap<(String, String), Vec<Use>>;

/// The cycles among siblings in `uses`, but for the `allowed` ones, as a
/// message (empty when there is none), and the `allowed` entries that match
/// no use.
fn cycles(uses: &[Use], allowed: &[(&str, &str)]) -> (String, Vec<(String, String)>) {
    let mut matched = vec![false; allowed.len()];
    // Per parent module, the edges between its children.
    let mut graphs: BTreeMap<Vec<String>, Edges> = BTreeMap::new();
    for u in uses {
        let common = u.from.iter().zip(&u.to).take_while(|(a, b)| a == b).count();
        if common == u.from.len() || common == u.to.len() {
            // A module using its ancestor or its descendant.
            continue;
        }
        if let Some(k) = allowed
            .iter()
            .position(|&(file, module)| file == u.file && module == display(&u.to))
        {
            matched[k] = true;
            continue;
        }
        graphs
            .entry(u.from[..common].to_vec())
            .or_default()
            .entry((u.from[common].clone(), u.to[common].clone()))
            .or_default()
            .push(u.clone());
    }
    let mut report = String::new();
    for (parent, edges) in &graphs {
        for component in strongly_connected(edges) {
            let cycle = shortest_cycle(edges, &component);
            let name = |child: &str| {
                let mut path = parent.clone();
                path.push(child.to_owned());
                path.join("::")
            };
            let names: Vec<String> = cycle.iter().map(|c| name(c)).collect();
            let _ = writeln!(report, "cycle: {}", names.join(" -> "));
            // The cycle's edges, then the others among the same modules
            // (all of which a fix has to look at).
            let mut pairs: Vec<(String, String)> = cycle
                .windows(2)
                .map(|p| (p[0].clone(), p[1].clone()))
                .collect();
            let others: Vec<(String, String)> = edges
                .keys()
                .filter(|(a, b)| component.contains(a) && component.contains(b))
                .filter(|pair| !pairs.contains(pair))
                .cloned()
                .collect();
            if !others.is_empty() {
                let others: Vec<String> = others
                    .iter()
                    .map(|(a, b)| format!("{} -> {}", name(a), name(b)))
                    .collect();
                let _ = writeln!(
                    report,
                    "  (and among the same modules: {})",
                    others.join(", ")
                );
            }
            pairs.extend(others);
            for (a, b) in &pairs {
                let _ = writeln!(report, "  {} -> {}:", name(a), name(b));
                let uses: Vec<&Use> = edges[&(a.clone(), b.clone())].iter().collect();
                for line in locations(&uses).lines() {
                    let _ = writeln!(report, "  {line}");
                }
            }
        }
    }
    let unused = allowed
        .iter()
        .zip(matched)
        .filter(|(_, m)| !m)
        .map(|(&(f, m), _)| (f.to_owned(), m.to_owned()))
        .collect();
    (report, unused)
}

/// The strongly connected sets of more than one node, each sorted.
fn strongly_connected(edges: &Edges) -> Vec<BTreeSet<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for (a, b) in edges.keys() {
                if *a == n && seen.insert(b.clone()) {
                    todo.push(b.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|&n| (n, reach(n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for &n in &nodes {
        if !reaches[n].contains(n) || out.iter().any(|c| c.contains(n)) {
            continue;
        }
        let component: BTreeSet<String> = nodes
            .iter()
            .filter(|&&m| reaches[n].contains(m) && reaches[m].contains(n))
            .map(|&m| m.clone())
            .collect();
        out.push(component);
    }
    out
}

/// A shortest cycle through the first node of `component`, from it back to
/// it.
fn shortest_cycle(edges: &Edges, component: &BTreeSet<String>) -> Vec<String> {
    let start = component.first().expect("a non-empty component").clone();
    let mut previous: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(n) = queue.pop_front() {
        for (a, b) in edges.keys() {
            if *a != n || !component.contains(b) {
                continue;
            }
            if *b == start {
                let mut cycle = vec![start.clone(), n.clone()];
                let mut at = n.clone();
                while let Some(p) = previous.get(&at) {
                    cycle.push(p.clone());
                    at = p.clone();
                }
                if cycle.last() != Some(&start) {
                    cycle.push(start.clone());
                }
                cycle.reverse();
                return cycle;
            }
            if !previous.contains_key(b) {
                previous.insert(b.clone(), n.clone());
                queue.push_back(b.clone());
            }
        }
    }
    unreachable!("a strongly connected set has a cycle")
}
