//! The full-screen board driven headless: keys and clicks go in through
//! `App`, ratatui's `TestBackend` draws, and the tests read the buffer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use caro_core::notation::parse_pos;
use caro_core::{BoardSize, Color, Pos, Rule, Rules};
use caro_engine::{Limits, PlayerSpec};
use caro_tui::screen::{App, Flow};
use caro_tui::session::{SeatKind, Session, SessionConfig};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color as Tint;
use ratatui::Terminal;

fn app(size: BoardSize, k: u8, black: SeatKind, white: SeatKind) -> App {
    let rules = Rules::new(size, k, Rule::Freestyle).unwrap();
    let mut config = SessionConfig::new(rules, black, white);
    config.limits = Limits::depth(2);
    App::new(Session::new(config).unwrap())
}

fn humans(side: u8) -> App {
    let size = BoardSize::square(side);
    app(
        size,
        Rules::default_k(size),
        SeatKind::Human,
        SeatKind::Human,
    )
}

fn key(app: &mut App, code: KeyCode) -> Flow {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '<' => KeyCode::Left,
            '>' => KeyCode::Right,
            '^' => KeyCode::Up,
            'v' => KeyCode::Down,
            c => KeyCode::Char(c),
        };
        key(app, code);
    }
}

struct Screen {
    terminal: Terminal<TestBackend>,
}

impl Screen {
    fn new(width: u16, height: u16) -> Screen {
        Screen {
            terminal: Terminal::new(TestBackend::new(width, height)).unwrap(),
        }
    }

    fn draw(&mut self, app: &mut App) -> Buffer {
        self.terminal.draw(|f| app.render(f)).unwrap();
        self.terminal.backend().buffer().clone()
    }
}

fn lines(buffer: &Buffer) -> Vec<String> {
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

fn text(buffer: &Buffer) -> String {
    lines(buffer).join("\n")
}

/// Index of the screen line showing board row `number` (counted from the
/// bottom) of a board `height` rows high.
fn row_index(buffer: &Buffer, number: u8, height: u8) -> Option<usize> {
    let width = height.to_string().len();
    let label = format!("│{number:>width$}");
    lines(buffer).iter().position(|l| {
        l.strip_prefix(&label)
            .is_some_and(|rest| rest.starts_with([' ', '[', '(']))
    })
}

/// The screen line showing board row `number` of a board `height` high.
fn board_row(buffer: &Buffer, number: u8, height: u8) -> String {
    let i = row_index(buffer, number, height)
        .unwrap_or_else(|| panic!("no row {number} in\n{}", text(buffer)));
    lines(buffer).swap_remove(i)
}

/// Where on screen the stone of `pos` is drawn (its middle character),
/// with the board scrolled to its top-left corner.
fn screen_cell(buffer: &Buffer, pos: &str, size: BoardSize) -> (u16, u16) {
    let p = parse_pos(pos, size).unwrap();
    let y = row_index(buffer, size.height - p.y, size.height).unwrap() as u16;
    let label = size.height.to_string().len() as u16;
    // Border, label, then three columns a point.
    (1 + label + 3 * u16::from(p.x) + 1, y)
}

#[test]
fn cursor_moves_and_enter_places_a_stone() {
    let mut app = humans(15);
    let mut screen = Screen::new(90, 24);
    let b = screen.draw(&mut app);
    assert!(board_row(&b, 8, 15).contains("[.]"), "{}", text(&b));
    assert!(text(&b).contains("black (X, human) to move"));
    keys(&mut app, "\n");
    let b = screen.draw(&mut app);
    assert!(board_row(&b, 8, 15).contains("[X]"), "{}", text(&b));
    assert!(text(&b).contains("white (O, human) to move"));
    // Right twice, up once with hjkl and arrows mixed: j9.
    keys(&mut app, ">lk");
    assert_eq!(
        app.session().cursor(),
        parse_pos("j9", BoardSize::square(15)).unwrap()
    );
    keys(&mut app, " ");
    let b = screen.draw(&mut app);
    assert!(board_row(&b, 9, 15).contains("[O]"), "{}", text(&b));
    // The previous move is no longer marked as last.
    assert!(board_row(&b, 8, 15).contains(" X "), "{}", text(&b));
    let (x, y) = screen_cell(&b, "j9", BoardSize::square(15));
    assert_eq!(b[(x, y)].symbol(), "O");
    assert_eq!(b[(x, y)].bg, Tint::Yellow, "the last move is highlighted");
    assert!(text(&b).contains("moves: 2, last j9"));
}

#[test]
fn occupied_point_is_refused_with_the_reason() {
    let mut app = humans(15);
    let mut screen = Screen::new(90, 24);
    keys(&mut app, "\n\n");
    let b = screen.draw(&mut app);
    assert!(text(&b).contains("h8 is already occupied"), "{}", text(&b));
    assert_eq!(app.session().game().moves().len(), 1);
}

#[test]
fn undo_and_redo_keys() {
    let mut app = humans(15);
    let mut screen = Screen::new(90, 24);
    keys(&mut app, "\nl\n");
    keys(&mut app, "u");
    let b = screen.draw(&mut app);
    assert!(!board_row(&b, 8, 15).contains('O'), "{}", text(&b));
    assert!(text(&b).contains("took back 1 move"));
    keys(&mut app, "r");
    let b = screen.draw(&mut app);
    assert!(board_row(&b, 8, 15).contains("X [O]"), "{}", text(&b));
    assert!(text(&b).contains("replayed 1 move"));
}

#[test]
fn a_win_is_announced_and_its_line_highlighted() {
    let size = BoardSize::square(3);
    let mut app = humans(3);
    let mut screen = Screen::new(80, 20);
    // X: b2 a2 c2 (cursor starts at b2); O: b3 b1.
    keys(&mut app, "\n^\nvh\nvl\n^l\n");
    let b = screen.draw(&mut app);
    let all = text(&b);
    assert!(
        all.contains("black wins with 3 in a row: a2 b2 c2"),
        "{all}"
    );
    for point in ["a2", "b2", "c2"] {
        let (x, y) = screen_cell(&b, point, size);
        assert_eq!(b[(x, y)].symbol(), "X");
        assert_eq!(b[(x, y)].bg, Tint::Green, "{point} is on the winning line");
    }
    let (x, y) = screen_cell(&b, "b3", size);
    assert_ne!(b[(x, y)].bg, Tint::Green);
    // Further moves are refused; n starts again.
    keys(&mut app, "^\n");
    assert!(text(&screen.draw(&mut app)).contains("the game is over"));
    keys(&mut app, "n");
    let b = screen.draw(&mut app);
    assert!(app.session().game().moves().is_empty());
    assert!(text(&b).contains("black (X, human) to move"));
}

#[test]
fn a_click_places_a_stone_where_it_points() {
    let size = BoardSize::square(15);
    let mut app = humans(15);
    let mut screen = Screen::new(90, 24);
    let b = screen.draw(&mut app);
    let (x, y) = screen_cell(&b, "c3", size);
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.session().game().last_move(), parse_pos("c3", size).ok());
    // A click off the board does nothing.
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 85,
        row: 2,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.session().game().moves().len(), 1);
}

#[test]
fn quitting_asks_first() {
    let mut app = humans(15);
    let mut screen = Screen::new(90, 24);
    assert_eq!(key(&mut app, KeyCode::Char('q')), Flow::Continue);
    assert!(text(&screen.draw(&mut app)).contains("quit? y / n"));
    assert_eq!(key(&mut app, KeyCode::Char('n')), Flow::Continue);
    assert!(!app.confirming_quit());
    assert_eq!(key(&mut app, KeyCode::Char('q')), Flow::Continue);
    assert_eq!(key(&mut app, KeyCode::Char('y')), Flow::Quit);
}

#[test]
fn large_boards_scroll_with_the_cursor() {
    let size = BoardSize::square(40);
    let mut app = humans(40);
    let mut screen = Screen::new(80, 20);
    let b = screen.draw(&mut app);
    // The centre is in view, the corners are not.
    assert!(text(&b).contains("[.]"));
    assert!(!text(&b).contains("│40 "));
    for _ in 0..40 {
        keys(&mut app, "hk");
    }
    let b = screen.draw(&mut app);
    assert_eq!(app.session().cursor(), Pos::new(0, 0));
    assert!(board_row(&b, 40, 40).starts_with("│40[.]"), "{}", text(&b));
    keys(&mut app, "\n");
    for _ in 0..40 {
        keys(&mut app, "lj");
    }
    let b = screen.draw(&mut app);
    assert!(board_row(&b, 1, 40).contains("[.]"), "{}", text(&b));
    assert!(text(&b).contains("an"), "the last column's letters show");
    assert!(row_index(&b, 40, size.height).is_none());
}

#[test]
fn against_a_computer_it_replies_and_undo_takes_both_back() {
    let size = BoardSize::square(3);
    let minimax = SeatKind::Computer(Arc::new("minimax:4".parse::<PlayerSpec>().unwrap()));
    let mut app = app(size, 3, SeatKind::Human, minimax);
    let mut screen = Screen::new(80, 20);
    keys(&mut app, "\n");
    let b = screen.draw(&mut app);
    assert!(text(&b).contains("white (O, minimax:4)"), "{}", text(&b));
    // Let the engine thread answer.
    let started = Instant::now();
    while app.session().game().moves().len() < 2 && started.elapsed() < Duration::from_secs(60) {
        app.tick(Instant::now());
        std::thread::sleep(Duration::from_millis(5));
    }
    let b = screen.draw(&mut app);
    assert_eq!(app.session().game().moves().len(), 2);
    assert!(text(&b).contains("white last search:"), "{}", text(&b));
    assert!(text(&b).contains("depth"), "{}", text(&b));
    assert!(text(&b).contains("black (X, human) to move"));
    keys(&mut app, "u");
    let b = screen.draw(&mut app);
    assert!(app.session().game().moves().is_empty());
    assert!(text(&b).contains("took back 2 moves"));
    assert_eq!(app.session().game().to_move(), Color::Black);
}

#[test]
fn swap2_choices_by_key() {
    let size = BoardSize::square(15);
    let rules = Rules::new(size, 5, Rule::Freestyle).unwrap();
    let mut config = SessionConfig::new(rules, SeatKind::Human, SeatKind::Human);
    config.opening = caro_core::opening::Opening::Swap2;
    let mut app = App::new(Session::new(config).unwrap());
    let mut screen = Screen::new(90, 24);
    let b = screen.draw(&mut app);
    assert!(
        text(&b).contains("the first player (human) places a black stone (X)"),
        "{}",
        text(&b)
    );
    assert!(text(&b).contains("swap2 opening"));
    keys(&mut app, "\nl\nl\n");
    let b = screen.draw(&mut app);
    assert!(
        text(&b).contains(
            "the second player (human) chooses: b take black, w take white, t place two more"
        ),
        "{}",
        text(&b)
    );
    keys(&mut app, "h\n");
    assert!(text(&screen.draw(&mut app)).contains("the second player chooses now"));
    keys(&mut app, "w");
    let b = screen.draw(&mut app);
    assert!(text(&b).contains("first: human (X black)"), "{}", text(&b));
    assert!(text(&b).contains("second: human (O white)"), "{}", text(&b));
    assert!(
        text(&b).contains("white (O, human) to move"),
        "{}",
        text(&b)
    );
    assert_eq!(app.session().game().moves().len(), 3);
}

#[test]
fn renju_forbidden_points_show_on_blacks_turn() {
    let size = BoardSize::square(15);
    let rules = Rules::new(size, 5, Rule::Renju).unwrap();
    let config = SessionConfig::new(rules, SeatKind::Human, SeatKind::Human);
    let mut app = App::new(Session::new(config).unwrap());
    for m in ["h8", "a1", "i8", "a3", "j9", "a5", "j10", "a7"] {
        let p = parse_pos(m, size).unwrap();
        app.session_mut().play(p).unwrap();
    }
    let mut screen = Screen::new(90, 24);
    let b = screen.draw(&mut app);
    let (x, y) = screen_cell(&b, "j8", size);
    assert_eq!(b[(x, y)].symbol(), "3", "{}", text(&b));
    app.session_mut().set_cursor(parse_pos("j8", size).unwrap());
    keys(&mut app, "\n");
    let b = screen.draw(&mut app);
    assert!(
        text(&b).contains("j8 is forbidden for black (double-three)"),
        "{}",
        text(&b)
    );
}

#[test]
fn shift_r_resigns_for_the_person_to_move() {
    let mut app = humans(15);
    let mut screen = Screen::new(100, 30);
    keys(&mut app, "\nR");
    let all = text(&screen.draw(&mut app));
    assert!(all.contains("black wins: white resigned"), "{all}");
    assert!(app.session().game().is_over());
    keys(&mut app, "R");
    assert!(text(&screen.draw(&mut app)).contains("the game is over"));
    assert_eq!(app.session().game().moves().len(), 1);
}

#[test]
fn a_match_shows_the_score_and_n_starts_the_next_game() {
    let size = BoardSize::square(3);
    let rules = Rules::new(size, 3, Rule::Freestyle).unwrap();
    let mut config = SessionConfig::new(rules, SeatKind::Human, SeatKind::Human);
    config.first_to = Some(2);
    let mut app = App::new(Session::new(config).unwrap());
    let mut screen = Screen::new(100, 24);
    let all = text(&screen.draw(&mut app));
    assert!(all.contains("match, first to 2, game 1"), "{all}");
    assert!(all.contains("player 1 (human): 0"), "{all}");
    // Black (player 1) resigns game 1.
    keys(&mut app, "R");
    let all = text(&screen.draw(&mut app));
    assert!(
        all.contains("white wins: black resigned — n next game"),
        "{all}"
    );
    assert!(all.contains("player 2 (human): 1"), "{all}");
    keys(&mut app, "u");
    let all = text(&screen.draw(&mut app));
    assert!(all.contains("this game counts in the match"), "{all}");
    keys(&mut app, "n");
    let all = text(&screen.draw(&mut app));
    assert!(all.contains("game 2: player 2 (human) opens"), "{all}");
    assert!(all.contains("match, first to 2, game 2"), "{all}");
    // Black is player 2 now, and resigns too: player 1 has one win.
    keys(&mut app, "R");
    let all = text(&screen.draw(&mut app));
    assert!(all.contains("player 1 (human): 1"), "{all}");
    keys(&mut app, "nR");
    let all = text(&screen.draw(&mut app));
    assert!(
        all.contains("match over: player 2 (human) wins 2-1; n new match"),
        "{all}"
    );
}

/// Two people at Soosõrv-`n` up to black's declaration: three canonical
/// stones, no swap, the 4th stone, no swap.
fn soosorv_at_the_declaration(n: u8) -> App {
    let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
    let mut config = SessionConfig::new(rules, SeatKind::Human, SeatKind::Human);
    config.opening = caro_core::opening::Opening::soosorv(n).unwrap();
    let mut app = App::new(Session::new(config).unwrap());
    keys(&mut app, "\nl\nl\nwj\nb");
    assert_eq!(app.session().game().moves().len(), 4);
    assert!(
        matches!(
            app.session().turn(),
            caro_core::table::Turn::Choose { options, .. }
                if options.len() == usize::from(n)
        ),
        "{:?}",
        app.session().turn()
    );
    app
}

/// The number of 5th moves declared, if any.
fn offers_due(app: &App) -> Option<u8> {
    app.session()
        .table()
        .choices()
        .iter()
        .find_map(|c| match c {
            caro_core::opening::Choice::Offers(n) => Some(*n),
            _ => None,
        })
}

#[test]
fn every_soosorv16_count_is_declared_by_typing_it() {
    for count in 1..=16u8 {
        let mut app = soosorv_at_the_declaration(16);
        // Typed digit by digit; Enter ends a count that could go on.
        let typed = if count == 1 {
            "1\n".to_string()
        } else {
            count.to_string()
        };
        keys(&mut app, &typed);
        assert_eq!(offers_due(&app), Some(count), "typed {typed:?}");
        assert_eq!(app.typed_count(), None);
    }
}

#[test]
fn a_typed_count_waits_shows_and_can_be_taken_back() {
    let mut app = soosorv_at_the_declaration(16);
    let mut screen = Screen::new(110, 24);
    let b = screen.draw(&mut app);
    assert!(
        text(&b).contains("declare 1 to 16 5th moves: type the number"),
        "{}",
        text(&b)
    );
    keys(&mut app, "1");
    assert_eq!(app.typed_count(), Some(1));
    assert_eq!(offers_due(&app), None, "1 could still become 10 to 16");
    assert!(text(&screen.draw(&mut app)).contains("1… Enter or another digit"));
    key(&mut app, KeyCode::Backspace);
    assert_eq!(app.typed_count(), None);
    // 17 is more than Soosõrv-16 allows: refused, nothing declared.
    keys(&mut app, "17");
    assert_eq!(app.typed_count(), None);
    assert_eq!(offers_due(&app), None);
    assert!(text(&screen.draw(&mut app)).contains("17 is too many"));
    keys(&mut app, "0");
    assert_eq!(offers_due(&app), None);
    keys(&mut app, "1");
    keys(&mut app, "\n");
    assert_eq!(offers_due(&app), Some(1));

    // In Soosõrv-8 one digit is the whole count.
    let mut app = soosorv_at_the_declaration(8);
    keys(&mut app, "8");
    assert_eq!(offers_due(&app), Some(8));
    let mut app = soosorv_at_the_declaration(8);
    keys(&mut app, "9");
    assert_eq!(offers_due(&app), None);
}
