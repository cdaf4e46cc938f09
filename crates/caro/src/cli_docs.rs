//! docs/cli.md, generated from the clap definitions, so `caro --help` and
//! the page cannot disagree. The tests below check that the page is
//! current (and rewrite it with `CARO_UPDATE_DOCS=1`) and that every
//! example in the help parses as a `caro` command line.
//!
//! The help strings are rendered here rather than by clap's help printer,
//! so the page does not depend on the terminal's width.

use std::fmt::Write as _;

use clap::{Arg, ArgAction, Command};

/// The command that rewrites docs/cli.md.
pub const REGENERATE: &str = "CARO_UPDATE_DOCS=1 cargo test -p caro --bin caro cli_docs";

/// The Markdown page for `root` (the `caro` command) and every visible
/// subcommand under it.
pub fn markdown(root: &Command) -> String {
    let mut root = root.clone();
    root.build();
    let name = root.get_name().to_string();
    let mut out = String::new();
    let _ = writeln!(out, "# The `{name}` command line\n");
    let _ = writeln!(
        out,
        "<!-- Generated from the clap definitions in crates/caro/src: do not edit. \
         Regenerate with `{REGENERATE}`. -->\n"
    );
    if let Some(about) = root.get_long_about().or(root.get_about()) {
        write_paragraphs(&mut out, &about.to_string());
    }
    let _ = writeln!(
        out,
        "This page lists every command and option; it is generated from the \
         same definitions as `{name} --help`. Every command also takes `-h` \
         (a summary) and `--help` (in full), and `{name} --version` prints the \
         version.\n"
    );
    let _ = writeln!(out, "```text\n{}\n```\n", usage(&mut root));
    write_subcommand_table(&mut out, &root, &name);
    write_args(&mut out, &root);
    write_after_help(&mut out, &root);
    for sub in visible_subcommands(&root) {
        write_command(&mut out, sub, &name, 2);
    }
    // One newline at the end, whatever the last section ended with.
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

fn visible_subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// `cmd`'s usage line, without clap's "Usage: ".
fn usage(cmd: &mut Command) -> String {
    let text = cmd.render_usage().to_string();
    let text = text.trim();
    text.strip_prefix("Usage:")
        .unwrap_or(text)
        .trim()
        .to_string()
}

/// The section of one subcommand, then those of its own subcommands.
fn write_command(out: &mut String, cmd: &Command, parent: &str, level: usize) {
    let path = format!("{parent} {}", cmd.get_name());
    let _ = writeln!(out, "{} {path}\n", "#".repeat(level.min(6)));
    let aliases: Vec<String> = cmd
        .get_visible_aliases()
        .map(|a| format!("`{parent} {a}`"))
        .collect();
    if !aliases.is_empty() {
        let _ = writeln!(out, "Also {}.\n", aliases.join(", "));
    }
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        write_paragraphs(out, &about.to_string());
    }
    let mut built = cmd.clone().bin_name(&path);
    let _ = writeln!(out, "```text\n{}\n```\n", usage(&mut built));
    write_subcommand_table(out, cmd, &path);
    write_args(out, cmd);
    write_after_help(out, cmd);
    for sub in visible_subcommands(cmd) {
        write_command(out, sub, &path, level + 1);
    }
}

fn write_subcommand_table(out: &mut String, cmd: &Command, path: &str) {
    let subs: Vec<&Command> = visible_subcommands(cmd).collect();
    if subs.is_empty() {
        return;
    }
    out.push_str("**Commands**\n\n| command | what it does |\n|---|---|\n");
    for sub in subs {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let full = format!("{path} {}", sub.get_name());
        let _ = writeln!(
            out,
            "| [`{full}`](#{}) | {} |",
            full.replace(' ', "-"),
            prose(&about)
        );
    }
    out.push('\n');
}

/// The arguments and options, each with its help, default and possible
/// values; `--help` and `--version` are left out (every command has them).
fn write_args(out: &mut String, cmd: &Command) {
    let args: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter(|a| {
            !matches!(
                a.get_action(),
                ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
            )
        })
        .collect();
    let positionals: Vec<&Arg> = args.iter().copied().filter(|a| a.is_positional()).collect();
    let options: Vec<&Arg> = args
        .iter()
        .copied()
        .filter(|a| !a.is_positional())
        .collect();
    for (title, list) in [("Arguments", positionals), ("Options", options)] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "**{title}**\n");
        for arg in list {
            write_arg(out, arg);
        }
        out.push('\n');
    }
}

fn write_arg(out: &mut String, arg: &Arg) {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut notes = Vec::new();
    if arg.is_required_set() {
        notes.push("required".to_string());
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| format!("`{}`", v.to_string_lossy()))
        .collect();
    if !defaults.is_empty() && !arg.is_hide_default_value_set() && arg.get_action().takes_values() {
        notes.push(format!("default {}", defaults.join(", ")));
    }
    let values: Vec<_> = if arg.is_hide_possible_values_set() || !arg.get_action().takes_values() {
        Vec::new()
    } else {
        arg.get_possible_values()
            .into_iter()
            .filter(|v| !v.is_hide_set())
            .collect()
    };
    let described = values.iter().any(|v| v.get_help().is_some());
    if !values.is_empty() && !described {
        let names: Vec<String> = values
            .iter()
            .map(|v| format!("`{}`", v.get_name()))
            .collect();
        notes.push(format!("one of {}", names.join(", ")));
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    let mut paragraphs = help.trim().split("\n\n").map(prose);
    let first = paragraphs.next().unwrap_or_default();
    let _ = writeln!(out, "- `{}`{notes}: {first}", signature(arg));
    for paragraph in paragraphs {
        let _ = writeln!(out, "\n  {paragraph}\n");
    }
    if described {
        for value in values {
            let help = value.get_help().map(|h| h.to_string()).unwrap_or_default();
            let _ = writeln!(out, "  - `{}`: {}", value.get_name(), prose(&help));
        }
    }
}

/// How the argument is typed: `<A>`, `--size <SIZE>`, `-j, --jobs <JOBS>`.
fn signature(arg: &Arg) -> String {
    let names: Vec<String> = match arg.get_value_names() {
        Some(names) => names.iter().map(|n| format!("<{n}>")).collect(),
        None => vec![format!("<{}>", arg.get_id().as_str().to_ascii_uppercase())],
    };
    let mut value = names.join(" ");
    if arg.get_num_args().is_some_and(|n| n.max_values() > 1) {
        value.push_str("...");
    }
    if arg.is_positional() {
        return value;
    }
    let mut text = String::new();
    if let Some(short) = arg.get_short() {
        text.push('-');
        text.push(short);
        if arg.get_long().is_some() {
            text.push_str(", ");
        }
    }
    if let Some(long) = arg.get_long() {
        text.push_str("--");
        text.push_str(long);
    }
    if arg.get_action().takes_values() {
        text.push(' ');
        text.push_str(&value);
    }
    text
}

/// The text after the options: prose as paragraphs, and an "Examples:"
/// block as shell lines.
fn write_after_help(out: &mut String, cmd: &Command) {
    let Some(text) = cmd.get_after_long_help().or(cmd.get_after_help()) else {
        return;
    };
    let text = text.to_string();
    let (before, examples) = match text.find("Examples:") {
        Some(at) => (&text[..at], Some(&text[at + "Examples:".len()..])),
        None => (text.as_str(), None),
    };
    write_paragraphs(out, before);
    if let Some(examples) = examples {
        let lines: Vec<&str> = examples.lines().filter(|l| !l.trim().is_empty()).collect();
        let indent = lines
            .iter()
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        out.push_str("**Examples**\n\n```sh\n");
        for line in lines {
            out.push_str(line[indent..].trim_end());
            out.push('\n');
        }
        out.push_str("```\n\n");
    }
}

/// Text as Markdown paragraphs (blank lines part them).
fn write_paragraphs(out: &mut String, text: &str) {
    for paragraph in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let _ = writeln!(out, "{}\n", prose(paragraph));
    }
}

/// Text with its line breaks and runs of spaces made single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Help text as one Markdown line: `*`, `<` and `|` outside code spans
/// are escaped, so `openings/*.txt` or `<N>` print as typed.
fn prose(text: &str) -> String {
    let mut out = String::new();
    for (n, part) in one_line(text).split('`').enumerate() {
        if n > 0 {
            out.push('`');
        }
        if n % 2 == 1 {
            out.push_str(part);
            continue;
        }
        for c in part.chars() {
            if matches!(c, '*' | '<' | '|') {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

/// The `caro` command lines in the examples of `cmd` and its subcommands:
/// each line's words from `caro` on, before any comment, pipe or
/// redirection, with quotes removed (lines continued with `\` joined).
pub fn example_command_lines(cmd: &Command) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    collect_examples(cmd, &mut found);
    found
}

fn collect_examples(cmd: &Command, found: &mut Vec<Vec<String>>) {
    for text in [cmd.get_after_help(), cmd.get_after_long_help()]
        .into_iter()
        .flatten()
    {
        let text = text.to_string();
        if let Some(at) = text.find("Examples:") {
            let joined = text[at..].replace("\\\n", " ");
            for line in joined.lines() {
                if let Some(words) = caro_words(line) {
                    if !found.contains(&words) {
                        found.push(words);
                    }
                }
            }
        }
    }
    for sub in cmd.get_subcommands() {
        collect_examples(sub, found);
    }
}

/// The words of the `caro` command in one shell line, if it has one.
fn caro_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, '#' | '<' | '>' | '|' | ';' | '&') => {
                words.extend(word.take());
                if let Some(words) = caro_command(&words) {
                    return Some(words);
                }
                // What came before was another command (as in `printf … |`).
                words.clear();
                if c == '#' {
                    return None;
                }
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word.take());
    caro_command(&words)
}

/// The words from `caro` on, when the command is caro (after any
/// variables set for it, as in `RUST_LOG=warn caro serve`).
fn caro_command(words: &[String]) -> Option<Vec<String>> {
    let vars = words.iter().take_while(|w| w.contains('=')).count();
    let words = &words[vars..];
    words
        .first()
        .is_some_and(|w| w == "caro")
        .then(|| words.to_vec())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::Cli;

    fn page_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md")
    }

    /// docs/cli.md is what the clap definitions say; with
    /// `CARO_UPDATE_DOCS=1` this test writes it instead.
    #[test]
    fn cli_docs_are_current() {
        let page = markdown(&Cli::command());
        let path = page_path();
        if std::env::var_os("CARO_UPDATE_DOCS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &page)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            return;
        }
        if !path.parent().is_some_and(std::path::Path::is_dir) {
            // A packaged crate, without the repository's docs/.
            eprintln!("no docs/ beside the crate: docs/cli.md not checked");
            return;
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            current == page,
            "docs/cli.md is out of date with the command line's help \
             (or missing). Regenerate it with:\n\n    {REGENERATE}\n"
        );
    }

    /// Every example in the help parses as a `caro` command line.
    #[test]
    fn cli_docs_examples_parse() {
        let lines = example_command_lines(&Cli::command());
        assert!(lines.len() >= 10, "too few examples found: {lines:?}");
        for words in lines {
            if let Err(e) = Cli::try_parse_from(&words) {
                if e.kind() != clap::error::ErrorKind::DisplayHelp {
                    panic!("example {words:?} does not parse: {e}");
                }
            }
        }
    }

    #[test]
    fn cli_docs_every_command_has_examples() {
        let root = Cli::command();
        for cmd in visible_subcommands(&root) {
            let text = cmd
                .get_after_long_help()
                .or(cmd.get_after_help())
                .map(|t| t.to_string())
                .unwrap_or_default();
            assert!(
                text.contains("Examples:"),
                "caro {} has no examples",
                cmd.get_name()
            );
        }
    }

    /// Every command says what it does and every option has its help.
    #[test]
    fn cli_docs_everything_has_help() {
        fn check(cmd: &Command, path: &str) {
            assert!(cmd.get_about().is_some(), "{path} has no about");
            for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                assert!(
                    !help.trim().is_empty(),
                    "{path} {} has no help",
                    signature(arg)
                );
            }
            for sub in visible_subcommands(cmd) {
                check(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        let mut root = Cli::command();
        root.build();
        check(&root, "caro");
    }

    #[test]
    fn shell_lines_become_words() {
        assert_eq!(
            caro_words(r#"caro position --moves "h8 i9"   # a comment"#),
            Some(vec![
                "caro".into(),
                "position".into(),
                "--moves".into(),
                "h8 i9".into()
            ])
        );
        assert_eq!(
            caro_words(r"printf 'START 15\nEND\n' | caro brain"),
            Some(vec!["caro".into(), "brain".into()])
        );
        assert_eq!(
            caro_words("RUST_LOG=warn caro serve   # quiet"),
            Some(vec!["caro".into(), "serve".into()])
        );
        assert_eq!(caro_words("# caro play"), None);
        assert_eq!(caro_words("cargo build --release"), None);
    }

    #[test]
    fn markdown_lists_every_subcommand_and_option() {
        let page = markdown(&Cli::command());
        for cmd in visible_subcommands(&Cli::command()) {
            assert!(page.contains(&format!("## caro {}\n", cmd.get_name())));
            for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                if let Some(long) = arg.get_long().filter(|l| *l != "help") {
                    let listed = page
                        .lines()
                        .any(|l| l.starts_with("- `") && l.contains(&format!("--{long}")));
                    assert!(listed, "--{long} missing");
                }
            }
        }
    }
}
