//! Lines from a manager, whatever they hold, fed to the Gomocup brain:
//! it must never panic, and must answer only lines the protocol allows.
//! The search limits stay small so that every input is quick: the limit
//! keys of INFO (nodes, depth, threads, memory) are set once and lines
//! that would raise them are skipped.
#![no_main]

use std::sync::Arc;

use caro_gomocup::brain::{Brain, Interrupts};
use libfuzzer_sys::fuzz_target;

/// INFO keys whose values could make one input slow or huge.
const HEAVY: [&str; 7] = [
    "max_node",
    "max_depth",
    "thread_num",
    "max_memory",
    "hash_size",
    "timeout_turn",
    "timeout_match",
];

fn heavy(line: &str) -> bool {
    let mut words = line.split_whitespace();
    let info = words.next().is_some_and(|w| w.eq_ignore_ascii_case("INFO"));
    info && words
        .next()
        .is_some_and(|k| HEAVY.iter().any(|h| k.eq_ignore_ascii_case(h)))
}

/// Whether `line` is something the brain may say.
fn allowed(line: &str) -> bool {
    let point = |p: &str| {
        p.split_once(',')
            .is_some_and(|(x, y)| x.parse::<u8>().is_ok() && y.parse::<u8>().is_ok())
    };
    let first = line.split(' ').next().unwrap_or("");
    matches!(
        first,
        "OK" | "ERROR" | "UNKNOWN" | "MESSAGE" | "SWAP" | "DEBUG"
    ) || (line.starts_with("FORBID ") && line.ends_with('.'))
        || line.starts_with("name=\"caro\"")
        || (!line.is_empty() && line.split(' ').all(point))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut brain = Brain::new(Vec::new(), Arc::new(Interrupts::default()));
    for line in [
        "INFO max_node 800",
        "INFO max_depth 3",
        "INFO thread_num 1",
        "INFO timeout_turn 2000",
    ] {
        brain.handle_line(0, line);
    }
    std::mem::take(brain.output());
    for (n, line) in text.split('\n').enumerate().take(64) {
        if heavy(line) {
            continue;
        }
        let flow = brain.handle_line(n as u64 + 1, line);
        let said = String::from_utf8(std::mem::take(brain.output())).expect("UTF-8 answers");
        for out in said.lines() {
            assert!(allowed(out), "after {line:?} the brain said {out:?}");
        }
        if flow == caro_gomocup::brain::Flow::Exit {
            break;
        }
    }
});
