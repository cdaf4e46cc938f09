//! The full-screen board: ratatui draws it, crossterm reads keys and the
//! mouse. [`App`] holds the state and turns events into session calls, so
//! tests drive it headless through ratatui's `TestBackend`;
//! [`run_fullscreen`] is the real terminal's loop.
//!
//! Keys: arrows or `hjkl` move the cursor, Enter or space places a stone
//! (a left click places one where it points), `u` / `r` undo and redo, `n`
//! starts a new game, `p` pauses or resumes computers, `q` quits after
//! asking; in a swap opening `b`, `w` and `t` take black, take white or
//! place two more stones. In Soosõrv black declares its number of 5th
//! moves by typing it: a count that no further digit could extend is
//! declared at once (`5` in Soosõrv-8, `1` `4` in Soosõrv-16), any other
//! with Enter (`1` Enter); Backspace takes the last digit back.

use std::io::{self, Stdout};
use std::time::{Duration, Instant};

use caro_core::notation::{column_name, format_pos};
use caro_core::opening::{Choice, Opening, Seat};
use caro_core::{Color, Foul, Pos};
use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyCode, KeyEvent, KeyEventKind,
    KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color as Tint, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::{Frame, Terminal};

use crate::session::{PlayError, Session, Turn};
use crate::text::{info_text, stone};
use crate::TuiError;

/// Columns one board point takes on screen: `" X "`, or `"[X]"` under the
/// cursor.
const CELL_WIDTH: u16 = 3;
/// Width of the panel beside the board.
const PANEL_WIDTH: u16 = 34;
/// Lines of the status bar.
const STATUS_HEIGHT: u16 = 2;
/// How long the loop waits for a key before letting computers move.
const TICK: Duration = Duration::from_millis(40);

/// What the loop should do after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep going.
    Continue,
    /// Leave the game.
    Quit,
}

/// The full-screen game: a [`Session`] plus what only the screen needs
/// (scrolling, the quit question, where the board was drawn).
pub struct App {
    session: Session,
    confirm_quit: bool,
    /// First column and row of the board shown (boards larger than the
    /// terminal scroll with the cursor).
    offset: (u8, u8),
    /// Where the points were drawn last time: left, top, columns, rows.
    cells: Rect,
    /// The number of 5th moves typed so far in Soosõrv's declaration,
    /// waiting for Enter or another digit.
    typed_count: Option<u8>,
}

impl App {
    /// A screen for `session`.
    #[must_use]
    pub fn new(session: Session) -> App {
        App {
            session,
            confirm_quit: false,
            offset: (0, 0),
            cells: Rect::default(),
            typed_count: None,
        }
    }

    /// The session shown.
    #[must_use]
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session shown, to change.
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Whether the quit question is showing.
    #[must_use]
    pub fn confirming_quit(&self) -> bool {
        self.confirm_quit
    }

    /// Lets computers move (call on every tick).
    pub fn tick(&mut self, now: Instant) {
        self.session.poll(now);
    }

    /// Handles any terminal event.
    pub fn handle_event(&mut self, event: &Event) -> Flow {
        match event {
            Event::Key(key) => self.handle_key(*key),
            Event::Mouse(mouse) => self.handle_mouse(*mouse),
            _ => Flow::Continue,
        }
    }

    fn place(&mut self, pos: Pos) {
        self.session.set_cursor(pos);
        match self.session.play(pos) {
            Ok(_) => {}
            Err(PlayError::GameOver) => {
                let text = if self.session.series().is_some() {
                    "the game is over: n next game, q quit"
                } else {
                    "the game is over: n new game, q quit"
                };
                self.session.set_notice(text);
            }
            Err(e) => self.session.set_notice(e.to_string()),
        }
    }

    /// Handles a key.
    pub fn handle_key(&mut self, key: KeyEvent) -> Flow {
        if key.kind == KeyEventKind::Release {
            return Flow::Continue;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Flow::Quit;
        }
        if self.confirm_quit {
            self.confirm_quit = false;
            return match key.code {
                KeyCode::Char('y' | 'Y' | 'q') | KeyCode::Enter => Flow::Quit,
                _ => {
                    self.session.clear_notice();
                    Flow::Continue
                }
            };
        }
        if let Some(most) = self.declarable_count() {
            match key.code {
                KeyCode::Char(c) if c.is_ascii_digit() => {
                    self.type_count_digit(c as u8 - b'0', most);
                    return Flow::Continue;
                }
                KeyCode::Enter if self.typed_count.is_some() => {
                    if let Some(count) = self.typed_count.take() {
                        self.declare(count);
                    }
                    return Flow::Continue;
                }
                KeyCode::Backspace if self.typed_count.is_some() => {
                    self.typed_count = self.typed_count.map(|n| n / 10).filter(|&n| n > 0);
                    self.session.clear_notice();
                    return Flow::Continue;
                }
                _ => {}
            }
        } else {
            self.typed_count = None;
        }
        match key.code {
            KeyCode::Left | KeyCode::Char('h') => self.session.move_cursor(-1, 0),
            KeyCode::Right | KeyCode::Char('l') => self.session.move_cursor(1, 0),
            KeyCode::Up | KeyCode::Char('k') => self.session.move_cursor(0, -1),
            KeyCode::Down | KeyCode::Char('j') => self.session.move_cursor(0, 1),
            KeyCode::Enter | KeyCode::Char(' ') => self.place(self.session.cursor()),
            KeyCode::Char('u') => {
                self.session.undo();
            }
            KeyCode::Char('r') => {
                self.session.redo();
            }
            KeyCode::Char('n') => {
                self.session.new_game();
            }
            KeyCode::Char('R') => {
                if let Err(e) = self.session.resign() {
                    self.session.set_notice(e.to_string());
                }
            }
            KeyCode::Char(c @ ('b' | 'w' | 't' | 'f' | 'o' | '1'..='9')) => {
                let choice = match c {
                    'b' => Choice::TakeBlack,
                    'w' => Choice::TakeWhite,
                    'f' => Choice::PlaceFifth,
                    'o' => Choice::OfferFifths,
                    // Not a declaration now: the session says what is due.
                    d @ '1'..='9' => Choice::Offers(d as u8 - b'0'),
                    _ => Choice::PlaceTwo,
                };
                if let Err(e) = self.session.choose(choice) {
                    self.session.set_notice(e.to_string());
                }
            }
            KeyCode::Char('p') => {
                let paused = self.session.toggle_pause();
                self.session
                    .set_notice(if paused { "paused" } else { "resumed" });
            }
            KeyCode::Char('q') | KeyCode::Esc => {
                self.confirm_quit = true;
                self.session.set_notice("quit? y / n");
            }
            _ => {}
        }
        Flow::Continue
    }

    /// The most 5th moves black may declare, when a person declares now
    /// (Soosõrv-N's declaration, 1 to N).
    fn declarable_count(&self) -> Option<u8> {
        match self.session.turn() {
            Turn::Choose { seat, options } if self.session.is_human_seat(seat) => options
                .iter()
                .filter_map(|c| match c {
                    Choice::Offers(n) => Some(*n),
                    _ => None,
                })
                .max(),
            _ => None,
        }
    }

    /// Adds a typed digit to the declared count: declares it when no
    /// further digit could make a count up to `most`, refuses a count
    /// above `most`, and otherwise waits for Enter or another digit.
    fn type_count_digit(&mut self, digit: u8, most: u8) {
        let count = u16::from(self.typed_count.unwrap_or(0)) * 10 + u16::from(digit);
        match u8::try_from(count) {
            Ok(0) => {
                self.typed_count = None;
                self.session
                    .set_notice(format!("declare from 1 to {most} 5th moves"));
            }
            Ok(count) if count <= most => {
                if u16::from(count) * 10 > u16::from(most) {
                    self.typed_count = None;
                    self.declare(count);
                } else {
                    self.typed_count = Some(count);
                    self.session.set_notice(format!(
                        "{count}… Enter declares {count} 5th moves, another digit makes it more"
                    ));
                }
            }
            _ => {
                self.typed_count = None;
                self.session.set_notice(format!(
                    "{count} is too many: declare from 1 to {most} 5th moves"
                ));
            }
        }
    }

    /// Declares `count` 5th moves for the person whose turn it is.
    fn declare(&mut self, count: u8) {
        if let Err(e) = self.session.choose(Choice::Offers(count)) {
            self.session.set_notice(e.to_string());
        }
    }

    /// The number of 5th moves typed so far, waiting for Enter.
    #[must_use]
    pub fn typed_count(&self) -> Option<u8> {
        self.typed_count
    }

    /// Handles the mouse: a left click on a point places a stone there.
    pub fn handle_mouse(&mut self, mouse: MouseEvent) -> Flow {
        if mouse.kind != MouseEventKind::Down(MouseButton::Left) {
            return Flow::Continue;
        }
        if let Some(pos) = self.point_at(mouse.column, mouse.row) {
            self.confirm_quit = false;
            self.place(pos);
        }
        Flow::Continue
    }

    /// The board point drawn at a screen cell, if any.
    #[must_use]
    pub fn point_at(&self, column: u16, row: u16) -> Option<Pos> {
        let c = self.cells;
        if column < c.x
            || row < c.y
            || column >= c.x + c.width * CELL_WIDTH
            || row >= c.y + c.height
        {
            return None;
        }
        let x = u16::from(self.offset.0) + (column - c.x) / CELL_WIDTH;
        let y = u16::from(self.offset.1) + (row - c.y);
        Some(Pos::new(u8::try_from(x).ok()?, u8::try_from(y).ok()?))
    }

    /// Draws everything.
    pub fn render(&mut self, frame: &mut Frame<'_>) {
        let [main, status] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(STATUS_HEIGHT)])
                .areas(frame.area());
        let [board, panel] =
            Layout::horizontal([Constraint::Min(10), Constraint::Length(PANEL_WIDTH)]).areas(main);
        self.render_board(frame, board);
        self.render_panel(frame, panel);
        self.render_status(frame, status);
    }

    /// Scrolls so the cursor stays in view with `cols` × `rows` points
    /// shown.
    fn scroll(&mut self, cols: u8, rows: u8) {
        let size = self.session.rules().size;
        let cursor = self.session.cursor();
        let fit = |offset: u8, at: u8, shown: u8, total: u8| -> u8 {
            let mut o = offset;
            if at < o {
                o = at;
            } else if at >= o.saturating_add(shown) {
                o = at + 1 - shown;
            }
            o.min(total.saturating_sub(shown))
        };
        self.offset = (
            fit(self.offset.0, cursor.x, cols, size.width),
            fit(self.offset.1, cursor.y, rows, size.height),
        );
    }

    fn render_board(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let session = &self.session;
        let rules = *session.rules();
        let size = rules.size;
        let title = format!(" caro: {} {}, {} in a row ", rules.rule, size, rules.k);
        let block = Block::bordered().title(title);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let label = size.height.to_string().len() as u16;
        let cols = (inner.width.saturating_sub(2 * label + 1) / CELL_WIDTH)
            .min(u16::from(size.width))
            .max(1);
        let rows = inner
            .height
            .saturating_sub(2)
            .min(u16::from(size.height))
            .max(1);
        self.scroll(cols as u8, rows as u8);
        let session = &self.session;
        let game = session.game();
        let (ox, oy) = self.offset;
        let cursor = session.cursor();
        let last = game.last_move();
        let win: Vec<Pos> = game
            .outcome()
            .and_then(|o| o.line())
            .map(|l| l.to_vec())
            .unwrap_or_default();
        let fouls: Vec<(Pos, Foul)> = if session.human_to_move()
            && game.to_move() == Color::Black
            && rules.rule.has_fouls()
        {
            game.black_forbidden_points()
        } else {
            Vec::new()
        };
        let dim = Style::default().fg(Tint::DarkGray);
        let mut letters = vec![Span::raw(" ".repeat(label as usize))];
        for x in ox..ox.saturating_add(cols as u8).min(size.width) {
            letters.push(Span::styled(format!("{:^3}", column_name(x)), dim));
        }
        let mut lines = vec![Line::from(letters.clone())];
        for y in oy..oy.saturating_add(rows as u8).min(size.height) {
            let number = size.height - y;
            let mut spans = vec![Span::styled(
                format!("{number:>width$}", width = label as usize),
                dim,
            )];
            for x in ox..ox.saturating_add(cols as u8).min(size.width) {
                let p = Pos::new(x, y);
                let (ch, mut style) = match game.board().get(p) {
                    Some(Color::Black) => (
                        stone(Color::Black),
                        Style::default()
                            .fg(Tint::LightRed)
                            .add_modifier(Modifier::BOLD),
                    ),
                    Some(Color::White) => (
                        stone(Color::White),
                        Style::default()
                            .fg(Tint::LightCyan)
                            .add_modifier(Modifier::BOLD),
                    ),
                    None => match fouls.iter().find(|(q, _)| *q == p) {
                        Some((_, foul)) => (
                            match foul {
                                Foul::DoubleThree => '3',
                                Foul::DoubleFour => '4',
                                Foul::Overline => '6',
                            },
                            Style::default().fg(Tint::Red),
                        ),
                        None => ('.', dim),
                    },
                };
                if win.contains(&p) {
                    style = style.bg(Tint::Green).fg(Tint::Black);
                } else if last == Some(p) {
                    style = style.bg(Tint::Yellow).fg(Tint::Black);
                }
                let (open, close) = if p == cursor {
                    ('[', ']')
                } else if last == Some(p) {
                    ('(', ')')
                } else {
                    (' ', ' ')
                };
                spans.push(Span::styled(format!("{open}{ch}{close}"), style));
            }
            spans.push(Span::styled(format!("{number}"), dim));
            lines.push(Line::from(spans));
        }
        lines.push(Line::from(letters));
        self.cells = Rect::new(inner.x + label, inner.y + 1, cols, rows);
        frame.render_widget(Paragraph::new(lines), inner);
    }

    fn render_panel(&self, frame: &mut Frame<'_>, area: Rect) {
        let session = &self.session;
        let game = session.game();
        let size = session.rules().size;
        let mut lines: Vec<Line<'_>> = Vec::new();
        let opening = session.opening();
        let acting = match session.turn() {
            Turn::Move { seat, .. }
            | Turn::Choose { seat, .. }
            | Turn::Offer { seat, .. }
            | Turn::Pick { seat } => Some(seat),
            Turn::Over => None,
        };
        let marker = |on: bool| if on { "▶ " } else { "  " };
        if opening.opening() == Opening::Free {
            for color in Color::ALL {
                lines.push(Line::from(format!(
                    "{}{} {color}: {}",
                    marker(acting.is_some() && game.to_move() == color),
                    stone(color),
                    session.seat(color).name()
                )));
            }
        } else {
            lines.push(Line::from(format!("  {} opening", opening.opening())));
            for seat in Seat::ALL {
                let colour = opening
                    .seat_of(Color::Black)
                    .map(|b| {
                        if b == seat {
                            " (X black)"
                        } else {
                            " (O white)"
                        }
                    })
                    .unwrap_or_default();
                lines.push(Line::from(format!(
                    "{}{seat}: {}{colour}",
                    marker(acting == Some(seat)),
                    session.player(seat).name()
                )));
            }
        }
        if let Some(series) = session.series() {
            let score = series.score();
            let game = series.games_played() + usize::from(!session.table().is_over());
            lines.push(Line::from(format!(
                "  match, first to {}, game {}",
                series.first_to(),
                game.max(1)
            )));
            for (player, wins) in score.iter().enumerate() {
                lines.push(Line::from(format!(
                    "  {}: {wins}",
                    session.player_label(player)
                )));
            }
            if series.draws() > 0 {
                lines.push(Line::from(format!("  drawn: {}", series.draws())));
            }
        }
        lines.push(Line::from(format!(
            "  moves: {}{}",
            game.moves().len(),
            game.last_move()
                .map(|p| format!(", last {}", format_pos(p, size)))
                .unwrap_or_default()
        )));
        lines.push(Line::from(""));
        match session.info() {
            Some((color, info)) => {
                let state = if session.thinking() == Some(*color) {
                    "thinking"
                } else {
                    "last search"
                };
                lines.push(Line::from(format!("{color} {state}:")));
                lines.push(Line::from(info_text(info, size)));
            }
            None => {
                if let Some(color) = session.thinking() {
                    lines.push(Line::from(format!("{color} thinking…")));
                }
            }
        }
        lines.push(Line::from(""));
        let key = Style::default().add_modifier(Modifier::BOLD);
        for (k, what) in [
            ("arrows/hjkl", "move"),
            ("enter/space", "place (or click)"),
            ("u / r", "undo / redo"),
            ("R", "resign"),
            ("n", "new game"),
            ("b / w / t", "swap choice"),
            ("p", "pause computers"),
            ("q", "quit"),
        ] {
            lines.push(Line::from(vec![
                Span::styled(format!("{k:<12}"), key),
                Span::raw(what),
            ]));
        }
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .block(Block::bordered().title(" players ")),
            area,
        );
    }

    fn render_status(&self, frame: &mut Frame<'_>, area: Rect) {
        let session = &self.session;
        let game = session.game();
        let first = if let Some(sentence) = session.ending_sentence() {
            let keys = match (session.series().is_some(), session.match_over()) {
                (false, _) => "n new game, q quit".to_string(),
                (true, false) => "n next game, q quit".to_string(),
                (true, true) => format!(
                    "{}; n new match, q quit",
                    session.match_result().unwrap_or_default()
                ),
            };
            Span::styled(
                format!("{sentence} — {keys}"),
                Style::default().add_modifier(Modifier::BOLD),
            )
        } else if let Turn::Choose { seat, options } = session.turn() {
            let keys: Vec<String> = options
                .iter()
                .filter_map(|c| match c {
                    Choice::TakeBlack => Some("b take black"),
                    Choice::TakeWhite => Some("w take white"),
                    Choice::PlaceTwo => Some("t place two more"),
                    Choice::PlaceFifth => Some("f place the 5th stone"),
                    Choice::OfferFifths => Some("o offer ten 5th moves"),
                    // The declaration is typed (see below).
                    Choice::Offers(_) => None,
                })
                .map(str::to_string)
                .collect();
            let most = options
                .iter()
                .filter_map(|c| match c {
                    Choice::Offers(n) => Some(*n),
                    _ => None,
                })
                .max();
            let keys = match (most, self.typed_count) {
                (Some(_), Some(typed)) => vec![format!("{typed}… Enter or another digit")],
                (Some(most), None) => vec![format!(
                    "declare 1 to {most} 5th moves: type the number (Enter if it could go on)"
                )],
                (None, _) => keys,
            };
            let who = format!("the {seat} player ({})", session.player(seat).name());
            Span::raw(if session.is_human_seat(seat) {
                format!("{who} chooses: {}", keys.join(", "))
            } else {
                format!("{who} is choosing…")
            })
        } else if let (Turn::Move { seat, color }, false) =
            (session.turn(), session.opening().is_done())
        {
            Span::raw(format!(
                "the {seat} player ({}) places a {color} stone ({})",
                session.player(seat).name(),
                stone(color)
            ))
        } else {
            let color = game.to_move();
            let who = format!("{color} ({}, {})", stone(color), session.seat(color).name());
            Span::raw(if session.is_human(color) {
                format!("{who} to move")
            } else if session.is_paused() {
                format!("{who} to move — paused, p resumes")
            } else if session.thinking().is_some() {
                format!("{who} is thinking…")
            } else {
                format!("{who} to move")
            })
        };
        let second = Span::styled(
            session.notice().unwrap_or_default().to_string(),
            Style::default().fg(Tint::Yellow),
        );
        frame.render_widget(
            Paragraph::new(vec![Line::from(first), Line::from(second)]),
            area,
        );
    }
}

/// Puts the terminal back as it was: raw mode off, main screen, no mouse
/// capture, cursor shown.
fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        LeaveAlternateScreen,
        DisableMouseCapture,
        crossterm::cursor::Show
    );
}

/// Restores the terminal when dropped, whichever way the loop ends.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Restores the terminal before a panic message is printed.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous(info);
    }));
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
) -> Result<(), TuiError> {
    loop {
        app.tick(Instant::now());
        terminal.draw(|frame| app.render(frame))?;
        if event::poll(TICK)? && app.handle_event(&event::read()?) == Flow::Quit {
            return Ok(());
        }
    }
}

/// Plays `session` full screen on the real terminal until the person
/// quits. The terminal is restored on the way out, also after a panic.
///
/// # Errors
/// [`TuiError::Io`] when the terminal cannot be set up or drawn.
pub fn run_fullscreen(session: Session) -> Result<(), TuiError> {
    install_panic_hook();
    enable_raw_mode()?;
    let _guard = TerminalGuard;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let mut app = App::new(session);
    let result = event_loop(&mut terminal, &mut app);
    app.session_mut().shutdown();
    result
}
