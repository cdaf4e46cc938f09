//! What the page is shown of a game.

use std::time::Instant;

use caro_core::notation::format_pos;
use caro_core::{BoardSize, Color, Outcome};
use caro_engine::{Score, SearchInfo};
use serde::Serialize;

use super::{seat_index, xy, LiveGame};

/// What the engine is thinking, as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Thinking {
    /// The colour thinking.
    pub color: &'static str,
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
}

impl Thinking {
    /// The page's view of a progress report.
    #[must_use]
    pub fn from_info(color: Color, info: &SearchInfo, size: BoardSize) -> Thinking {
        Thinking {
            color: color.name(),
            depth: info.depth,
            score: match info.score {
                Score::Eval(v) => v.to_string(),
                other => other.to_string(),
            },
            nodes: info.nodes,
            nps: info.nps(),
            pv: info.pv.iter().map(|&p| format_pos(p, size)).collect(),
        }
    }
}

/// How a game ended, for the page.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ResultView {
    /// `black`, `white`, or `null` for a draw.
    pub winner: Option<&'static str>,
    /// `five`, `resign`, `draw`, `foul` or `failed`.
    pub reason: &'static str,
    /// The winning line's points, for a five.
    pub line: Vec<[u8; 2]>,
    /// A sentence in English (the page writes its own, translated).
    pub message: String,
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
    /// Black's seat: `human` or a player's name.
    pub black: String,
    /// White's seat.
    pub white: String,
    /// Time per computer move.
    pub time_ms: u64,
    /// The moves as `[x, y]`, 0-based from the top-left.
    pub moves: Vec<[u8; 2]>,
    /// Moves that redo would replay, next first.
    pub redo: Vec<[u8; 2]>,
    /// Number of moves played: commands name it.
    pub ply: usize,
    /// Counts changes: a page keeps the view with the highest version.
    pub version: u64,
    /// The colour to move (meaningless once over).
    pub to_move: &'static str,
    /// The result, once over.
    pub result: Option<ResultView>,
    /// Renju points forbidden to black, when black is to move.
    pub forbidden: Vec<[u8; 2]>,
    /// The engine's progress, while a computer thinks.
    pub thinking: Option<Thinking>,
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
    /// The result for the page.
    #[must_use]
    pub fn result_view(&self) -> Option<ResultView> {
        if let Some(reason) = &self.failed {
            let loser = self.game.to_move();
            return Some(ResultView {
                winner: Some(loser.opponent().name()),
                reason: "failed",
                line: Vec::new(),
                message: format!("{} loses: {reason}", loser.name()),
            });
        }
        if let (Some(loser), false) = (self.timed_out, self.game.is_over()) {
            return Some(ResultView {
                winner: Some(loser.opponent().name()),
                reason: "time",
                line: Vec::new(),
                message: format!("{} ran out of time", loser.name()),
            });
        }
        if self.agreed_draw && !self.game.is_over() {
            return Some(ResultView {
                winner: None,
                reason: "agreed",
                line: Vec::new(),
                message: "draw agreed".to_string(),
            });
        }
        let outcome = self.game.outcome()?;
        let winner = outcome.winner().map(Color::name);
        let (reason, message) = match outcome {
            Outcome::Five { winner, .. } => (
                "five",
                format!(
                    "{} wins with {} in a row",
                    winner.name(),
                    self.game.rules().k
                ),
            ),
            Outcome::Draw if self.game.board().is_full() => {
                ("draw", "draw: the board is full".to_string())
            }
            Outcome::Draw => (
                "draw",
                "draw: black has no legal move (every empty point is forbidden)".to_string(),
            ),
            Outcome::Resigned { winner } => (
                "resign",
                format!(
                    "{} resigned; {} wins",
                    winner.opponent().name(),
                    winner.name()
                ),
            ),
            Outcome::Foul { winner, foul, .. } => (
                "foul",
                format!(
                    "black played a forbidden point ({foul}); {} wins",
                    winner.name()
                ),
            ),
        };
        Some(ResultView {
            winner,
            reason,
            line: outcome
                .line()
                .map(|l| l.points().map(xy).collect())
                .unwrap_or_default(),
            message,
        })
    }

    /// Everything the page shows.
    #[must_use]
    pub fn view(&self) -> GameView {
        let rules = self.game.rules();
        let forbidden =
            if !self.is_over() && self.game.to_move() == Color::Black && rules.rule.has_fouls() {
                self.game
                    .black_forbidden_points()
                    .into_iter()
                    .map(|(p, _)| xy(p))
                    .collect()
            } else {
                Vec::new()
            };
        GameView {
            id: self.id,
            width: rules.size.width,
            height: rules.size.height,
            k: rules.k,
            rule: rules.rule.name(),
            first: self.game.first().name(),
            black: self.seats[0].name().to_string(),
            white: self.seats[1].name().to_string(),
            time_ms: self.time_ms,
            moves: self.game.moves().iter().copied().map(xy).collect(),
            redo: self.game.redo_moves().iter().copied().map(xy).collect(),
            ply: self.game.moves().len(),
            version: self.generation,
            to_move: self.game.to_move().name(),
            result: self.result_view(),
            forbidden,
            thinking: self.thinking.clone(),
            busy: self.search.is_some(),
            paused: self.paused,
            delay_ms: self.delay_ms,
            code: caro_core::code::PositionCode::from_game(&self.game, "free")
                .ok()
                .map(|c| c.encode()),
            created: self.created,
            updated: self.updated,
            online: self.online.is_some(),
            offers: self.online.as_ref().map(|o| OffersView {
                takeback: o
                    .takeback
                    .map(|(by, ply)| TakebackView { by: by.name(), ply }),
                draw: o.draw.map(Color::name),
                rematch: [Color::Black, Color::White]
                    .into_iter()
                    .filter(|&c| o.rematch[seat_index(c)])
                    .map(Color::name)
                    .collect(),
                next: o.next.as_ref().map(|(id, _)| *id),
            }),
            clock: self
                .online
                .as_ref()
                .and_then(|o| o.clock.as_ref())
                .map(|c| {
                    let now = Instant::now();
                    ClockView {
                        black_ms: c.left(Color::Black, now),
                        white_ms: c.left(Color::White, now),
                        running: c.running.map(|(side, _)| side.name()),
                        increment_ms: c.increment_ms,
                    }
                }),
        }
    }
}
