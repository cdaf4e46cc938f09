//! The plain line mode: prints the board, reads one move or command a
//! line, answers bad input with the reason and asks again. Works over any
//! reader and writer, so pipes, scripts and tests drive it alike:
//!
//! ```sh
//! printf 'h8\ni9\n' | caro play --plain --white human
//! ```

use std::io::{BufRead, Write};
use std::time::Duration;

use caro_core::notation::format_pos;
use caro_core::opening::{Choice, Opening, Seat};
use caro_core::{Color, Game};

use crate::session::{PlayError, Session, SessionEvent, Turn};
use crate::text::{board_text, info_text, parse_cell, stone};
use crate::TuiError;

/// How long the plain mode waits for one engine answer before checking
/// again (the engine keeps its own time limit).
const WAIT_STEP: Duration = Duration::from_millis(200);

/// A line the person typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command<'a> {
    Undo,
    Redo,
    New,
    Board,
    Resign,
    Help,
    Quit,
    Move(&'a str),
}

fn command(line: &str) -> Command<'_> {
    match line.trim().to_ascii_lowercase().as_str() {
        "undo" | "u" => Command::Undo,
        "redo" | "r" => Command::Redo,
        "new" | "n" => Command::New,
        "board" | "b" => Command::Board,
        "resign" => Command::Resign,
        "help" | "h" | "?" => Command::Help,
        "quit" | "q" | "exit" => Command::Quit,
        _ => Command::Move(line.trim()),
    }
}

fn help(game: &Game) -> String {
    let size = game.size();
    let mut text = format!(
        "type a point such as {} (column letter, row number counted from the bottom)",
        caro_core::notation::format_pos(size.center(), size)
    );
    if size == caro_core::BoardSize::square(3) {
        text.push_str(", or a cell number:\n  1 2 3\n  4 5 6\n  7 8 9\n");
    } else {
        text.push('\n');
    }
    text.push_str(
        "commands: undo (u), redo (r), new (n), board (b), resign, help (h), quit (q)\n\
         against a computer, undo takes back its reply too\n\
         in a swap opening, choose with take-black, take-white or place-two (or black, white, two)\n",
    );
    text
}

fn seat_label(session: &Session, color: Color) -> String {
    mover_label(session, session.seat_of(color), color)
}

/// `white (O, caro:5)`, with `, second player` in a swap opening.
fn mover_label(session: &Session, seat: Seat, color: Color) -> String {
    let mut text = format!("{color} ({}, {}", stone(color), session.player(seat).name());
    if session.opening().opening() != Opening::Free {
        text.push_str(&format!(", {seat} player"));
    }
    text.push(')');
    text
}

/// Who plays which colour, once a swap opening has decided it.
fn colours_text(session: &Session) -> String {
    let who = |color: Color| {
        let seat = session.seat_of(color);
        format!("the {seat} player ({})", session.player(seat).name())
    };
    format!("black: {}; white: {}", who(Color::Black), who(Color::White))
}

/// The prompt of a renju opening's choice: a swap in words, the
/// declaration of Soosõrv, Taraguchi's choice; `None` for the others.
fn renju_choice_prompt(seat: Seat, options: &[Choice]) -> Option<String> {
    match options {
        [Choice::Offers(_), ..] => Some(format!(
            "the {seat} player (black) declares how many 5th moves it will offer: 1 to {}",
            options.len()
        )),
        [Choice::PlaceFifth, Choice::OfferFifths] => Some(format!(
            "the {seat} player (black) chooses place-fifth (a 5th stone in the central 9×9) \
             or offer-fifths (ten 5th moves for white to pick from)"
        )),
        _ => None,
    }
}

fn choices_text(options: &[Choice]) -> String {
    options
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Plays a game on `input` and `output` until the person quits, the input
/// ends, or (with no person playing) the game ends.
///
/// # Errors
/// [`TuiError::Io`] when reading or writing fails, [`TuiError::Engine`]
/// when a computer cannot move.
pub fn run_plain<R: BufRead, W: Write>(
    session: &mut Session,
    input: R,
    out: W,
) -> Result<(), TuiError> {
    run(session, input, out, false)
}

/// Like [`run_plain`], and writes each line read after its prompt, so a
/// transcript of piped input reads like a typed game.
///
/// # Errors
/// As [`run_plain`].
pub fn run_plain_echoing<R: BufRead, W: Write>(
    session: &mut Session,
    input: R,
    out: W,
) -> Result<(), TuiError> {
    run(session, input, out, true)
}

fn run<R: BufRead, W: Write>(
    session: &mut Session,
    mut input: R,
    mut out: W,
    echo: bool,
) -> Result<(), TuiError> {
    let rules = *session.rules();
    let opening = session.opening().opening();
    if opening == Opening::Free {
        writeln!(
            out,
            "caro: {} {}, {} in a row; {} against {}",
            rules.rule,
            rules.size,
            rules.k,
            seat_label(session, Color::Black),
            seat_label(session, Color::White)
        )?;
    } else {
        writeln!(
            out,
            "caro: {} {}, {} in a row, {opening} opening; the first player ({}) opens, the second player ({}) chooses",
            rules.rule,
            rules.size,
            rules.k,
            session.player(Seat::First).name(),
            session.player(Seat::Second).name()
        )?;
    }
    if let Some(text) = session.match_text() {
        writeln!(out, "{text}; colours alternate game by game")?;
    }
    writeln!(out, "type a move such as {}, or help", {
        caro_core::notation::format_pos(rules.size.center(), rules.size)
    })?;
    let mut show_board = true;
    let mut announced = false;
    let mut line = String::new();
    loop {
        if show_board {
            write!(out, "{}", board_text(session.game()))?;
            show_board = false;
        }
        if let Some(sentence) = session.ending_sentence() {
            if !announced {
                writeln!(out, "result: {sentence}")?;
                if let Some(text) = session.match_text() {
                    writeln!(out, "{text}")?;
                }
                if let Some(text) = session.match_result() {
                    writeln!(out, "{text}")?;
                }
                announced = true;
            }
            if session.series().is_some() && !session.match_over() {
                // The next game of the match starts by itself.
                session.new_game();
                writeln!(out, "{}", session.notice().unwrap_or_default())?;
                show_board = true;
                continue;
            }
            if !session.has_human() {
                return Ok(());
            }
        } else {
            announced = false;
            if !session.human_to_move() {
                if session.is_paused() {
                    let reason = session.notice().unwrap_or("the computer stopped");
                    return Err(TuiError::Engine(reason.to_string()));
                }
                for event in session.wait(WAIT_STEP) {
                    match event {
                        SessionEvent::ComputerOffered { seat, pos } => {
                            writeln!(
                                out,
                                "the {seat} player ({}) offers {} as a 5th move",
                                session.player(seat).name(),
                                format_pos(pos, rules.size)
                            )?;
                        }
                        SessionEvent::ComputerChose { seat, choice } => {
                            writeln!(
                                out,
                                "the {seat} player ({}) chooses {choice}",
                                session.player(seat).name()
                            )?;
                            if session.opening().is_done() {
                                writeln!(out, "{}", colours_text(session))?;
                            }
                        }
                        SessionEvent::ComputerMoved {
                            seat,
                            color,
                            pos,
                            info,
                            ..
                        } => {
                            let mut text = format!(
                                "{} plays {}",
                                mover_label(session, seat, color),
                                caro_core::notation::format_pos(pos, rules.size)
                            );
                            if let Some(info) = info {
                                text.push_str(&format!(" ({})", info_text(&info, rules.size)));
                            }
                            writeln!(out, "{text}")?;
                            show_board = true;
                        }
                        SessionEvent::NextGame => {
                            writeln!(out, "{}", session.notice().unwrap_or_default())?;
                            show_board = true;
                        }
                        SessionEvent::EngineFailed { color, error } => {
                            return Err(TuiError::Engine(format!(
                                "{} could not move: {error}",
                                seat_label(session, color)
                            )));
                        }
                    }
                }
                out.flush()?;
                continue;
            }
        }
        let turn = session.turn();
        let prompt = match turn {
            Turn::Over if session.match_over() => "match over: new or quit".to_string(),
            Turn::Over => "game over: new or quit".to_string(),
            Turn::Choose { seat, options } => {
                renju_choice_prompt(seat, options).unwrap_or_else(|| {
                    format!(
                        "the {seat} player chooses {} (or black, white, two)",
                        choices_text(options)
                    )
                })
            }
            Turn::Offer { seat, made, total } => format!(
                "the {seat} player (black) offers a 5th move, {} of {total}: a point",
                made + 1
            ),
            Turn::Pick { seat } => {
                let offers: Vec<String> = session
                    .offers()
                    .iter()
                    .map(|&p| format_pos(p, rules.size))
                    .collect();
                format!(
                    "the {seat} player (white) picks black's 5th move: {}",
                    offers.join(", ")
                )
            }
            Turn::Move { seat, color } if !session.opening().is_done() => {
                let zone = session
                    .opening()
                    .zone()
                    .map(|r| {
                        if r == 0 {
                            " at the centre".to_string()
                        } else {
                            format!(" in the central {0}×{0} square", 2 * r + 1)
                        }
                    })
                    .unwrap_or_default();
                format!(
                    "the {seat} player places a {color} stone ({}){zone}",
                    stone(color)
                )
            }
            Turn::Move { seat, color } if opening != Opening::Free => {
                format!("{color} ({}, {seat} player) to move", stone(color))
            }
            Turn::Move { color, .. } => format!("{color} ({}) to move", stone(color)),
        };
        write!(out, "{prompt}> ")?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            writeln!(out, "input ended")?;
            return Ok(());
        }
        if echo {
            writeln!(out, "{}", line.trim_end())?;
        }
        if line.trim().is_empty() {
            continue;
        }
        match command(&line) {
            Command::Quit => {
                writeln!(out, "bye")?;
                return Ok(());
            }
            Command::Help => write!(out, "{}", help(session.game()))?,
            Command::Board => show_board = true,
            Command::Resign => match session.resign() {
                Ok(_) => show_board = true,
                Err(PlayError::GameOver) => {
                    writeln!(out, "the game is over: type new or quit")?;
                }
                Err(e) => writeln!(out, "{e}")?,
            },
            Command::New => {
                show_board = session.new_game();
                writeln!(out, "{}", session.notice().unwrap_or_default())?;
            }
            Command::Undo | Command::Redo => {
                let n = if command(&line) == Command::Undo {
                    session.undo()
                } else {
                    session.redo()
                };
                writeln!(out, "{}", session.notice().unwrap_or_default())?;
                show_board = n > 0;
            }
            Command::Move(text) if matches!(turn, Turn::Choose { .. }) => {
                match text.parse::<Choice>().map(|c| session.choose(c)) {
                    Ok(Ok(())) => {
                        writeln!(out, "{}", session.notice().unwrap_or_default())?;
                        if session.opening().is_done() {
                            writeln!(out, "{}", colours_text(session))?;
                        }
                    }
                    Ok(Err(e)) => writeln!(out, "{e}")?,
                    Err(e) => writeln!(out, "{e}")?,
                }
            }
            Command::Move(text) => match parse_cell(text, rules.size) {
                Err(e) => writeln!(out, "{e}")?,
                Ok(pos) => match session.play(pos) {
                    // The board is shown again before the next person's turn.
                    Ok(_) => show_board = session.human_to_move() || session.game().is_over(),
                    Err(PlayError::GameOver) => {
                        writeln!(out, "the game is over: type new or quit")?;
                    }
                    Err(e) => writeln!(out, "{e}")?,
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{SeatKind, SessionConfig};
    use caro_core::{BoardSize, Rule, Rules};

    fn play(size: u8, rule: Rule, input: &str) -> String {
        let size = BoardSize::square(size);
        let rules = Rules::new(size, Rules::default_k(size), rule).unwrap();
        let config = SessionConfig::new(rules, SeatKind::Human, SeatKind::Human);
        let mut session = Session::new(config).unwrap();
        let mut out = Vec::new();
        run_plain_echoing(&mut session, input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn cell_numbers_win_on_three_by_three() {
        let out = play(3, Rule::Freestyle, "1\n4\n2\n5\n3\n");
        assert!(
            out.contains("result: black wins with 3 in a row: a3 b3 c3"),
            "{out}"
        );
        assert!(
            out.contains("3[X]X X 3") || out.contains("3 X X[X]3"),
            "{out}"
        );
        assert!(
            out.ends_with("game over: new or quit> \ninput ended\n"),
            "{out}"
        );
    }

    #[test]
    fn bad_input_gets_the_reason_and_a_new_prompt() {
        let out = play(3, Rule::Freestyle, "5\n5\n0\nzz\nq9\n\nhelp\nquit\n");
        assert!(out.contains("b2 is already occupied"), "{out}");
        assert!(out.contains("not a cell: 0 (the cells of 3x3"), "{out}");
        assert!(out.contains("not a cell: bad coordinate \"zz\""), "{out}");
        assert!(out.contains("not a cell: q9 is off the 3x3 board"), "{out}");
        assert!(out.contains("type a point such as b2"), "{out}");
        assert!(out.contains("  1 2 3\n  4 5 6\n  7 8 9\n"), "{out}");
        assert!(out.ends_with("quit\nbye\n"), "{out}");
    }

    #[test]
    fn renju_forbidden_point_is_refused() {
        let out = play(
            15,
            Rule::Renju,
            "h8\na1\ni8\na3\nj9\na5\nj10\na7\nj8\nboard\n",
        );
        assert!(
            out.contains("j8 is forbidden for black (double-three)"),
            "{out}"
        );
        assert!(out.contains("black (X) to move> board"), "{out}");
    }

    #[test]
    fn undo_redo_and_new_game() {
        let out = play(3, Rule::Freestyle, "5\nundo\nundo\nredo\nnew\n1\n");
        assert!(out.contains("took back 1 move"), "{out}");
        assert!(out.contains("nothing to undo"), "{out}");
        assert!(out.contains("replayed 1 move"), "{out}");
        assert!(out.contains("new game"), "{out}");
        assert!(out.contains("3[X]. . 3"), "{out}");
    }

    #[test]
    fn resigning_ends_the_game_for_the_person_to_move() {
        let out = play(15, Rule::Freestyle, "h8\nresign\nresign\nh9\n");
        assert!(out.contains("result: black wins: white resigned"), "{out}");
        assert!(out.contains("the game is over"), "{out}");
    }

    #[test]
    fn renju_boards_mark_blacks_forbidden_points() {
        let out = play(15, Rule::Renju, "f8\na1\ng8\na3\nh10\na5\nh9\na7\n");
        assert!(out.contains("3"), "{out}");
        assert!(
            out.lines()
                .any(|l| l.starts_with(" 8") && l.contains(". . . . . X X 3")),
            "{out}"
        );
    }

    #[test]
    fn a_draw_on_a_full_board() {
        let out = play(3, Rule::Freestyle, "1\n2\n3\n5\n4\n6\n8\n7\n9\n");
        assert!(out.contains("result: draw"), "{out}");
    }
}
