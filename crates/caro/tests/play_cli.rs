//! `caro play` in plain mode driven as a script would: the real binary,
//! moves piped to its standard input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn play(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_caro"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run caro");
    let mut stdin = child.stdin.take().expect("stdin");
    // The game may end before it has read everything: a closed pipe is
    // fine.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("caro finishes")
}

fn stdout_of(args: &[&str], input: &str) -> String {
    let out = play(args, input);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{args:?}: status {:?}\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn refused(args: &[&str]) -> String {
    let out = play(args, "");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn scripted_moves_then_end_of_input() {
    let out = stdout_of(&["--plain", "--white", "human"], "h8\ni9\n");
    assert!(out.contains("black (X) to move> h8"), "{out}");
    assert!(out.contains(" 9 . . . . . . . .[O]. . . . . . 9"), "{out}");
    assert!(out.ends_with("input ended\n"), "{out}");
}

#[test]
fn bad_input_is_answered_and_asked_again() {
    let out = stdout_of(
        &["--white", "human"],
        "h8\nh8\nzz\nz99\n0\nfoo bar\nundo\nundo\nredo\nredo\nhelp\nquit\nh9\n",
    );
    for expected in [
        "h8 is already occupied",
        "not a cell: bad coordinate \"zz\"",
        "not a cell: z99 is off the 15x15 board",
        "not a cell: bad coordinate \"0\"",
        "not a cell: bad coordinate \"foo bar\"",
        "took back 1 move",
        "nothing to undo",
        "replayed 1 move",
        "nothing to redo",
        "commands: undo (u), redo (r)",
        "bye",
    ] {
        assert!(out.contains(expected), "{expected:?} missing from\n{out}");
    }
    assert!(!out.contains("> h9"), "input after quit is not read");
}

#[test]
fn renju_forbidden_points_and_game_over_are_refused() {
    let out = stdout_of(
        &["--rule", "renju", "--white", "human"],
        "h8\na1\ni8\na3\nj9\na5\nj10\na7\nj8\n",
    );
    assert!(
        out.contains("j8 is forbidden for black (double-three)"),
        "{out}"
    );
    let out = stdout_of(
        &["--size", "3", "--white", "human"],
        "1\n4\n2\n5\n3\n6\nnew\n5\n",
    );
    assert!(
        out.contains("result: black wins with 3 in a row: a3 b3 c3"),
        "{out}"
    );
    assert!(out.contains("the game is over: type new or quit"), "{out}");
    assert!(out.contains("new game"), "{out}");
    assert!(out.ends_with("input ended\n"), "{out}");
}

/// Tries the cells in `order`; occupied ones are refused and the next is
/// tried, so every game is played to its end whatever the computer does.
fn human_vs_minimax(human: &str, order: &str, seed: &str) -> String {
    let input: String = order.chars().map(|c| format!("{c}\n")).collect();
    let computer = if human == "black" {
        "--white"
    } else {
        "--black"
    };
    let human_flag = if human == "black" {
        "--black"
    } else {
        "--white"
    };
    stdout_of(
        &[
            "--size",
            "3",
            human_flag,
            "human",
            computer,
            "minimax:4",
            "--time",
            "60s",
            "--seed",
            seed,
        ],
        &input,
    )
}

#[test]
fn minimax_4_never_loses_at_tic_tac_toe() {
    for seed in ["1", "2", "3"] {
        for order in ["123456789", "519372846", "246813579"] {
            for human in ["black", "white"] {
                let out = human_vs_minimax(human, order, seed);
                assert!(out.contains("result: "), "unfinished game:\n{out}");
                assert!(
                    !out.contains(&format!("result: {human} wins")),
                    "minimax lost:\n{out}"
                );
                assert!(out.contains("plays"), "{out}");
            }
        }
    }
}

#[test]
fn undo_against_the_computer_takes_back_its_reply() {
    let out = stdout_of(
        &["--size", "3", "--white", "minimax:4", "--seed", "1"],
        "5\nundo\n",
    );
    assert!(out.contains("white (O, minimax:4) plays"), "{out}");
    assert!(out.contains("took back 2 moves"), "{out}");
    assert!(
        out.ends_with(
            "  a b c\n3 . . . 3\n2 . . . 2\n1 . . . 1\n  a b c\nblack (X) to move> \ninput ended\n"
        ),
        "{out}"
    );
}

#[test]
fn computer_against_computer_plays_a_whole_game() {
    let out = stdout_of(
        &[
            "--size", "9", "--black", "caro:3", "--white", "scoremap", "--time", "50ms", "--depth",
            "2", "--seed", "4",
        ],
        "",
    );
    let moves = out.lines().filter(|l| l.contains(" plays ")).count();
    assert!(moves >= 9, "{out}");
    assert!(out.contains("result: "), "{out}");
    assert!(
        !out.contains("to move>"),
        "nobody is asked for a move:\n{out}"
    );
}

#[test]
fn bad_flags_are_refused_with_the_reason() {
    assert!(refused(&["--opening", "swap9"]).contains("unknown opening"));
    assert!(refused(&["--black", "nobody"]).contains("unknown player"));
    assert!(refused(&["--white", "pbrain:/no/such/engine"]).contains("not a file"));
    assert!(refused(&["--size", "2"]).contains("2"));
    assert!(refused(&["--rule", "renju", "--k", "6"]).contains("renju"));
    assert!(refused(&["--time", "soon"]).contains("bad time"));
}

#[test]
fn a_gomocup_engine_answers_in_plain_mode() {
    let engine = format!("pbrain:{}", env!("CARGO_BIN_EXE_pbrain-caro"));
    let out = stdout_of(
        // A shallow search and a long turn: a debug build on a busy
        // machine must not be late (timing is measured in docs/benchmarks.md).
        &[
            "--size", "9", "--white", &engine, "--time", "10s", "--depth", "2",
        ],
        "e5\nd4\n",
    );
    let replies = out.lines().filter(|l| l.contains(" plays ")).count();
    assert_eq!(replies, 2, "{out}");
    assert!(out.contains("white (O, pbrain:"), "{out}");
    assert!(out.ends_with("input ended\n"), "{out}");
}

#[test]
fn swap2_with_the_choices_typed() {
    let out = stdout_of(
        &["--opening", "swap2", "--white", "human"],
        "h8\ni9\nj10\nh8\nundo\nj10\ntwo\nk11\nl12\nwhite\nm13\n",
    );
    for expected in [
        "swap2 opening; the first player (human) opens, the second player (human) chooses",
        "the first player places a black stone (X)> h8",
        "the second player chooses take-black, take-white, place-two (or black, white, two)> h8",
        "unknown opening choice \"h8\"",
        "took back 1 move",
        "the first player places a black stone (X)> j10",
        "the second player chose place-two",
        "the second player places a black stone (X)> l12",
        "the first player chooses take-black, take-white (or black, white, two)> white",
        "black: the second player (human); white: the first player (human)",
        "white (O, first player) to move> m13",
        "black (X, second player) to move> \ninput ended",
    ] {
        assert!(out.contains(expected), "{expected:?} missing from\n{out}");
    }
}

#[test]
fn a_computer_opens_swap1_and_another_chooses() {
    let out = stdout_of(
        &[
            "--opening",
            "swap1",
            "--size",
            "11",
            "--black",
            "caro:3",
            "--white",
            "scoremap",
            "--time",
            "50ms",
            "--depth",
            "2",
            "--seed",
            "2",
        ],
        "",
    );
    assert!(
        out.contains("the second player (scoremap) chooses take-"),
        "{out}"
    );
    assert!(out.contains("result: "), "{out}");
}

#[test]
fn a_first_to_two_match_between_two_people_alternates_colours() {
    // Each game: black plays the top row (1 2 3), white the middle (4 5).
    let game = "1\n4\n2\n5\n3\n";
    let out = stdout_of(
        &["--size", "3", "--white", "human", "--match", "2"],
        &game.repeat(3),
    );
    for expected in [
        "match, first to 2: player 1 (human) 0, player 2 (human) 0 (game 1); colours alternate game by game",
        "result: black wins with 3 in a row: a3 b3 c3\n\
         match, first to 2: player 1 (human) 1, player 2 (human) 0\n\
         game 2: player 2 (human) opens",
        "match, first to 2: player 1 (human) 1, player 2 (human) 1\n\
         game 3: player 1 (human) opens",
        "match, first to 2: player 1 (human) 2, player 2 (human) 1\n\
         match over: player 1 (human) wins 2-1",
        "match over: new or quit> \ninput ended\n",
    ] {
        assert!(out.contains(expected), "{expected:?} missing from\n{out}");
    }
    assert_eq!(out.matches("result: ").count(), 3, "{out}");
}

#[test]
fn two_computers_play_a_match_to_its_end() {
    let out = stdout_of(
        &[
            "--size", "9", "--black", "random", "--white", "caro:1", "--match", "2", "--depth",
            "1", "--time", "60s", "--seed", "5",
        ],
        "",
    );
    let games = out.matches("result: ").count();
    assert!((2..=3).contains(&games), "{out}");
    let last = out
        .lines()
        .rev()
        .find(|l| l.starts_with("match, first to 2: "))
        .unwrap_or_else(|| panic!("no score in\n{out}"));
    let score: Vec<u32> = last
        .split(", ")
        .skip(1)
        .take(2)
        .map(|part| part.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(score.iter().sum::<u32>() as usize <= games, "{last}");
    assert!(out.contains("game 2: player 2 (caro:1) opens"), "{out}");
    assert!(
        out.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("match over: "),
        "{out}"
    );
    assert!(
        !out.contains("to move>"),
        "nobody is asked for a move:\n{out}"
    );
}

#[test]
fn a_match_length_out_of_range_is_refused() {
    assert!(refused(&["--match", "0"]).contains("0"));
    assert!(refused(&["--match", "11"]).contains("11"));
}

#[test]
fn soosorv8_with_the_person_opening_against_the_computer() {
    // caro:3 takes black after the three opening stones (as its
    // evaluation of today chooses; an engine change may make it choose
    // white, and then this script needs the person's declaration), so the
    // person places the fourth stone as white, and after caro declares
    // its 5th-move offers, keeps white.
    let out = stdout_of(
        &[
            "--rule",
            "renju",
            "--opening",
            "soosorv8",
            "--white",
            "caro:3",
            "--time",
            "50ms",
            "--depth",
            "2",
            "--seed",
            "1",
        ],
        "a1\nh8\nj8\ni8\nj8\nh10\nwhite\n",
    );
    for expected in [
        "soosorv8 opening",
        "the first player places a black stone (X) at the centre> a1",
        "a1 is outside the central 1×1 square this opening stone must go in: the centre, h8",
        "j8 is outside the central 3×3 square this opening stone must go in",
        "the first player places a black stone (X) in the central 5×5 square> j8",
        "the second player (caro:3) chooses take-black",
        "the first player places a white stone (O)> h10",
        "the second player (caro:3) chooses offers-",
        "the first player chooses take-black, take-white (or black, white, two)> white",
        "the first player chose take-white",
        "the first player (white) picks black's 5th move",
    ] {
        assert!(out.contains(expected), "{expected:?} missing from\n{out}");
    }
}

#[test]
fn soosorv8_between_two_people_black_declares_its_offers() {
    let out = stdout_of(
        &[
            "--rule",
            "renju",
            "--opening",
            "soosorv8",
            "--black",
            "human",
            "--white",
            "human",
        ],
        "h8\ni8\nj8\nwhite\nh10\nblack\n2\n",
    );
    for expected in [
        "the second player chose take-white",
        "the second player places a white stone (O)> h10",
        "the first player chose take-black",
        "the first player (black) declares how many 5th moves it will offer: 1 to 8> 2",
        "the first player chose offers-2",
    ] {
        assert!(out.contains(expected), "{expected:?} missing from\n{out}");
    }
}

#[test]
fn soosorv8_with_the_person_as_tentative_white() {
    let out = stdout_of(
        &[
            "--rule",
            "renju",
            "--opening",
            "soosorv8",
            "--black",
            "caro:3",
            "--white",
            "human",
            "--time",
            "50ms",
            "--depth",
            "2",
            "--seed",
            "1",
        ],
        "take-white\nh7\n",
    );
    for expected in [
        "black (X, caro:3, first player) plays h8",
        "the second player chose take-white",
        "the second player places a white stone (O)> h7",
        "the first player (caro:3) chooses take-",
    ] {
        assert!(out.contains(expected), "{expected:?} missing from\n{out}");
    }
}

#[test]
fn a_renju_opening_needs_the_renju_rule() {
    let err = refused(&["--opening", "soosorv8"]);
    assert!(
        err.contains("the soosorv8 opening is a renju opening"),
        "{err}"
    );
    let err = refused(&["--rule", "renju", "--opening", "soosorv20"]);
    assert!(err.contains("soosorvN needs N from 1 to 16"), "{err}");
}

#[test]
fn a_renju_opening_refuses_a_gomocup_engine_before_the_game() {
    let engine = format!("pbrain:{}", env!("CARGO_BIN_EXE_pbrain-caro"));
    for (opening, side) in [
        ("soosorv8", "--black"),
        ("soosorv8", "--white"),
        ("taraguchi10", "--black"),
        ("taraguchi10", "--white"),
    ] {
        let out = play(
            &["--rule", "renju", "--opening", opening, side, &engine],
            "h8\n",
        );
        assert_eq!(out.status.code(), Some(2), "{opening} {side}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("cannot play the {opening} opening"))
                && err.contains("Gomocup protocol"),
            "{opening} {side}: {err}"
        );
        assert!(
            out.stdout.is_empty(),
            "{opening} {side}: no game starts:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
