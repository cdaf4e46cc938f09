//! A game: the board plus history, undo/redo, side to move and result.

use crate::board::{Board, Line};
use crate::forbidden::{self, Foul};
use crate::notation::{format_gomocup, format_pos};
use crate::pos::{BoardSize, Color, Pos, SizeError};
use crate::rule::{Rule, Rules, RulesError};
use crate::zobrist;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `winner` made a winning line.
    Five {
        /// Who made it.
        winner: Color,
        /// The winning line.
        line: Line,
    },
    /// The board is full and nobody won (or, under renju, black is left
    /// with only forbidden points).
    Draw,
    /// The loser resigned.
    Resigned {
        /// The side that did not resign.
        winner: Color,
    },
    /// Black played a forbidden point under renju (refereed play only:
    /// interactive play refuses the move instead).
    Foul {
        /// White.
        winner: Color,
        /// The forbidden point black played.
        at: Pos,
        /// Which foul it was.
        foul: Foul,
    },
}

impl Outcome {
    /// The winner, or `None` for a draw.
    #[must_use]
    pub const fn winner(&self) -> Option<Color> {
        match *self {
            Outcome::Five { winner, .. }
            | Outcome::Resigned { winner }
            | Outcome::Foul { winner, .. } => Some(winner),
            Outcome::Draw => None,
        }
    }

    /// The winning line, for a win by five.
    #[must_use]
    pub const fn line(&self) -> Option<Line> {
        match *self {
            Outcome::Five { line, .. } => Some(line),
            _ => None,
        }
    }
}

/// Why a move was refused. The game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The point is off the board.
    #[error("{} is off the {size} board", format_gomocup(*.pos))]
    OffBoard {
        /// The point.
        pos: Pos,
        /// The board.
        size: BoardSize,
    },
    /// The point already holds a stone.
    #[error("{} is already occupied", format_pos(*.pos, *.size))]
    Occupied {
        /// The point.
        pos: Pos,
        /// The board, for naming the point.
        size: BoardSize,
    },
    /// Renju forbids black this point.
    #[error("{} is forbidden for black ({foul})", format_pos(*.pos, *.size))]
    Forbidden {
        /// The point.
        pos: Pos,
        /// The board, for naming the point.
        size: BoardSize,
        /// Which foul it would be.
        foul: Foul,
    },
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
}

/// A position as it may come from outside: checked by [`Game::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSetup {
    /// The board.
    pub size: BoardSize,
    /// Stones in a row to win.
    pub k: u8,
    /// The rule set.
    pub rule: Rule,
    /// Who moves first in the game (black under renju).
    pub first: Color,
    /// Stones placed freely before the game's moves.
    pub stones: Vec<(Pos, Color)>,
    /// Side to move after `stones`; `None` works it out from the counts
    /// (`first` if equal, else the side with fewer stones).
    pub to_move: Option<Color>,
    /// Moves played from there, alternating.
    pub moves: Vec<Pos>,
}

impl GameSetup {
    /// An empty 15×15 freestyle board, k = 5, black first.
    #[must_use]
    pub fn new(size: BoardSize, k: u8, rule: Rule) -> GameSetup {
        GameSetup {
            size,
            k,
            rule,
            first: Color::Black,
            stones: Vec::new(),
            to_move: None,
            moves: Vec::new(),
        }
    }
}

/// A setup that is not a playable position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// Bad board size.
    #[error(transparent)]
    Size(#[from] SizeError),
    /// Bad k or rule.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// A placed stone is off the board.
    #[error("stone at {} is off the {size} board", format_gomocup(*.pos))]
    StoneOffBoard {
        /// The point.
        pos: Pos,
        /// The board.
        size: BoardSize,
    },
    /// Two placed stones on one point.
    #[error("two stones placed on {}", format_pos(*.pos, *.size))]
    DuplicateStone {
        /// The point.
        pos: Pos,
        /// The board.
        size: BoardSize,
    },
    /// The placed stones already hold a winning line.
    #[error("the placed stones already hold a winning line for {0}")]
    AlreadyWon(Color),
    /// One of the moves is illegal.
    #[error("move {number}: {error}")]
    Move {
        /// 1-based number of the move in the move list.
        number: usize,
        /// Why it was refused.
        error: MoveError,
    },
}

/// A game in progress or finished: board, rules, history and result.
///
/// Moves go through [`Game::try_play`] (checked, nothing changes on error),
/// [`Game::play_refereed`] (a renju foul loses instead of being refused) or
/// [`Game::play_unchecked`] (the engine's fast path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    rules: Rules,
    first: Color,
    board: Board,
    setup: Vec<(Pos, Color)>,
    setup_to_move: Color,
    moves: Vec<Pos>,
    redo: Vec<Pos>,
    to_move: Color,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game on an empty board.
    ///
    /// # Errors
    /// [`RulesError::RenjuBlackFirst`] when white would move first in renju.
    pub fn new(rules: Rules, first: Color) -> Result<Game, RulesError> {
        if rules.rule == Rule::Renju && first != Color::Black {
            return Err(RulesError::RenjuBlackFirst);
        }
        Ok(Game {
            rules,
            first,
            board: Board::new(rules.size),
            setup: Vec::new(),
            setup_to_move: first,
            moves: Vec::new(),
            redo: Vec::new(),
            to_move: first,
            outcome: None,
        })
    }

    /// A checked position from untrusted input: sizes, k, rule, placed
    /// stones and then the moves, each move checked as in [`Game::try_play`].
    ///
    /// # Errors
    /// [`SetupError`] saying what is wrong (and which move, for a move).
    pub fn from_setup(setup: &GameSetup) -> Result<Game, SetupError> {
        let size = BoardSize::new(setup.size.width, setup.size.height)?;
        let rules = Rules::new(size, setup.k, setup.rule)?;
        let mut game = Game::new(rules, setup.first)?;
        let mut counts = [0usize; 2];
        for &(pos, color) in &setup.stones {
            if !size.contains(pos) {
                return Err(SetupError::StoneOffBoard { pos, size });
            }
            let i = game.board.index(pos);
            if game.board.get(pos).is_some() {
                return Err(SetupError::DuplicateStone { pos, size });
            }
            game.board.place(i, color);
            counts[color.index()] += 1;
        }
        for &(pos, color) in &setup.stones {
            if game
                .board
                .winning_line(game.board.index(pos), color, &rules)
                .is_some()
            {
                return Err(SetupError::AlreadyWon(color));
            }
        }
        game.setup.clone_from(&setup.stones);
        game.to_move = setup.to_move.unwrap_or(match counts[0].cmp(&counts[1]) {
            std::cmp::Ordering::Equal => setup.first,
            std::cmp::Ordering::Greater => Color::White,
            std::cmp::Ordering::Less => Color::Black,
        });
        game.setup_to_move = game.to_move;
        if game.board.is_full() {
            game.outcome = Some(Outcome::Draw);
        }
        game.settle_stuck_black();
        for (n, &pos) in setup.moves.iter().enumerate() {
            game.try_play(pos).map_err(|error| SetupError::Move {
                number: n + 1,
                error,
            })?;
        }
        Ok(game)
    }

    /// A game replayed from a move list on an empty board.
    ///
    /// # Errors
    /// As [`Game::from_setup`].
    pub fn from_moves(rules: Rules, first: Color, moves: &[Pos]) -> Result<Game, SetupError> {
        let mut setup = GameSetup::new(rules.size, rules.k, rules.rule);
        setup.first = first;
        setup.moves = moves.to_vec();
        Game::from_setup(&setup)
    }

    /// The setup that rebuilds this game (placed stones and moves played).
    #[must_use]
    pub fn to_setup(&self) -> GameSetup {
        GameSetup {
            size: self.rules.size,
            k: self.rules.k,
            rule: self.rules.rule,
            first: self.first,
            stones: self.setup.clone(),
            to_move: Some(self.setup_to_move),
            moves: self.moves.clone(),
        }
    }

    /// Board, k and rule.
    #[inline]
    #[must_use]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The board.
    #[inline]
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board's size.
    #[inline]
    #[must_use]
    pub fn size(&self) -> BoardSize {
        self.rules.size
    }

    /// Who moved (or was to move) first.
    #[must_use]
    pub fn first(&self) -> Color {
        self.first
    }

    /// Whose turn it is (after the game ends: whose turn it would be).
    #[inline]
    #[must_use]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Stones placed freely before the moves.
    #[must_use]
    pub fn setup_stones(&self) -> &[(Pos, Color)] {
        &self.setup
    }

    /// Side to move after the placed stones, before the first move.
    #[must_use]
    pub fn setup_to_move(&self) -> Color {
        self.setup_to_move
    }

    /// Moves played, in order.
    #[inline]
    #[must_use]
    pub fn moves(&self) -> &[Pos] {
        &self.moves
    }

    /// Moves that [`Game::redo`] would replay, next one last.
    #[must_use]
    pub fn redo_moves(&self) -> &[Pos] {
        &self.redo
    }

    /// The colour of the `n`th move (0-based).
    #[must_use]
    pub fn color_of_move(&self, n: usize) -> Color {
        if n % 2 == 0 {
            self.setup_to_move
        } else {
            self.setup_to_move.opponent()
        }
    }

    /// The last move, if any.
    #[must_use]
    pub fn last_move(&self) -> Option<Pos> {
        self.moves.last().copied()
    }

    /// The result, once the game has ended.
    #[inline]
    #[must_use]
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Whether the game has ended.
    #[inline]
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Zobrist hash of stones and side to move.
    #[inline]
    #[must_use]
    pub fn hash(&self) -> u64 {
        match self.to_move {
            Color::Black => self.board.hash(),
            Color::White => self.board.hash() ^ zobrist::WHITE_TO_MOVE,
        }
    }

    /// Whether the side to move may play `pos`.
    ///
    /// # Errors
    /// The [`MoveError`] that [`Game::try_play`] would give.
    pub fn check(&self, pos: Pos) -> Result<(), MoveError> {
        self.check_placement(pos)?;
        if self.to_move == Color::Black && self.rules.rule.has_fouls() {
            let mut board = self.board.clone();
            if let Some(foul) = board.foul_at(pos, Color::Black, self.rules.rule) {
                return Err(self.forbidden(pos, foul));
            }
        }
        Ok(())
    }

    fn check_placement(&self, pos: Pos) -> Result<(), MoveError> {
        let size = self.rules.size;
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        if !size.contains(pos) {
            return Err(MoveError::OffBoard { pos, size });
        }
        if self.board.get(pos).is_some() {
            return Err(MoveError::Occupied { pos, size });
        }
        Ok(())
    }

    fn forbidden(&self, pos: Pos, foul: Foul) -> MoveError {
        MoveError::Forbidden {
            pos,
            size: self.rules.size,
            foul,
        }
    }

    /// Plays `pos` for the side to move, refusing an illegal move (occupied,
    /// off the board, forbidden, game over) and leaving the game unchanged.
    /// Clears the redo list. Returns the outcome if the move ended the game.
    ///
    /// # Errors
    /// [`MoveError`] saying why the move was refused.
    pub fn try_play(&mut self, pos: Pos) -> Result<Option<Outcome>, MoveError> {
        self.check_placement(pos)?;
        if self.to_move == Color::Black && self.rules.rule.has_fouls() {
            if let Some(foul) = self.board.foul_at(pos, Color::Black, self.rules.rule) {
                return Err(self.forbidden(pos, foul));
            }
        }
        self.redo.clear();
        self.play_unchecked(pos);
        self.settle_stuck_black();
        Ok(self.outcome)
    }

    /// Under renju black may be left with no legal move (every empty point
    /// forbidden): the game is then drawn, as with a full board.
    fn settle_stuck_black(&mut self) {
        if self.outcome.is_none()
            && self.rules.rule.has_fouls()
            && self.to_move == Color::Black
            && !self.black_has_a_move()
        {
            self.outcome = Some(Outcome::Draw);
        }
    }

    fn black_has_a_move(&self) -> bool {
        let mut board = self.board.clone();
        let empties: Vec<Pos> = board.empty_points().collect();
        empties
            .into_iter()
            .any(|p| board.foul_at(p, Color::Black, self.rules.rule).is_none())
    }

    /// Plays `pos` as a referee would: like [`Game::try_play`], except that
    /// black playing a renju forbidden point is played and loses the game
    /// ([`Outcome::Foul`]).
    ///
    /// # Errors
    /// Off-board, occupied and game-over moves are still refused.
    pub fn play_refereed(&mut self, pos: Pos) -> Result<Option<Outcome>, MoveError> {
        self.check_placement(pos)?;
        let foul = if self.to_move == Color::Black {
            self.board.foul_at(pos, Color::Black, self.rules.rule)
        } else {
            None
        };
        self.redo.clear();
        let outcome = self.play_unchecked(pos);
        if foul.is_none() {
            self.settle_stuck_black();
            if self.outcome != outcome {
                return Ok(self.outcome);
            }
        }
        if let Some(foul) = foul {
            let o = Outcome::Foul {
                winner: Color::White,
                at: pos,
                foul,
            };
            self.outcome = Some(o);
            return Ok(Some(o));
        }
        Ok(outcome)
    }

    /// Plays `pos` for the side to move.
    ///
    /// # Panics
    /// If the move is illegal; use [`Game::try_play`] for untrusted input.
    pub fn play(&mut self, pos: Pos) -> Option<Outcome> {
        match self.try_play(pos) {
            Ok(o) => o,
            Err(e) => panic!("illegal move: {e}"),
        }
    }

    /// Plays `pos` without any check (the engine's hot path): the point must
    /// be on the board and empty and the game not over. Fouls are not
    /// looked at. Keeps the redo list. Returns the outcome if the move ended
    /// the game.
    #[inline]
    pub fn play_unchecked(&mut self, pos: Pos) -> Option<Outcome> {
        let color = self.to_move;
        let i = self.board.index(pos);
        self.board.place(i, color);
        self.moves.push(pos);
        self.to_move = color.opponent();
        if let Some(line) = self.board.winning_line(i, color, &self.rules) {
            self.outcome = Some(Outcome::Five {
                winner: color,
                line,
            });
        } else if self.board.is_full() {
            self.outcome = Some(Outcome::Draw);
        }
        self.outcome
    }

    /// The side to move resigns.
    ///
    /// # Errors
    /// [`MoveError::GameOver`] if the game has already ended.
    pub fn resign(&mut self) -> Result<Outcome, MoveError> {
        self.resign_side(self.to_move)
    }

    /// `color` resigns (either side may, at any time before the end).
    ///
    /// # Errors
    /// [`MoveError::GameOver`] if the game has already ended.
    pub fn resign_side(&mut self, color: Color) -> Result<Outcome, MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        let o = Outcome::Resigned {
            winner: color.opponent(),
        };
        self.outcome = Some(o);
        Ok(o)
    }

    /// Takes back the last move and keeps it for [`Game::redo`]. Undoing a
    /// resignation only withdraws the resignation. Returns the move taken
    /// back, or `None` if there was none.
    pub fn undo(&mut self) -> Option<Pos> {
        if matches!(self.outcome, Some(Outcome::Resigned { .. })) {
            self.outcome = None;
            return None;
        }
        let pos = self.undo_unchecked()?;
        self.redo.push(pos);
        Some(pos)
    }

    /// Takes back the last move without touching the redo list (the
    /// engine's fast path).
    #[inline]
    pub fn undo_unchecked(&mut self) -> Option<Pos> {
        let pos = self.moves.pop()?;
        let i = self.board.index(pos);
        self.board.remove(i);
        self.to_move = self.to_move.opponent();
        self.outcome = if self.moves.is_empty() && self.board.is_full() {
            Some(Outcome::Draw)
        } else {
            None
        };
        Some(pos)
    }

    /// Replays the last move taken back. Returns it, or `None` if there is
    /// nothing to redo.
    pub fn redo(&mut self) -> Option<Pos> {
        let pos = *self.redo.last()?;
        let saved = std::mem::take(&mut self.redo);
        let result = self.play_refereed(pos);
        self.redo = saved;
        match result {
            Ok(_) => {
                self.redo.pop();
                Some(pos)
            }
            Err(_) => None,
        }
    }

    /// Every legal move for the side to move (renju fouls left out), row by
    /// row from the top-left. Empty once the game is over.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Pos> {
        if self.is_over() {
            return Vec::new();
        }
        let fouls = self.forbidden_points();
        self.board
            .empty_points()
            .filter(|p| !fouls.iter().any(|&(f, _)| f == *p))
            .collect()
    }

    /// The forbidden points of the side to move: black's fouls under renju,
    /// else none. Row by row from the top-left.
    #[must_use]
    pub fn forbidden_points(&self) -> Vec<(Pos, Foul)> {
        if self.rules.rule.has_fouls() && self.to_move == Color::Black && !self.is_over() {
            let mut board = self.board.clone();
            // Already row by row from the top-left.
            forbidden::forbidden_points(&mut board)
        } else {
            Vec::new()
        }
    }

    /// Black's forbidden points under renju whoever is to move (for marking
    /// them on a board), row by row from the top-left.
    #[must_use]
    pub fn black_forbidden_points(&self) -> Vec<(Pos, Foul)> {
        if self.rules.rule.has_fouls() {
            let mut board = self.board.clone();
            forbidden::forbidden_points(&mut board)
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_move_list;

    fn renju() -> Rules {
        Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap()
    }

    #[test]
    fn undo_redo_and_new_move_clears_redo() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let mut g = Game::new(rules, Color::Black).unwrap();
        let moves = parse_move_list("h8 i9 j10", rules.size).unwrap();
        for &m in &moves {
            g.try_play(m).unwrap();
        }
        let h3 = g.hash();
        assert_eq!(g.undo(), Some(moves[2]));
        assert_eq!(g.to_move(), Color::White.opponent());
        assert_eq!(g.undo(), Some(moves[1]));
        assert_eq!(g.redo(), Some(moves[1]));
        assert_eq!(g.redo(), Some(moves[2]));
        assert_eq!(g.hash(), h3);
        assert_eq!(g.redo(), None);
        g.undo();
        g.try_play(Pos::new(0, 0)).unwrap();
        assert!(g.redo_moves().is_empty());
    }

    #[test]
    fn errors_leave_the_game_unchanged() {
        let mut g = Game::new(renju(), Color::Black).unwrap();
        g.try_play(Pos::new(7, 7)).unwrap();
        let before = g.clone();
        let e = g.try_play(Pos::new(7, 7)).unwrap_err();
        assert_eq!(e.to_string(), "h8 is already occupied");
        assert!(matches!(
            g.try_play(Pos::new(15, 0)),
            Err(MoveError::OffBoard { .. })
        ));
        assert_eq!(g, before);
    }

    #[test]
    fn renju_needs_black_first() {
        assert_eq!(
            Game::new(renju(), Color::White),
            Err(RulesError::RenjuBlackFirst)
        );
    }

    #[test]
    fn full_board_is_a_draw() {
        let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
        // X O X / X O O / O X X : no three in a row.
        let order = "a3 b3 c3 b2 a2 c2 b1 a1 c1";
        let moves = parse_move_list(order, rules.size).unwrap();
        let g = Game::from_moves(rules, Color::Black, &moves).unwrap();
        assert_eq!(g.outcome(), Some(&Outcome::Draw));
    }

    /// Regression: every empty point forbidden for black left a renju game
    /// stuck with no legal move and no result.
    #[test]
    fn renju_black_with_only_forbidden_points_is_a_draw() {
        let rules = Rules::new(BoardSize::new(7, 5).unwrap(), 5, Rule::Renju).unwrap();
        let moves = parse_move_list(
            "d2 a1 e2 a3 g2 b4 b2 e4 a2 c5 f3 d5 b3 c1 e3 d4 f2 e5 d1 e1 g5 f4 b5 d3 c4 f5 g1 g3 a4 b1 g4 f1 a5 c3",
            rules.size,
        )
        .unwrap();
        let g = Game::from_moves(rules, Color::Black, &moves).unwrap();
        assert_eq!(g.outcome(), Some(&Outcome::Draw));
        assert!(g.legal_moves().is_empty());
    }

    /// Regression: `forbidden_points` came out column by column.
    #[test]
    fn forbidden_points_are_row_by_row() {
        let rules = renju();
        let mut setup = GameSetup::new(rules.size, 5, Rule::Renju);
        for (list, color) in [
            (
                "d8 d9 e7 f7 g6 g9 h8 h12 i9 j7 j9 k6 k9 l6 m9 m11 n10",
                Color::Black,
            ),
            ("b7 c9 e5 e8 f8 f10 h9 i8 l9 m6 m10", Color::White),
        ] {
            for p in parse_move_list(list, rules.size).unwrap() {
                setup.stones.push((p, color));
            }
        }
        setup.to_move = Some(Color::Black);
        let g = Game::from_setup(&setup).unwrap();
        let names: Vec<String> = g
            .forbidden_points()
            .iter()
            .map(|&(p, _)| crate::notation::format_pos(p, rules.size))
            .collect();
        assert_eq!(names, ["j10", "j8", "g7", "k7"]);
    }

    #[test]
    fn resign_and_take_it_back() {
        let mut g = Game::new(renju(), Color::Black).unwrap();
        g.try_play(Pos::new(7, 7)).unwrap();
        assert_eq!(
            g.resign().unwrap(),
            Outcome::Resigned {
                winner: Color::Black
            }
        );
        assert_eq!(g.try_play(Pos::new(0, 0)), Err(MoveError::GameOver));
        assert_eq!(g.undo(), None);
        assert!(!g.is_over());
        assert_eq!(g.moves().len(), 1);
    }
}
