//! The lines of the Gomocup protocol, read into typed commands.
//!
//! Commands are one per line, any letter case, ended by CR LF, LF or CR.
//! Coordinates are `x,y`, 0-based, x to the right and y down from the
//! top-left, the same convention as caro's core, so no conversion is
//! needed. Numbers are checked here; whether a point is on the board is the
//! brain's business (it knows the size).

use std::io::{self, BufRead};

/// Longest line either side may send, in bytes. Gomocup lines are short
/// (a BOARD is sent a stone a line); a longer one is refused as soon as it
/// is that long, without holding the rest of it.
pub const MAX_LINE: usize = 64 * 1024;

/// A line read by [`LineReader`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line that is not blank, without its line end.
    Text(String),
    /// A line over the limit: its first bytes were dropped, and the rest
    /// of it, up to its end, is skipped.
    TooLong,
}

/// Reads protocol lines (ended by CR LF, LF or CR) with a cap on their
/// length, so a peer sending a line without end cannot make the reader
/// hold it all.
#[derive(Debug)]
pub struct LineReader<R> {
    input: R,
    max: usize,
    line: Vec<u8>,
    /// In the middle of a line too long: drop bytes to its end.
    skipping: bool,
}

impl<R: BufRead> LineReader<R> {
    /// Reads `input`, refusing lines over `max` bytes.
    pub fn new(input: R, max: usize) -> LineReader<R> {
        LineReader {
            input,
            max,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// The next line that is not blank: [`Line::TooLong`] as soon as a line
    /// passes the limit, then the line after it. `None` at the end of the
    /// input (a last line without its end is still a line).
    ///
    /// # Errors
    /// The input's read error.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.skipping = false;
                let last = std::mem::take(&mut self.line);
                return Ok(text(&last).map(Line::Text));
            }
            let end = chunk.iter().position(|&b| b == b'\n' || b == b'\r');
            let take = end.unwrap_or(chunk.len());
            let used = take + usize::from(end.is_some());
            if self.skipping {
                self.input.consume(used);
                self.skipping = end.is_none();
                continue;
            }
            if self.line.len() + take > self.max {
                self.input.consume(used);
                self.line.clear();
                self.skipping = end.is_none();
                return Ok(Some(Line::TooLong));
            }
            self.line.extend_from_slice(&chunk[..take]);
            self.input.consume(used);
            if end.is_some() {
                let line = std::mem::take(&mut self.line);
                if let Some(line) = text(&line) {
                    return Ok(Some(Line::Text(line)));
                }
            }
        }
    }
}

/// A line's text, `None` if it is blank.
fn text(bytes: &[u8]) -> Option<String> {
    let line = String::from_utf8_lossy(bytes);
    (!line.trim().is_empty()).then(|| line.into_owned())
}

/// A command from the manager to the brain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START size`: a new square board.
    Start(u32),
    /// `RECTSTART width,height`: a new rectangular board.
    RectStart(u32, u32),
    /// `RESTART`: a new game on the same board.
    Restart,
    /// `BEGIN`: play the first move.
    Begin,
    /// `TURN x,y`: the opponent played here; answer a move.
    Turn(u32, u32),
    /// `BOARD`: stone lines follow until `DONE`; then answer a move.
    Board,
    /// `YXBOARD`: stone lines follow until `DONE`; set the position only.
    YxBoard,
    /// `SWAP2BOARD`: stone lines follow until `DONE`; answer a swap2 step.
    Swap2Board,
    /// A stone line `x,y,field` inside BOARD or YXBOARD, or `x,y` inside
    /// SWAP2BOARD (field 0).
    Stone(i64, i64, u32),
    /// `DONE`: the end of the stone lines.
    Done,
    /// `INFO key value`.
    Info(String, String),
    /// `END`: exit.
    End,
    /// `ABOUT`: describe the brain.
    About,
    /// `TAKEBACK x,y`: undo the stone at x,y (the last move).
    Takeback(u32, u32),
    /// `PLAY x,y`: the manager imposes the brain's move.
    Play(u32, u32),
    /// `STOP` or `YXSTOP`: answer the best move found so far, now.
    Stop,
    /// `YXHASHCLEAR`: forget the hash table.
    YxHashClear,
    /// `YXSHOWFORBID`: list black's forbidden points.
    YxShowForbid,
}

/// A line that is not a command the brain can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The first word is no command of the protocol.
    #[error("unknown command {0:?}")]
    Unknown(String),
    /// A known command with arguments that cannot be read.
    #[error("{command}: {reason}")]
    Malformed {
        /// The command word, upper case.
        command: &'static str,
        /// What is wrong.
        reason: String,
    },
}

fn malformed(command: &'static str, reason: impl Into<String>) -> LineError {
    LineError::Malformed {
        command,
        reason: reason.into(),
    }
}

/// Reads a non-negative number of at most 9 digits.
fn number(text: &str) -> Option<u32> {
    let t = text.trim();
    if t.is_empty() || t.len() > 9 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Reads a possibly negative number of at most 9 digits.
fn signed(text: &str) -> Option<i64> {
    let t = text.trim();
    match t.strip_prefix('-') {
        Some(rest) => number(rest).map(|n| -i64::from(n)),
        None => number(t).map(i64::from),
    }
}

/// Reads `x,y` for `command`.
fn pair(command: &'static str, args: &str) -> Result<(u32, u32), LineError> {
    let bad = || malformed(command, format!("expected x,y, got {:?}", args.trim()));
    let (x, y) = args.split_once(',').ok_or_else(bad)?;
    Ok((number(x).ok_or_else(bad)?, number(y).ok_or_else(bad)?))
}

/// Reads one line from the manager. Empty lines give `Ok(None)`.
///
/// # Errors
/// [`LineError`] for an unknown command or unreadable arguments.
pub fn parse_line(line: &str) -> Result<Option<Command>, LineError> {
    let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    if line.is_empty() {
        return Ok(None);
    }
    // A stone line: digits (or -1 for a pass) first.
    if line.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        let parts: Vec<&str> = line.split(',').collect();
        let bad = || malformed("BOARD", format!("expected x,y,field, got {line:?}"));
        if parts.len() != 3 && parts.len() != 2 {
            return Err(bad());
        }
        let x = signed(parts[0]).ok_or_else(bad)?;
        let y = signed(parts[1]).ok_or_else(bad)?;
        let field = match parts.get(2) {
            Some(f) => number(f).ok_or_else(bad)?,
            None => 0,
        };
        return Ok(Some(Command::Stone(x, y, field)));
    }
    let (word, args) = match line.split_once(char::is_whitespace) {
        Some((w, a)) => (w, a.trim()),
        None => (line, ""),
    };
    let word = word.to_ascii_uppercase();
    let no_args = |command: &'static str, c: Command| {
        if args.is_empty() {
            Ok(c)
        } else {
            Err(malformed(
                command,
                format!("takes no arguments, got {args:?}"),
            ))
        }
    };
    let command = match word.as_str() {
        "START" => Command::Start(
            number(args)
                .ok_or_else(|| malformed("START", format!("expected a size, got {args:?}")))?,
        ),
        "RECTSTART" => {
            let (w, h) = pair("RECTSTART", args)?;
            Command::RectStart(w, h)
        }
        "RESTART" => no_args("RESTART", Command::Restart)?,
        "BEGIN" => no_args("BEGIN", Command::Begin)?,
        "TURN" => {
            let (x, y) = pair("TURN", args)?;
            Command::Turn(x, y)
        }
        "BOARD" => no_args("BOARD", Command::Board)?,
        "YXBOARD" => no_args("YXBOARD", Command::YxBoard)?,
        "SWAP2BOARD" => no_args("SWAP2BOARD", Command::Swap2Board)?,
        "DONE" => no_args("DONE", Command::Done)?,
        "INFO" => {
            let (key, value) = match args.split_once(char::is_whitespace) {
                Some((k, v)) => (k, v.trim()),
                None => (args, ""),
            };
            if key.is_empty() {
                return Err(malformed("INFO", "expected a key and a value"));
            }
            Command::Info(key.to_ascii_lowercase(), value.to_string())
        }
        "END" => Command::End,
        "ABOUT" => no_args("ABOUT", Command::About)?,
        "TAKEBACK" => {
            let (x, y) = pair("TAKEBACK", args)?;
            Command::Takeback(x, y)
        }
        "PLAY" => {
            let (x, y) = pair("PLAY", args)?;
            Command::Play(x, y)
        }
        "STOP" | "YXSTOP" => Command::Stop,
        "YXHASHCLEAR" => no_args("YXHASHCLEAR", Command::YxHashClear)?,
        "YXSHOWFORBID" => no_args("YXSHOWFORBID", Command::YxShowForbid)?,
        _ => {
            let mut shown: String = word.chars().take(40).collect();
            if word.chars().count() > 40 {
                shown.push('…');
            }
            return Err(LineError::Unknown(shown));
        }
    };
    Ok(Some(command))
}

/// A line from a brain, as a manager reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `OK`.
    Ok,
    /// A move `x,y`.
    Move(u32, u32),
    /// Several moves on one line (a swap2 answer).
    Moves(Vec<(u32, u32)>),
    /// `SWAP` (a swap2 answer).
    Swap,
    /// `MESSAGE text`.
    Message(String),
    /// `DEBUG text`.
    Debug(String),
    /// `ERROR text`.
    Error(String),
    /// `UNKNOWN text`.
    Unknown(String),
    /// `SUGGEST x,y`.
    Suggest(u32, u32),
    /// `FORBID xxyy….`: black's forbidden points.
    Forbid(Vec<(u32, u32)>),
    /// Any other line (such as an ABOUT answer).
    Other(String),
}

/// Reads one line from a brain. Never fails: a line that is none of the
/// protocol's replies is [`Reply::Other`].
#[must_use]
pub fn parse_reply(line: &str) -> Reply {
    let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    let (word, args) = match line.split_once(char::is_whitespace) {
        Some((w, a)) => (w, a.trim()),
        None => (line, ""),
    };
    match word.to_ascii_uppercase().as_str() {
        "OK" if args.is_empty() || args.starts_with('-') => return Reply::Ok,
        "SWAP" if args.is_empty() => return Reply::Swap,
        "MESSAGE" => return Reply::Message(args.to_string()),
        "DEBUG" => return Reply::Debug(args.to_string()),
        "ERROR" => return Reply::Error(args.to_string()),
        "UNKNOWN" => return Reply::Unknown(args.to_string()),
        "SUGGEST" => {
            if let Ok((x, y)) = pair("SUGGEST", args) {
                return Reply::Suggest(x, y);
            }
        }
        "FORBID" => {
            let digits: Vec<u32> = args
                .trim_end_matches('.')
                .bytes()
                .filter(u8::is_ascii_digit)
                .map(|b| u32::from(b - b'0'))
                .collect();
            if digits.len() % 4 == 0 {
                return Reply::Forbid(
                    digits
                        .chunks(4)
                        .map(|c| (c[0] * 10 + c[1], c[2] * 10 + c[3]))
                        .collect(),
                );
            }
        }
        _ => {}
    }
    let moves: Option<Vec<(u32, u32)>> = line
        .split_whitespace()
        .map(|t| pair("move", t).ok())
        .collect::<Option<Vec<_>>>()
        .or_else(|| {
            // `x, y` with a space after the comma.
            pair("move", line).ok().map(|p| vec![p])
        });
    match moves {
        Some(m) if m.len() == 1 => Reply::Move(m[0].0, m[0].1),
        Some(m) if !m.is_empty() => Reply::Moves(m),
        _ => Reply::Other(line.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_in_any_case_with_any_line_end() {
        assert_eq!(parse_line("start 15\r"), Ok(Some(Command::Start(15))));
        assert_eq!(
            parse_line("RectStart 30, 20"),
            Ok(Some(Command::RectStart(30, 20)))
        );
        assert_eq!(parse_line("turn 7,8\r\n"), Ok(Some(Command::Turn(7, 8))));
        assert_eq!(parse_line("  "), Ok(None));
        assert_eq!(parse_line("10,11,2"), Ok(Some(Command::Stone(10, 11, 2))));
        assert_eq!(parse_line("-1,-1,1"), Ok(Some(Command::Stone(-1, -1, 1))));
        assert_eq!(
            parse_line("INFO Timeout_Turn 5000"),
            Ok(Some(Command::Info("timeout_turn".into(), "5000".into())))
        );
        assert_eq!(parse_line("yxstop"), Ok(Some(Command::Stop)));
    }

    #[test]
    fn garbage_is_named() {
        assert!(matches!(parse_line("HELLO"), Err(LineError::Unknown(w)) if w == "HELLO"));
        assert!(matches!(
            parse_line("TURN 7"),
            Err(LineError::Malformed {
                command: "TURN",
                ..
            })
        ));
        assert!(parse_line("TURN a,b").is_err());
        assert!(parse_line("START -3").is_err());
        assert!(parse_line("START 99999999999999").is_err());
        assert_eq!(parse_line("1,2"), Ok(Some(Command::Stone(1, 2, 0))));
        assert!(parse_line("1,2,3,4").is_err());
        assert!(parse_line("BEGIN now").is_err());
    }

    #[test]
    fn lines_end_at_cr_or_lf_and_a_long_one_is_refused_early() {
        let input: &[u8] = b"START 15\r\n\r\nBEGIN\rINFO x 1\n  \nabcdefghij0123\nOK\nlast";
        let mut lines = LineReader::new(io::BufReader::with_capacity(4, input), 10);
        let mut got = Vec::new();
        while let Some(line) = lines.next_line().expect("read") {
            got.push(line);
        }
        let t = |s: &str| Line::Text(s.to_string());
        assert_eq!(
            got,
            [
                t("START 15"),
                t("BEGIN"),
                t("INFO x 1"),
                Line::TooLong,
                t("OK"),
                t("last")
            ]
        );

        // A line without end is refused once it passes the limit, before
        // the rest of it has even been sent.
        struct Endless(usize);
        impl io::Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                assert!(self.0 < 1 << 20, "read on after the line was too long");
                buf.fill(b'x');
                self.0 += buf.len();
                Ok(buf.len())
            }
        }
        let mut lines = LineReader::new(io::BufReader::new(Endless(0)), MAX_LINE);
        assert_eq!(lines.next_line().expect("read"), Some(Line::TooLong));
        assert!(lines.line.capacity() <= MAX_LINE + 8192);
    }

    #[test]
    fn replies_read() {
        assert_eq!(parse_reply("7,7"), Reply::Move(7, 7));
        assert_eq!(parse_reply("7, 7\r"), Reply::Move(7, 7));
        assert_eq!(
            parse_reply("7,7 8,7 9,9"),
            Reply::Moves(vec![(7, 7), (8, 7), (9, 9)])
        );
        assert_eq!(parse_reply("SWAP"), Reply::Swap);
        assert_eq!(parse_reply("OK"), Reply::Ok);
        assert_eq!(
            parse_reply("MESSAGE depth 3"),
            Reply::Message("depth 3".into())
        );
        assert_eq!(
            parse_reply("FORBID 07080910."),
            Reply::Forbid(vec![(7, 8), (9, 10)])
        );
        assert_eq!(parse_reply("FORBID ."), Reply::Forbid(vec![]));
        assert_eq!(parse_reply("name=\"x\""), Reply::Other("name=\"x\"".into()));
        assert_eq!(parse_reply("7,"), Reply::Other("7,".into()));
    }
}
