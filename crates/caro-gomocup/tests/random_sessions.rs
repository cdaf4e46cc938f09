//! Random manager sessions fed to the brain line by line: commands in any
//! order, with coordinates on and off the board, unknown INFO keys and
//! values, stone lines inside and outside BOARD … DONE, garbage and
//! mutated lines. Whatever arrives, the brain must not panic, must answer
//! only lines the protocol allows, must answer a move only by playing it in
//! its own game, and must still play a fresh game afterwards.

use std::sync::Arc;

use caro_core::Pos;
use caro_gomocup::brain::{Brain, Interrupts};
use proptest::prelude::*;

/// INFO keys the brain knows, and some it must ignore.
const INFO_KEYS: [&str; 13] = [
    "timeout_turn",
    "timeout_match",
    "time_left",
    "max_memory",
    "hash_size",
    "rule",
    "max_depth",
    "max_node",
    "thread_num",
    "game_type",
    "folder",
    "evaluate",
    "caution_factor",
];

/// A value for an INFO key. The limits that bound a search (nodes, depth,
/// threads, memory) stay small so that every case is quick; every other
/// key gets anything, including text, negatives and huge numbers.
fn info_value(key: &'static str) -> BoxedStrategy<String> {
    match key {
        "max_node" => (1u64..3_000).prop_map(|n| n.to_string()).boxed(),
        "max_depth" => (1u64..5).prop_map(|n| n.to_string()).boxed(),
        "thread_num" => (0u64..3).prop_map(|n| n.to_string()).boxed(),
        "max_memory" => (0u64..64 << 20).prop_map(|n| n.to_string()).boxed(),
        "hash_size" => (0u64..16_384).prop_map(|n| n.to_string()).boxed(),
        _ => prop_oneof![
            (-5i64..3_000).prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            "[a-z0-9 ._-]{0,12}",
        ]
        .boxed(),
    }
}

/// One line from the manager.
fn line() -> impl Strategy<Value = String> {
    let c = || -2i64..22;
    let pair = || (c(), c()).prop_map(|(x, y)| format!("{x},{y}"));
    prop_oneof![
        4 => (0u32..24).prop_map(|n| format!("START {n}")),
        1 => (0u32..24, 0u32..24).prop_map(|(w, h)| format!("RECTSTART {w},{h}")),
        1 => Just("RESTART".to_string()),
        3 => Just("BEGIN".to_string()),
        8 => pair().prop_map(|p| format!("TURN {p}")),
        2 => prop::sample::select(vec!["BOARD", "YXBOARD", "SWAP2BOARD"]).prop_map(str::to_string),
        8 => (c(), c(), 0u32..5).prop_map(|(x, y, f)| format!("{x},{y},{f}")),
        1 => pair(),
        3 => Just("DONE".to_string()),
        4 => prop::sample::select(INFO_KEYS.to_vec())
            .prop_flat_map(|k| info_value(k).prop_map(move |v| format!("INFO {k} {v}"))),
        2 => pair().prop_map(|p| format!("TAKEBACK {p}")),
        2 => pair().prop_map(|p| format!("PLAY {p}")),
        1 => prop::sample::select(vec![
            "ABOUT", "STOP", "YXSTOP", "YXHASHCLEAR", "YXSHOWFORBID", "END", "",
        ])
        .prop_map(str::to_string),
        2 => "[ -~]{0,24}",
        1 => any::<String>(),
    ]
}

/// A line with up to three of its characters replaced, dropped or doubled
/// (not an INFO line: a mutated limit could make a case slow, and INFO
/// values are already anything).
fn mutated_line() -> impl Strategy<Value = String> {
    (
        line(),
        prop::collection::vec((any::<usize>(), 0u8..3, any::<char>()), 0..3),
    )
        .prop_map(|(line, edits)| {
            if line.starts_with("INFO") {
                return line;
            }
            let mut chars: Vec<char> = line.chars().collect();
            for (at, kind, ch) in edits {
                if chars.is_empty() {
                    break;
                }
                let i = at % chars.len();
                match kind {
                    0 => chars[i] = ch,
                    1 => {
                        chars.remove(i);
                    }
                    _ => chars.insert(i, chars[i]),
                }
            }
            chars.into_iter().collect()
        })
}

/// A brain whose searches are small.
fn brain() -> Brain<Vec<u8>> {
    let mut b = Brain::new(Vec::new(), Arc::new(Interrupts::default()));
    for line in ["INFO max_node 1000", "INFO max_depth 3"] {
        b.handle_line(0, line);
    }
    std::mem::take(b.output());
    b
}

/// The lines the brain wrote for the last line it was given.
fn answers(b: &mut Brain<Vec<u8>>) -> Vec<String> {
    let bytes = std::mem::take(b.output());
    let text = String::from_utf8(bytes).expect("the brain writes UTF-8");
    text.lines().map(str::to_string).collect()
}

/// `x,y` as a point, if the line is one.
fn point(line: &str) -> Option<Pos> {
    let (x, y) = line.split_once(',')?;
    Some(Pos::new(x.parse().ok()?, y.parse().ok()?))
}

/// Whether `line` is something the brain may say.
fn allowed(line: &str) -> bool {
    let first = line.split(' ').next().unwrap_or("");
    matches!(first, "OK" | "ERROR" | "UNKNOWN" | "MESSAGE" | "SWAP")
        || (line.starts_with("FORBID ") && line.ends_with('.'))
        || line.starts_with("name=\"caro\"")
        || (!line.is_empty() && line.split(' ').all(|p| point(p).is_some()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn any_session_is_answered_within_the_protocol(
        lines in prop::collection::vec(prop_oneof![4 => line(), 1 => mutated_line()], 1..40)
    ) {
        let mut b = brain();
        // The last of BOARD, YXBOARD and SWAP2BOARD: a DONE that answers
        // a point ends that one (a later one would have replaced it).
        let mut opened = String::new();
        for (n, line) in lines.iter().enumerate() {
            b.handle_line(n as u64 + 1, line);
            let said = answers(&mut b);
            for out in &said {
                prop_assert!(allowed(out), "after {line:?} the brain said {out:?}");
            }
            // A move answered to TURN, BEGIN, PLAY or BOARD … DONE is the
            // last move of the brain's game, on its board (SWAP2BOARD's
            // answers are proposals, not moves).
            let word = line.trim().split(' ').next().unwrap_or("").to_ascii_uppercase();
            if matches!(word.as_str(), "BOARD" | "YXBOARD" | "SWAP2BOARD") {
                opened.clone_from(&word);
            }
            let moves: Vec<Pos> = said.iter().filter_map(|l| point(l)).collect();
            let a_move = matches!(word.as_str(), "TURN" | "BEGIN" | "PLAY")
                || (word == "DONE" && opened == "BOARD");
            if a_move {
                prop_assert!(moves.len() <= 1, "after {line:?}: {said:?}");
                if let Some(&m) = moves.first() {
                    let game = b.game().expect("a move needs a game");
                    prop_assert_eq!(game.last_move(), Some(m), "after {:?}", line);
                    prop_assert!(game.size().contains(m));
                }
            }
        }
        // Whatever came before, a new game is played (the first START
        // also ends a BOARD left open, which is an error of its own).
        b.handle_line(98, "START 15");
        answers(&mut b);
        for line in ["INFO rule 0", "INFO max_node 1000", "START 15", "BEGIN"] {
            b.handle_line(99, line);
        }
        let said: Vec<String> = answers(&mut b)
            .into_iter()
            .filter(|l| !l.starts_with("MESSAGE"))
            .collect();
        prop_assert_eq!(said.len(), 2, "{:?}", said);
        prop_assert_eq!(said[0].as_str(), "OK");
        let m = point(&said[1]);
        prop_assert!(m.is_some_and(|m| m.x < 15 && m.y < 15), "{:?}", said);
        prop_assert_eq!(b.game().and_then(|g| g.last_move()), m);
    }
}
