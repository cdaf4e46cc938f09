//! Transcript tests of `pbrain-caro`: fixed manager scripts sent to the
//! real executable, and the answers it must give.
//!
//! A transcript (`tests/transcripts/*.txt`) holds lines sent to the brain
//! (`> line`) and answers expected from it (`< line`, exact), with
//! `<? move` (one move `x,y`), `<? moves N` (N moves on one line),
//! `<? prefix TEXT` (a line starting with TEXT), `<? swap-or-move` and
//! `<? either A | B` (one of the given lines). MESSAGE lines are skipped; any other line the
//! brain writes beyond the expected ones fails the test. Lines are sent
//! with CR LF, as the spec says managers do, unless the transcript starts
//! with `#! lf`. The whole script is written at once, as a pipe may
//! deliver it; END ends the session but, right after a move request, it
//! would interrupt that search, so transcripts end with END only after a
//! line that does not search (or just end).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn brain() -> Command {
    // CARO_TEST_BRAIN runs the tests against another build (an older one,
    // to see a test fail before a change).
    Command::new(
        std::env::var_os("CARO_TEST_BRAIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_pbrain-caro").into()),
    )
}

/// Whether `line` is `x,y` (one move).
fn is_move(line: &str) -> bool {
    line.split_once(',').is_some_and(|(x, y)| {
        !x.is_empty()
            && !y.is_empty()
            && x.bytes().all(|b| b.is_ascii_digit())
            && y.bytes().all(|b| b.is_ascii_digit())
    })
}

fn check(name: &str, expected: &str, got: &str) -> Result<(), String> {
    let ok = if let Some(pattern) = expected.strip_prefix("<? ") {
        let (kind, arg) = pattern.split_once(' ').unwrap_or((pattern, ""));
        match kind {
            "move" => is_move(got),
            "moves" => {
                let n: usize = arg.parse().expect("moves N");
                let parts: Vec<&str> = got.split_whitespace().collect();
                parts.len() == n && parts.iter().all(|p| is_move(p))
            }
            "prefix" => got.starts_with(arg),
            "swap-or-move" => got == "SWAP" || is_move(got),
            "either" => arg.split(" | ").any(|a| a == got),
            other => panic!("{name}: unknown pattern {other}"),
        }
    } else {
        let exact = expected.strip_prefix("< ").unwrap_or(expected);
        exact == got
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expected:?}, got {got:?}"))
    }
}

fn run_transcript(path: &Path) -> Result<(), String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let eol = if text.starts_with("#! lf") {
        "\n"
    } else {
        "\r\n"
    };
    let mut input = String::new();
    let mut expected = Vec::new();
    for line in text.lines() {
        if let Some(sent) = line.strip_prefix("> ") {
            input.push_str(sent);
            input.push_str(eol);
        } else if line.starts_with('<') {
            expected.push(line.to_string());
        }
    }
    let mut child = brain()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin
        .write_all(input.as_bytes())
        .map_err(|e| e.to_string())?;
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .ok_or("no stdout")?
        .read_to_string(&mut out)
        .map_err(|e| e.to_string())?;
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("{name}: the brain exited with {status}"));
    }
    let answers: Vec<&str> = out
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.starts_with("MESSAGE"))
        .collect();
    for (n, want) in expected.iter().enumerate() {
        let got = answers.get(n).ok_or_else(|| {
            format!(
                "{name}: answer {} missing: {want}\nall output:\n{out}",
                n + 1
            )
        })?;
        check(&name, want, got)
            .map_err(|e| format!("{name}: answer {}: {e}\nall output:\n{out}", n + 1))?;
    }
    if answers.len() > expected.len() {
        return Err(format!(
            "{name}: unexpected answers {:?}\nall output:\n{out}",
            &answers[expected.len()..]
        ));
    }
    Ok(())
}

#[test]
fn transcripts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("transcripts folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 5, "transcripts found: {paths:?}");
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|p| run_transcript(p).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Reads answers until one that is not MESSAGE, or gives up at `limit`.
fn next_answer(lines: &std::sync::mpsc::Receiver<String>, limit: Duration) -> Option<String> {
    let until = Instant::now() + limit;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let line = lines.recv_timeout(left).ok()?;
        if !line.starts_with("MESSAGE") {
            return Some(line);
        }
    }
}

fn spawn_interactive() -> (
    std::process::Child,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<String>,
) {
    let mut child = brain()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pbrain-caro starts");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line.trim_end().to_string()).is_err() {
                break;
            }
        }
    });
    (child, stdin, rx)
}

/// A middle-game position where a full search takes far longer than the
/// test waits.
const BUSY: &str =
    "BOARD\r\n7,7,2\r\n8,8,1\r\n8,7,2\r\n6,7,1\r\n9,8,2\r\n7,9,1\r\n10,9,2\r\n6,6,1\r\nDONE\r\n";

#[test]
fn stop_answers_at_once_with_the_best_move_so_far() {
    let (mut child, mut stdin, lines) = spawn_interactive();
    write!(stdin, "INFO timeout_turn 600000\r\nSTART 15\r\n").unwrap();
    assert_eq!(
        next_answer(&lines, Duration::from_secs(30)).as_deref(),
        Some("OK")
    );
    stdin.write_all(BUSY.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    write!(stdin, "YXSTOP\r\n").unwrap();
    // Without STOP the search would think for ten minutes.
    let answer = next_answer(&lines, Duration::from_secs(60)).expect("a move after STOP");
    assert!(is_move(&answer), "{answer}");
    write!(stdin, "END\r\n").unwrap();
    let _ = child.wait();
}

#[test]
fn end_interrupts_a_search_and_exits_without_a_move() {
    let (mut child, mut stdin, lines) = spawn_interactive();
    write!(stdin, "INFO timeout_turn 600000\r\nSTART 15\r\n").unwrap();
    assert_eq!(
        next_answer(&lines, Duration::from_secs(30)).as_deref(),
        Some("OK")
    );
    stdin.write_all(BUSY.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    write!(stdin, "END\r\n").unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < until, "the brain did not exit after END");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    assert_eq!(next_answer(&lines, Duration::from_millis(100)), None);
}

#[test]
fn an_overlong_line_is_an_error_and_the_next_line_is_answered() {
    let (mut child, mut stdin, lines) = spawn_interactive();
    // 4 MiB and no end of line yet: the brain must not wait for the end
    // (holding it all) but answer ERROR as soon as the line is too long.
    let chunk = vec![b'x'; 64 * 1024];
    for _ in 0..64 {
        stdin.write_all(&chunk).unwrap();
    }
    stdin.flush().unwrap();
    let answer = next_answer(&lines, Duration::from_secs(30)).expect("an answer to the long line");
    assert!(
        answer.starts_with("ERROR line too long"),
        "{}",
        &answer[..answer.len().min(200)]
    );
    // The rest of that line is skipped, not read as commands; the next
    // line is answered.
    stdin.write_all(&chunk).unwrap();
    write!(stdin, "\r\nABOUT\r\n").unwrap();
    let about = next_answer(&lines, Duration::from_secs(30)).expect("an answer to ABOUT");
    assert!(
        about.starts_with("name=\"caro\""),
        "{}",
        &about[..about.len().min(200)]
    );
    write!(stdin, "END\r\n").unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(next_answer(&lines, Duration::from_millis(100)), None);
}
