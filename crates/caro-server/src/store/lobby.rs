//! The lobby in the store: seeks, the games made from them, and ratings.
//! SQL written once for both backends; every step that must happen once
//! (a seek taken, a game rated) is a conditional write whose changed-row
//! count decides, so two instances never both do it.

use super::backend::{Statement, Value};
use super::{Store, StoreError};
use crate::rating::{Rating, START};

/// A seek as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct SeekRow {
    /// Its id.
    pub id: i64,
    /// The poster's account (0: a guest).
    pub account_id: i64,
    /// A guest poster's secret (empty for an account).
    pub guest_token: String,
    /// The poster's address.
    pub owner: String,
    /// The rule's name.
    pub rule: String,
    /// Columns.
    pub width: i64,
    /// Rows.
    pub height: i64,
    /// The opening's name.
    pub opening: String,
    /// Minutes a side on the clock (0 and no increment: no clock).
    pub minutes: i64,
    /// Seconds added a move.
    pub increment: i64,
    /// Rated (both players need accounts).
    pub rated: bool,
    /// The poster's colour: `black`, `white` or `random`.
    pub colour: String,
    /// Unix seconds it was posted.
    pub created: i64,
    /// Unix seconds it leaves the lobby.
    pub expires: i64,
    /// Cancelled by its poster.
    pub cancelled: bool,
    /// 0 while open, -1 while being taken, then the game's id.
    pub game_id: i64,
}

/// A game made from a seek.
#[derive(Clone, Debug, PartialEq)]
pub struct LobbyGameRow {
    /// The game's id.
    pub game_id: i64,
    /// The accounts of the first and second seat (0: a guest).
    pub accounts: [i64; 2],
    /// Its variant (`freestyle15` …).
    pub variant: String,
    /// Rated.
    pub rated: bool,
    /// `casual`, `playing` (rated, not ended), `rated` or `aborted`.
    pub state: String,
    /// Each seat's rating before the game and its change (once rated).
    pub ratings: [(f64, f64); 2],
    /// Each seat's whole standing before the game (once rated): its
    /// rating, deviation, volatility and rated games.
    pub before: [(Rating, i64); 2],
}

/// A player's standing in one variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standing {
    /// The Glicko-2 rating.
    pub rating: Rating,
    /// Rated games played.
    pub games: i64,
    /// Wins, draws and losses in them.
    pub wins: i64,
    /// See `wins`.
    pub draws: i64,
    /// See `wins`.
    pub losses: i64,
}

impl Default for Standing {
    fn default() -> Standing {
        Standing {
            rating: START,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
        }
    }
}

/// One point of a rating's history.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistoryPoint {
    /// The game after which the rating was this.
    pub game_id: i64,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Unix seconds.
    pub at: i64,
}

/// One rated player of a game, as [`Store::rate_game`] writes them.
#[derive(Clone, Copy, Debug)]
pub struct RatedSeat {
    /// The account.
    pub account_id: i64,
    /// The standing before the game, as read (its `games` is the check
    /// that nobody changed it since).
    pub before: Standing,
    /// The rating after the game.
    pub after: Rating,
    /// 1 a win, ½ a draw, 0 a loss.
    pub score: f64,
}

macro_rules! seek_columns {
    () => {
        "id, account_id, guest_token, owner, rule, width, height, opening, minutes, increment, rated, colour, created, expires, cancelled, game_id"
    };
}

const INSERT_SEEK: &str = "INSERT INTO seeks (account_id, guest_token, owner, rule, width, height, opening, minutes, increment, rated, colour, created, expires) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id";
const GET_SEEK: &str = concat!("SELECT ", seek_columns!(), " FROM seeks WHERE id = $1");
const OPEN_SEEKS: &str = concat!(
    "SELECT ",
    seek_columns!(),
    " FROM seeks WHERE game_id = 0 AND cancelled = 0 AND expires > $1 ORDER BY created, id LIMIT 500"
);
const OPEN_SEEKS_OF_ACCOUNT: &str = "SELECT COUNT(*) FROM seeks WHERE game_id = 0 AND cancelled = 0 AND expires > $1 AND account_id = $2";
const OPEN_SEEKS_OF_GUEST: &str = "SELECT COUNT(*) FROM seeks WHERE game_id = 0 AND cancelled = 0 AND expires > $1 AND account_id = 0 AND owner = $2";
const CANCEL_SEEK: &str = "UPDATE seeks SET cancelled = 1 WHERE id = $1 AND game_id = 0";
const CLAIM_SEEK: &str = "UPDATE seeks SET game_id = -1, taker_account = $2 WHERE id = $1 AND game_id = 0 AND cancelled = 0 AND expires > $3";
const RELEASE_SEEK: &str =
    "UPDATE seeks SET game_id = 0, taker_account = 0 WHERE id = $1 AND game_id = -1";
const SEEK_TAKEN: &str = "UPDATE seeks SET game_id = $2 WHERE id = $1 AND game_id = -1";

macro_rules! lobby_game_columns {
    () => {
        "game_id, first_account, second_account, variant, rated, state, first_rating, first_change, second_rating, second_change, first_deviation, first_volatility, first_games, second_deviation, second_volatility, second_games"
    };
}

const INSERT_LOBBY_GAME: &str = "INSERT INTO lobby_games (game_id, first_account, second_account, variant, rated, state) VALUES ($1, $2, $3, $4, $5, $6)";
const GET_LOBBY_GAME: &str = concat!(
    "SELECT ",
    lobby_game_columns!(),
    " FROM lobby_games WHERE game_id = $1"
);
const LOBBY_GAMES_OF: &str = concat!(
    "SELECT ",
    lobby_game_columns!(),
    " FROM lobby_games WHERE first_account = $1 OR second_account = $1 ORDER BY game_id DESC LIMIT $2"
);
const PENDING_RATED: &str = "SELECT l.game_id FROM lobby_games l JOIN games g ON g.id = l.game_id WHERE l.state = 'playing' AND g.result <> '' ORDER BY l.game_id";
const MARK_RATED: &str = "UPDATE lobby_games SET state = 'rated', first_rating = $2, first_change = $3, second_rating = $4, second_change = $5, first_deviation = $6, first_volatility = $7, first_games = $8, second_deviation = $9, second_volatility = $10, second_games = $11 WHERE game_id = $1 AND state = 'playing'";
const RATED_GAMES: &str = concat!(
    "SELECT ",
    lobby_game_columns!(),
    " FROM lobby_games WHERE state = 'rated' ORDER BY game_id"
);
const ALL_STANDINGS: &str = "SELECT account_id, variant, rating, deviation, volatility, games, wins, draws, losses FROM ratings ORDER BY account_id, variant";
const MARK_ABORTED: &str =
    "UPDATE lobby_games SET state = 'aborted' WHERE game_id = $1 AND state = 'playing'";

const GET_STANDING: &str = "SELECT rating, deviation, volatility, games, wins, draws, losses FROM ratings WHERE account_id = $1 AND variant = $2";
const STANDINGS_OF: &str = "SELECT variant, rating, deviation, volatility, games, wins, draws, losses FROM ratings WHERE account_id = $1 ORDER BY variant";
/// Writes a standing over the one read (`$7` games before): no row
/// changes when another game was rated meanwhile.
const PUT_STANDING: &str = "INSERT INTO ratings (account_id, variant, rating, deviation, volatility, games, wins, draws, losses, updated) VALUES ($1, $2, $3, $4, $5, $6 + 1, $8, $9, $10, $11)
     ON CONFLICT (account_id, variant) DO UPDATE SET rating = EXCLUDED.rating, deviation = EXCLUDED.deviation, volatility = EXCLUDED.volatility, games = EXCLUDED.games, wins = EXCLUDED.wins, draws = EXCLUDED.draws, losses = EXCLUDED.losses, updated = EXCLUDED.updated
     WHERE ratings.games = $7";
const ADD_HISTORY: &str = "INSERT INTO rating_history (account_id, variant, game_id, rating, deviation, at) VALUES ($1, $2, $3, $4, $5, $6)";
const HISTORY: &str = "SELECT game_id, rating, deviation, at FROM rating_history WHERE account_id = $1 AND variant = $2 ORDER BY at, game_id";
const LEADERS: &str = "SELECT a.name, r.rating, r.deviation, r.games FROM ratings r JOIN accounts a ON a.id = r.account_id WHERE r.variant = $1 AND r.deviation < $2 AND a.deleted = 0 AND a.disabled = 0 ORDER BY r.rating DESC, a.name_key LIMIT $3";

fn damaged(what: &str, row: &[Value], want: usize) -> StoreError {
    StoreError::Damaged {
        id: row.first().map_or(0, Value::int),
        reason: format!("a {what} row has {} columns, not {want}", row.len()),
    }
}

fn read_seek(r: &[Value]) -> Result<SeekRow, StoreError> {
    if r.len() != 16 {
        return Err(damaged("seek", r, 16));
    }
    Ok(SeekRow {
        id: r[0].int(),
        account_id: r[1].int(),
        guest_token: r[2].text(),
        owner: r[3].text(),
        rule: r[4].text(),
        width: r[5].int(),
        height: r[6].int(),
        opening: r[7].text(),
        minutes: r[8].int(),
        increment: r[9].int(),
        rated: r[10].int() != 0,
        colour: r[11].text(),
        created: r[12].int(),
        expires: r[13].int(),
        cancelled: r[14].int() != 0,
        game_id: r[15].int(),
    })
}

fn read_lobby_game(r: &[Value]) -> Result<LobbyGameRow, StoreError> {
    if r.len() != 16 {
        return Err(damaged("lobby game", r, 16));
    }
    let before = |rating: &Value, deviation: &Value, volatility: &Value, games: &Value| {
        (
            Rating {
                rating: rating.real(),
                deviation: deviation.real(),
                volatility: volatility.real(),
            },
            games.int(),
        )
    };
    Ok(LobbyGameRow {
        game_id: r[0].int(),
        accounts: [r[1].int(), r[2].int()],
        variant: r[3].text(),
        rated: r[4].int() != 0,
        state: r[5].text(),
        ratings: [(r[6].real(), r[7].real()), (r[8].real(), r[9].real())],
        before: [
            before(&r[6], &r[10], &r[11], &r[12]),
            before(&r[8], &r[13], &r[14], &r[15]),
        ],
    })
}

/// A standing from `rating, deviation, volatility, games, wins, draws,
/// losses`.
fn read_standing(r: &[Value]) -> Standing {
    Standing {
        rating: Rating {
            rating: r[0].real(),
            deviation: r[1].real(),
            volatility: r[2].real(),
        },
        games: r[3].int(),
        wins: r[4].int(),
        draws: r[5].int(),
        losses: r[6].int(),
    }
}

impl Store {
    /// Posts a seek: its id.
    ///
    /// # Errors
    /// The database's error.
    pub async fn insert_seek(&self, s: &SeekRow) -> Result<i64, StoreError> {
        let rows = self
            .backend
            .query(
                INSERT_SEEK,
                &[
                    Value::Int(s.account_id),
                    Value::Text(s.guest_token.clone()),
                    Value::Text(s.owner.clone()),
                    Value::Text(s.rule.clone()),
                    Value::Int(s.width),
                    Value::Int(s.height),
                    Value::Text(s.opening.clone()),
                    Value::Int(s.minutes),
                    Value::Int(s.increment),
                    Value::Int(s.rated.into()),
                    Value::Text(s.colour.clone()),
                    Value::Int(s.created),
                    Value::Int(s.expires),
                ],
            )
            .await?;
        Ok(rows.first().and_then(|r| r.first()).map_or(0, Value::int))
    }

    /// A seek by id.
    ///
    /// # Errors
    /// The database's error.
    pub async fn seek(&self, id: i64) -> Result<Option<SeekRow>, StoreError> {
        let rows = self.backend.query(GET_SEEK, &[Value::Int(id)]).await?;
        rows.first().map(|r| read_seek(r)).transpose()
    }

    /// The seeks open at `now`, oldest first (at most 500).
    ///
    /// # Errors
    /// The database's error.
    pub async fn open_seeks(&self, now: i64) -> Result<Vec<SeekRow>, StoreError> {
        let rows = self.backend.query(OPEN_SEEKS, &[Value::Int(now)]).await?;
        rows.iter().map(|r| read_seek(r)).collect()
    }

    /// How many seeks an account (or, for 0, a guest's address) has open.
    ///
    /// # Errors
    /// The database's error.
    pub async fn open_seeks_of(
        &self,
        account_id: i64,
        owner: &str,
        now: i64,
    ) -> Result<i64, StoreError> {
        let rows = if account_id != 0 {
            self.backend
                .query(
                    OPEN_SEEKS_OF_ACCOUNT,
                    &[Value::Int(now), Value::Int(account_id)],
                )
                .await?
        } else {
            self.backend
                .query(
                    OPEN_SEEKS_OF_GUEST,
                    &[Value::Int(now), Value::Text(owner.into())],
                )
                .await?
        };
        Ok(rows.first().and_then(|r| r.first()).map_or(0, Value::int))
    }

    /// Cancels an open seek: `false` when it was taken (or is being taken).
    ///
    /// # Errors
    /// The database's error.
    pub async fn cancel_seek(&self, id: i64) -> Result<bool, StoreError> {
        Ok(self.backend.execute(CANCEL_SEEK, &[Value::Int(id)]).await? == 1)
    }

    /// Takes a seek for one taker: `true` for exactly one of several
    /// takers at once, on any instance, and only while it is open at `now`.
    ///
    /// # Errors
    /// The database's error.
    pub async fn claim_seek(
        &self,
        id: i64,
        taker_account: i64,
        now: i64,
    ) -> Result<bool, StoreError> {
        Ok(self
            .backend
            .execute(
                CLAIM_SEEK,
                &[Value::Int(id), Value::Int(taker_account), Value::Int(now)],
            )
            .await?
            == 1)
    }

    /// Opens a claimed seek again (its game could not be made).
    ///
    /// # Errors
    /// The database's error.
    pub async fn release_seek(&self, id: i64) -> Result<(), StoreError> {
        self.backend
            .execute(RELEASE_SEEK, &[Value::Int(id)])
            .await?;
        Ok(())
    }

    /// Records the game made from a claimed seek, with its seats.
    ///
    /// # Errors
    /// The database's error.
    pub async fn seek_taken(&self, seek_id: i64, game: &LobbyGameRow) -> Result<(), StoreError> {
        self.backend
            .transaction(&[
                Statement::must_change(
                    INSERT_LOBBY_GAME,
                    vec![
                        Value::Int(game.game_id),
                        Value::Int(game.accounts[0]),
                        Value::Int(game.accounts[1]),
                        Value::Text(game.variant.clone()),
                        Value::Int(game.rated.into()),
                        Value::Text(game.state.clone()),
                    ],
                ),
                Statement::new(
                    SEEK_TAKEN,
                    vec![Value::Int(seek_id), Value::Int(game.game_id)],
                ),
            ])
            .await?;
        Ok(())
    }

    /// The lobby's record of a game, if it was made from a seek.
    ///
    /// # Errors
    /// The database's error.
    pub async fn lobby_game(&self, game_id: i64) -> Result<Option<LobbyGameRow>, StoreError> {
        let rows = self
            .backend
            .query(GET_LOBBY_GAME, &[Value::Int(game_id)])
            .await?;
        rows.first().map(|r| read_lobby_game(r)).transpose()
    }

    /// An account's lobby games, newest first.
    ///
    /// # Errors
    /// The database's error.
    pub async fn lobby_games_of(
        &self,
        account_id: i64,
        limit: i64,
    ) -> Result<Vec<LobbyGameRow>, StoreError> {
        let rows = self
            .backend
            .query(LOBBY_GAMES_OF, &[Value::Int(account_id), Value::Int(limit)])
            .await?;
        rows.iter().map(|r| read_lobby_game(r)).collect()
    }

    /// Rated games that ended and were not rated yet (an instance stopped
    /// between the two).
    ///
    /// # Errors
    /// The database's error.
    pub async fn pending_rated_games(&self) -> Result<Vec<i64>, StoreError> {
        let rows = self.backend.query(PENDING_RATED, &[]).await?;
        Ok(rows
            .iter()
            .filter_map(|r| r.first())
            .map(Value::int)
            .collect())
    }

    /// An account's standing in a variant (a new player's if none).
    ///
    /// # Errors
    /// The database's error.
    pub async fn standing(&self, account_id: i64, variant: &str) -> Result<Standing, StoreError> {
        let rows = self
            .backend
            .query(
                GET_STANDING,
                &[Value::Int(account_id), Value::Text(variant.into())],
            )
            .await?;
        Ok(rows
            .first()
            .filter(|r| r.len() == 7)
            .map_or_else(Standing::default, |r| read_standing(r)))
    }

    /// An account's standings, by variant.
    ///
    /// # Errors
    /// The database's error.
    pub async fn standings_of(
        &self,
        account_id: i64,
    ) -> Result<Vec<(String, Standing)>, StoreError> {
        let rows = self
            .backend
            .query(STANDINGS_OF, &[Value::Int(account_id)])
            .await?;
        Ok(rows
            .iter()
            .filter(|r| r.len() == 8)
            .map(|r| (r[0].text(), read_standing(&r[1..])))
            .collect())
    }

    /// A rating's history in a variant, oldest first.
    ///
    /// # Errors
    /// The database's error.
    pub async fn rating_history(
        &self,
        account_id: i64,
        variant: &str,
    ) -> Result<Vec<HistoryPoint>, StoreError> {
        let rows = self
            .backend
            .query(
                HISTORY,
                &[Value::Int(account_id), Value::Text(variant.into())],
            )
            .await?;
        Ok(rows
            .iter()
            .filter(|r| r.len() == 4)
            .map(|r| HistoryPoint {
                game_id: r[0].int(),
                rating: r[1].real(),
                deviation: r[2].real(),
                at: r[3].int(),
            })
            .collect())
    }

    /// The best players of a variant whose deviation is under
    /// `max_deviation`: name, rating, deviation, games.
    ///
    /// # Errors
    /// The database's error.
    pub async fn leaders(
        &self,
        variant: &str,
        max_deviation: f64,
        limit: i64,
    ) -> Result<Vec<(String, f64, f64, i64)>, StoreError> {
        let rows = self
            .backend
            .query(
                LEADERS,
                &[
                    Value::Text(variant.into()),
                    Value::Real(max_deviation),
                    Value::Int(limit),
                ],
            )
            .await?;
        Ok(rows
            .iter()
            .filter(|r| r.len() == 4)
            .map(|r| (r[0].text(), r[1].real(), r[2].real(), r[3].int()))
            .collect())
    }

    /// Every rated game, by id.
    ///
    /// # Errors
    /// The database's error.
    pub async fn rated_games(&self) -> Result<Vec<LobbyGameRow>, StoreError> {
        let rows = self.backend.query(RATED_GAMES, &[]).await?;
        rows.iter().map(|r| read_lobby_game(r)).collect()
    }

    /// Every standing: account, variant, standing.
    ///
    /// # Errors
    /// The database's error.
    pub async fn all_standings(&self) -> Result<Vec<(i64, String, Standing)>, StoreError> {
        let rows = self.backend.query(ALL_STANDINGS, &[]).await?;
        Ok(rows
            .iter()
            .filter(|r| r.len() == 9)
            .map(|r| (r[0].int(), r[1].text(), read_standing(&r[2..])))
            .collect())
    }

    /// Marks a rated game aborted (too short to rate): `false` when it was
    /// no longer waiting to be rated.
    ///
    /// # Errors
    /// The database's error.
    pub async fn abort_rated_game(&self, game_id: i64) -> Result<bool, StoreError> {
        Ok(self
            .backend
            .execute(MARK_ABORTED, &[Value::Int(game_id)])
            .await?
            == 1)
    }

    /// Rates an ended game once: both standings written over the ones
    /// read, with the history, in one transaction. `false` (nothing
    /// written) when the game was rated already or a standing changed
    /// since it was read (read again and retry).
    ///
    /// # Errors
    /// The database's error.
    pub async fn rate_game(
        &self,
        game_id: i64,
        variant: &str,
        seats: [RatedSeat; 2],
        now: i64,
    ) -> Result<bool, StoreError> {
        let mut statements = vec![Statement::must_change(
            MARK_RATED,
            vec![
                Value::Int(game_id),
                Value::Real(seats[0].before.rating.rating),
                Value::Real(seats[0].after.rating - seats[0].before.rating.rating),
                Value::Real(seats[1].before.rating.rating),
                Value::Real(seats[1].after.rating - seats[1].before.rating.rating),
                Value::Real(seats[0].before.rating.deviation),
                Value::Real(seats[0].before.rating.volatility),
                Value::Int(seats[0].before.games),
                Value::Real(seats[1].before.rating.deviation),
                Value::Real(seats[1].before.rating.volatility),
                Value::Int(seats[1].before.games),
            ],
        )];
        // Always in the same order of accounts, so two games rated at once
        // never wait on each other's rows in a circle.
        let mut ordered = seats;
        ordered.sort_by_key(|s| s.account_id);
        for s in ordered {
            let b = s.before;
            let won = i64::from(s.score > 0.75);
            let drew = i64::from((0.25..=0.75).contains(&s.score));
            let lost = i64::from(s.score < 0.25);
            statements.push(Statement::must_change(
                PUT_STANDING,
                vec![
                    Value::Int(s.account_id),
                    Value::Text(variant.into()),
                    Value::Real(s.after.rating),
                    Value::Real(s.after.deviation),
                    Value::Real(s.after.volatility),
                    Value::Int(b.games),
                    Value::Int(b.games),
                    Value::Int(b.wins + won),
                    Value::Int(b.draws + drew),
                    Value::Int(b.losses + lost),
                    Value::Int(now),
                ],
            ));
            statements.push(Statement::must_change(
                ADD_HISTORY,
                vec![
                    Value::Int(s.account_id),
                    Value::Text(variant.into()),
                    Value::Int(game_id),
                    Value::Real(s.after.rating),
                    Value::Real(s.after.deviation),
                    Value::Int(now),
                ],
            ));
        }
        self.backend.transaction(&statements).await
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_statements_name_every_column() {
        assert_eq!(seek_columns!().split(", ").count(), 16);
        assert_eq!(lobby_game_columns!().split(", ").count(), 16);
    }
}
