//! What the page is shown of a game.

use std::time::Instant;

use caro_core::notation::format_pos;
use caro_core::opening::Seat;
use caro_core::table::Turn;
use caro_core::{BoardSize, Color};
use caro_engine::analysis::{black_chance, win_chance};
use caro_engine::{Score, SearchInfo};
use serde::{Deserialize, Serialize};

use super::{seat_of_index, xy, LiveGame};

/// What the engine is thinking, as the page shows it (and as an instance
/// relays it to the others).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Thinking {
    /// The colour thinking.
    pub color: String,
    /// Depth completed.
    pub depth: u32,
    /// Score from the thinker's side: a number, `+W7` (wins in 7 plies),
    /// `+W` (wins, length unknown) or `-L4`.
    pub score: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// The best line, in coordinates such as `h8`.
    pub pv: Vec<String>,
    /// The best line as points `[x, y]`.
    pub line: Vec<[u8; 2]>,
    /// Black's chance to win by the score, from 0 to 1.
    pub win_chance: f64,
}

impl Thinking {
    /// The page's view of a progress report.
    #[must_use]
    pub fn from_info(color: Color, info: &SearchInfo, size: BoardSize) -> Thinking {
        Thinking {
            color: color.name().to_string(),
            depth: info.depth,
            score: match info.score {
                Score::Eval(v) => v.to_string(),
                other => other.to_string(),
            },
            nodes: info.nodes,
            nps: info.nps(),
            pv: info.pv.iter().map(|&p| format_pos(p, size)).collect(),
            line: info.pv.iter().copied().map(xy).collect(),
            win_chance: black_chance(color, win_chance(info.score)),
        }
    }
}

/// How a game ended, for the page.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ResultView {
    /// `black`, `white`, or `null` for a draw.
    pub winner: Option<&'static str>,
    /// `five`, `resign`, `draw`, `foul`, `failed`, `time` or `agreed`.
    pub reason: &'static str,
    /// The winning line's points, for a five.
    pub line: Vec<[u8; 2]>,
    /// A sentence in English (the page writes its own, translated).
    pub message: String,
}

/// A seat as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SeatView {
    /// `human` or the player's name.
    pub name: String,
    /// The colour the seat plays; `null` until a swap opening decides.
    pub color: Option<&'static str>,
}

/// Who must do what now.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TurnView {
    /// `seat` places a stone of `color` (an opening stone or a move).
    Move {
        /// `first` or `second`.
        seat: &'static str,
        /// `black` or `white`.
        color: &'static str,
    },
    /// `seat` makes a swap decision.
    Choose {
        /// `first` or `second`.
        seat: &'static str,
        /// `take-black`, `take-white`, `place-two`.
        options: Vec<&'static str>,
    },
    /// `seat` offers a 5th move (renju openings).
    Offer {
        /// `first` or `second`.
        seat: &'static str,
        /// Offered so far.
        made: u8,
        /// To offer in all.
        total: u8,
    },
    /// `seat` picks one of the offered 5th moves (renju openings).
    Pick {
        /// `first` or `second`.
        seat: &'static str,
    },
    /// The game is over.
    Over,
}

/// The match a game belongs to, as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MatchView {
    /// The match's id.
    pub id: i64,
    /// Wins needed to take the match.
    pub first_to: u32,
    /// Players A and B.
    pub players: [String; 2],
    /// Games won by A and B (this game's included once it is over).
    pub score: [u32; 2],
    /// Games drawn.
    pub draws: u32,
    /// Each game's result so far, in order (this game's included once it
    /// is over): the winner (0 = A, 1 = B) or `null` for a draw.
    pub results: Vec<Option<usize>>,
    /// The most games the match can last: `2 × first_to − 1` (draws
    /// count as games).
    pub max_games: u32,
    /// This game's number, from 1.
    pub game: u32,
    /// The match's games known so far, in order.
    pub games: Vec<i64>,
    /// Whether the match has ended.
    pub over: bool,
    /// The match's winner (0 = A, 1 = B) once it is over; `null` while it
    /// goes on or for a drawn match.
    pub winner: Option<usize>,
    /// The next game's id, once it exists.
    pub next: Option<i64>,
}

/// Everything the page needs to draw a game.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: i64,
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Stones in a row to win.
    pub k: u8,
    /// The rule's name.
    pub rule: &'static str,
    /// Colour of the first move.
    pub first: &'static str,
    /// Who plays black: `human` or a player's name (during an undecided
    /// swap, the first seat).
    pub black: String,
    /// Who plays white.
    pub white: String,
    /// The players' names (black, white) of an imported game, when its
    /// file names them.
    pub names: Option<[String; 2]>,
    /// `free`, `swap1`, `swap2`, `soosorv8` (`soosorvN`) or `taraguchi10`.
    pub opening: &'static str,
    /// The first seat (who opens) and the second.
    pub seats: [SeatView; 2],
    /// Who must do what now.
    pub turn: TurnView,
    /// Stones placed by the opening: undo never goes below them once the
    /// colours are decided.
    pub opening_stones: usize,
    /// Whether undo would take something back now ([`Table::can_undo`]):
    /// also an opening stone the person has just placed.
    ///
    /// [`Table::can_undo`]: caro_core::table::Table::can_undo
    pub can_undo: bool,
    /// The 5th moves black offered in a renju opening (`soosorvN`,
    /// `taraguchi10`), in order: points to draw and, at a pick, to click.
    pub fifth_offers: Vec<[u8; 2]>,
    /// The match, if the game is part of one.
    #[serde(rename = "match")]
    pub series: Option<MatchView>,
    /// Hints asked for in this game.
    pub hints: u32,
    /// Time per computer move.
    pub time_ms: u64,
    /// The moves as `[x, y]`, 0-based from the top-left.
    pub moves: Vec<[u8; 2]>,
    /// Moves that redo would replay, next first.
    pub redo: Vec<[u8; 2]>,
    /// Number of moves played: commands name it.
    pub ply: usize,
    /// The stored version: counts stored changes, on every instance alike.
    /// A page keeps the view with the highest version.
    pub version: u64,
    /// The colour to move (meaningless once over).
    pub to_move: &'static str,
    /// The result, once over.
    pub result: Option<ResultView>,
    /// Renju points forbidden to black, when black is to move.
    pub forbidden: Vec<[u8; 2]>,
    /// The engine's progress, while a computer thinks.
    pub thinking: Option<Thinking>,
    /// The last report of the computer's last search, kept after its move
    /// (its evaluation of the position it moved in).
    pub evaluation: Option<Thinking>,
    /// Whether a computer is thinking now.
    pub busy: bool,
    /// Computer vs computer: paused.
    pub paused: bool,
    /// Computer vs computer: pause between moves.
    pub delay_ms: u64,
    /// The position code of the game (for a link).
    pub code: Option<String>,
    /// Unix seconds of creation.
    pub created: i64,
    /// Unix seconds of the last change.
    pub updated: i64,
    /// Whether this is an online game between two seat tokens.
    pub online: bool,
    /// Online: the pending offers and requests.
    pub offers: Option<OffersView>,
    /// Online: the clock, if the game has one.
    pub clock: Option<ClockView>,
    /// Online: which players have the game open (a socket connected).
    pub connected: Option<ConnectedView>,
}

/// Which of an online game's players have it open.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct ConnectedView {
    /// Black's player has a socket open.
    pub black: bool,
    /// White's player has a socket open.
    pub white: bool,
}

/// The offers pending in an online game, as the page shows them.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct OffersView {
    /// A takeback request: who asked, and the ply it was asked at.
    pub takeback: Option<TakebackView>,
    /// The colour offering a draw.
    pub draw: Option<&'static str>,
    /// The colours that asked for a rematch.
    pub rematch: Vec<&'static str>,
    /// The rematch's game id, once both asked.
    pub next: Option<i64>,
}

/// A pending takeback request.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TakebackView {
    /// The colour asking.
    pub by: &'static str,
    /// The ply the request was made at: accepting names it.
    pub ply: usize,
}

/// An online game's clock, as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClockView {
    /// Black's time left, in milliseconds, when the view was made.
    pub black_ms: u64,
    /// White's time left.
    pub white_ms: u64,
    /// The side whose time runs, if any.
    pub running: Option<&'static str>,
    /// Added after each move.
    pub increment_ms: u64,
}

impl LiveGame {
    /// The result for the page: the table's ending, its reason code and its
    /// one English sentence.
    #[must_use]
    pub fn result_view(&self) -> Option<ResultView> {
        let ending = self.table.ending()?;
        Some(ResultView {
            winner: ending.winner().map(Color::name),
            reason: ending.code(),
            line: ending
                .line()
                .map(|l| l.points().map(xy).collect())
                .unwrap_or_default(),
            message: ending.sentence(self.game().size()),
        })
    }

    fn turn_view(&self) -> TurnView {
        match self.table.turn() {
            Turn::Move { seat, color } => TurnView::Move {
                seat: seat.name(),
                color: color.name(),
            },
            Turn::Choose { seat, options } => TurnView::Choose {
                seat: seat.name(),
                options: options.iter().map(|c| c.name()).collect(),
            },
            Turn::Offer { seat, made, total } => TurnView::Offer {
                seat: seat.name(),
                made,
                total,
            },
            Turn::Pick { seat } => TurnView::Pick { seat: seat.name() },
            Turn::Over => TurnView::Over,
        }
    }

    fn match_view(&self) -> Option<MatchView> {
        let link = self.series.as_ref()?;
        let series = link.series_after(&self.table).ok()?;
        Some(MatchView {
            id: link.id,
            first_to: link.first_to,
            players: link.players.clone(),
            score: series.score(),
            draws: series.draws(),
            results: series.results(),
            max_games: link.first_to.saturating_mul(2).saturating_sub(1),
            game: link.game_no,
            games: link.games.clone(),
            over: series.is_over(),
            winner: series.winner(),
            next: link.next,
        })
    }

    /// Which players of an online game are connected, from the sockets
    /// open on each seat (first, second).
    #[must_use]
    pub fn connected_view(&self, open: [bool; 2]) -> Option<ConnectedView> {
        self.online.as_ref()?;
        let black = self.table.seat_of(Color::Black).index();
        Some(ConnectedView {
            black: open[black],
            white: open[1 - black],
        })
    }

    /// Everything the page shows.
    #[must_use]
    pub fn view(&self) -> GameView {
        let game = self.game();
        let rules = game.rules();
        let forbidden =
            if !self.is_over() && game.to_move() == Color::Black && rules.rule.has_fouls() {
                game.black_forbidden_points()
                    .into_iter()
                    .map(|(p, _)| xy(p))
                    .collect()
            } else {
                Vec::new()
            };
        let decided = self.table.colors_decided();
        let seat_view = |seat: Seat| SeatView {
            name: self.table.sitter(seat).name().to_string(),
            color: decided.then(|| self.table.color_of(seat).name()),
        };
        let color_of = |i: usize| self.table.color_of(seat_of_index(i)).name();
        GameView {
            id: self.id,
            width: rules.size.width,
            height: rules.size.height,
            k: rules.k,
            rule: rules.rule.name(),
            first: game.first().name(),
            black: self.sitter_of(Color::Black).name().to_string(),
            white: self.sitter_of(Color::White).name().to_string(),
            names: self.names.clone(),
            opening: self.table.opening().opening().name(),
            seats: [seat_view(Seat::First), seat_view(Seat::Second)],
            turn: self.turn_view(),
            opening_stones: self.table.opening_stones(),
            can_undo: self.table.can_undo(),
            fifth_offers: self.table.offers().iter().copied().map(xy).collect(),
            series: self.match_view(),
            hints: self.hints,
            time_ms: self.time_ms,
            moves: game.moves().iter().copied().map(xy).collect(),
            redo: game.redo_moves().iter().copied().map(xy).collect(),
            ply: game.moves().len(),
            version: self.version.max(0) as u64,
            to_move: game.to_move().name(),
            result: self.result_view(),
            forbidden,
            thinking: self.thinking.clone(),
            evaluation: self.evaluation.clone(),
            busy: self.search.is_some() || self.remote_search,
            paused: self.paused,
            delay_ms: self.delay_ms,
            code: caro_core::code::PositionCode::from_table(&self.table)
                .ok()
                .map(|c| c.encode()),
            created: self.created,
            updated: self.updated,
            online: self.online.is_some(),
            offers: self.online.as_ref().map(|o| OffersView {
                takeback: o.takeback.map(|(by, ply)| TakebackView {
                    by: self.table.color_of(by).name(),
                    ply,
                }),
                draw: o.draw.map(|seat| self.table.color_of(seat).name()),
                rematch: (0..2).filter(|&i| o.rematch[i]).map(color_of).collect(),
                next: o.next.as_ref().map(|(id, _)| *id),
            }),
            clock: self
                .online
                .as_ref()
                .and_then(|o| o.clock.as_ref())
                .map(|c| {
                    let now = Instant::now();
                    let black = self.table.seat_of(Color::Black);
                    ClockView {
                        black_ms: c.left(black, now),
                        white_ms: c.left(black.other(), now),
                        running: c.running.map(|(seat, _)| self.table.color_of(seat).name()),
                        increment_ms: c.increment_ms,
                    }
                }),
            connected: None,
        }
    }
}
