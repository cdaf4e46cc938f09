//! Data-driven rule tests over test data written by others (`fouls.txt`,
//! `win_rules.txt`, `games.txt` in ANCHOR FORMAT v1).
//!
//! The records from MIT-licensed sources are copied into the repository's
//! `testdata/positions` (attribution in its `SOURCES.md`) and always run.
//! The full shared folder, with records from GPL-licensed and unlicensed
//! sources that stay outside the repository, is named by the
//! `CARO_POSITIONS` environment variable, which `.ci/run` sets to
//! `../shared/positions`; its records that are not also in
//! `testdata/positions` run too. Without it those tests pass and say what
//! they skipped.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use caro_core::notation::parse_pos;
use caro_core::{Board, BoardSize, Color, Foul, Game, GameSetup, Outcome, Pos, Rule, Rules};

/// One record: its `key=value` tokens.
struct Record {
    line: usize,
    /// The line as written (trimmed), to tell the same record in two files.
    text: String,
    fields: HashMap<String, String>,
}

impl Record {
    fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    fn req(&self, key: &str) -> &str {
        self.get(key)
            .unwrap_or_else(|| panic!("line {}: record lacks {key}=", self.line))
    }

    fn id(&self) -> &str {
        self.get("id").unwrap_or("?")
    }

    fn size(&self) -> BoardSize {
        let n: u8 = self.req("size").parse().expect("size");
        BoardSize::square(n)
    }

    fn rule(&self) -> Rule {
        self.req("rule").parse().expect("rule")
    }

    fn points(&self, key: &str) -> Vec<Pos> {
        let size = self.size();
        match self.get(key) {
            None | Some("-") => Vec::new(),
            Some(list) => list
                .split(',')
                .map(|p| parse_pos(p, size).unwrap_or_else(|e| panic!("{}: {e}", self.id())))
                .collect(),
        }
    }

    /// `q=pt:verdict,...`
    fn queries(&self) -> Vec<(Pos, String)> {
        let size = self.size();
        match self.get("q") {
            None | Some("-") => Vec::new(),
            Some(list) => list
                .split(',')
                .map(|item| {
                    let (p, v) = item.split_once(':').expect("q item");
                    (parse_pos(p, size).expect("q point"), v.to_string())
                })
                .collect(),
        }
    }
}

/// The sources under the MIT licence: their records are copied into
/// `testdata/positions`.
const MIT_SOURCES: [&str; 5] = [
    "quintet",
    "realcore",
    "realcore-sgf",
    "famegon",
    "famegon-terminal",
];

/// The repository's copy of the MIT-licensed records.
fn testdata_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/positions")
}

/// The records of an ANCHOR FORMAT file.
fn parse(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
    let records: Vec<Record> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(n, l)| Record {
            line: n + 1,
            text: l.trim().to_string(),
            fields: l
                .split_whitespace()
                .filter_map(|t| t.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
        .collect();
    assert!(!records.is_empty(), "{} holds no records", path.display());
    records
}

/// The MIT-licensed records of `file` in `testdata/positions`: at least
/// `min` of them, each from an MIT-licensed source.
fn mit_records(file: &str, min: usize) -> Vec<Record> {
    let records = parse(&testdata_dir().join(file));
    assert!(
        records.len() >= min,
        "testdata/positions/{file}: {} records, expected at least {min}",
        records.len()
    );
    for r in &records {
        let src = r.req("src");
        assert!(
            MIT_SOURCES.contains(&src),
            "testdata/positions/{file} line {}: src={src} is not an MIT-licensed source; its records stay outside the repository",
            r.line
        );
    }
    records
}

/// The records of `file` in the shared folder named by `CARO_POSITIONS`,
/// less those also in `testdata/positions` (the same line), which run from
/// there. `None`, saying what was skipped, when the variable is unset.
fn shared_records(file: &str) -> Option<Vec<Record>> {
    let local = testdata_dir().join(file);
    let local: HashSet<String> = if local.exists() {
        parse(&local).into_iter().map(|r| r.text).collect()
    } else {
        HashSet::new()
    };
    let Some(dir) = std::env::var_os("CARO_POSITIONS") else {
        if local.is_empty() {
            eprintln!(
                "{file}: shared suite skipped: CARO_POSITIONS is not set (.ci/run sets it to ../shared/positions); none of its records are MIT-licensed, so testdata/positions has none"
            );
        } else {
            eprintln!(
                "{file}: shared suite skipped: CARO_POSITIONS is not set (.ci/run sets it to ../shared/positions); ran the {} MIT-licensed records in testdata/positions",
                local.len()
            );
        }
        return None;
    };
    let path = PathBuf::from(dir).join(file);
    let all = parse(&path);
    let total = all.len();
    let rest: Vec<Record> = all
        .into_iter()
        .filter(|r| !local.contains(&r.text))
        .collect();
    eprintln!(
        "{}: {total} records, {} of them also in testdata/positions and run from there",
        path.display(),
        total - rest.len()
    );
    Some(rest)
}

/// The stones of a record: `black=`/`white=` lists, or a `moves=` order
/// (black first, alternating; `pass` skips a turn).
fn board_of(r: &Record) -> Board {
    let mut board = Board::new(r.size());
    for (key, color) in [("black", Color::Black), ("white", Color::White)] {
        for p in r.points(key) {
            let i = board.index(p);
            board.place(i, color);
        }
    }
    if let Some(moves) = r.get("moves").filter(|m| *m != "-") {
        let mut color = Color::Black;
        for m in moves.split(',') {
            if m != "pass" {
                let p = parse_pos(m, r.size()).unwrap_or_else(|e| panic!("{}: {e}", r.id()));
                let i = board.index(p);
                board.place(i, color);
            }
            color = color.opponent();
        }
    }
    board
}

fn foul_label(f: Option<Foul>) -> &'static str {
    f.map_or("ok", Foul::label)
}

/// Records in `testdata/positions/fouls.txt`: quintet 21, realcore 24 and
/// famegon 6.
const MIT_FOUL_RECORDS: usize = 51;
/// Point verdicts they give: the listed points, and every empty point of
/// the 23 complete maps.
const MIT_FOUL_VERDICTS: usize = 4866;

#[test]
fn renju_fouls_match_the_foul_maps_in_testdata() {
    let records = mit_records("fouls.txt", MIT_FOUL_RECORDS);
    let checked = check_fouls("testdata/positions/fouls.txt", &records);
    assert!(
        checked >= MIT_FOUL_VERDICTS,
        "{checked} point verdicts checked, expected at least {MIT_FOUL_VERDICTS}"
    );
}

#[test]
fn renju_fouls_match_the_shared_foul_maps() {
    if let Some(records) = shared_records("fouls.txt") {
        check_fouls("shared fouls.txt", &records);
    }
}

/// Checks black's foul verdicts: the listed points, and on a complete map
/// every other empty point. Returns how many verdicts were checked.
fn check_fouls(what: &str, records: &[Record]) -> usize {
    let renju = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for r in records {
        assert_eq!(r.rule(), Rule::Renju, "{}", r.id());
        let mut board = board_of(r);
        let queries = r.queries();
        for (p, verdict) in &queries {
            let i = board.index(*p);
            let foul = board.foul_at(*p, Color::Black, Rule::Renju);
            let got = match foul {
                None if board.would_win(i, Color::Black, &renju).is_some() => "five",
                None if verdict == "white-ok" => "white-ok",
                other => foul_label(other),
            };
            checked += 1;
            if got != verdict {
                failures.push(format!(
                    "{} {}: expected {verdict}, got {got}",
                    r.id(),
                    caro_core::notation::format_pos(*p, board.size())
                ));
            }
        }
        if r.get("complete") == Some("1") {
            let listed: Vec<Pos> = queries.iter().map(|(p, _)| *p).collect();
            for p in board.clone().empty_points() {
                if listed.contains(&p) {
                    continue;
                }
                checked += 1;
                if let Some(f) = board.foul_at(p, Color::Black, Rule::Renju) {
                    failures.push(format!(
                        "{} {}: complete map says legal, got {}",
                        r.id(),
                        caro_core::notation::format_pos(p, board.size()),
                        f.label()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} verdicts wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "{what}: {} records, {checked} point verdicts agree",
        records.len()
    );
    checked
}

/// `win_rules.txt` has no MIT-licensed records (all are AlphaGomoku's,
/// GPL-3.0), so it runs only from the shared folder.
#[test]
fn immediate_wins_match_the_shared_win_rules() {
    let Some(records) = shared_records("win_rules.txt") else {
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for r in &records {
        let rules = Rules::new(r.size(), 5, r.rule()).unwrap();
        let mut board = board_of(r);
        let color: Color = r.req("to_move").parse().unwrap();
        for (p, verdict) in r.queries() {
            let i = board.index(p);
            let wins = board.would_win(i, color, &rules).is_some();
            checked += 1;
            let want = verdict == "win";
            if wins != want {
                failures.push(format!(
                    "{} {}: expected {verdict}",
                    r.id(),
                    caro_core::notation::format_pos(p, board.size())
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "win_rules.txt: {} records, {checked} queries agree",
        records.len()
    );
}

/// Games in `testdata/positions/games.txt`: realcore-sgf 1, famegon-terminal 1.
const MIT_GAMES: usize = 2;

#[test]
fn games_in_testdata_replay_to_their_recorded_end() {
    let records = mit_records("games.txt", MIT_GAMES);
    replay_games("testdata/positions/games.txt", &records);
}

#[test]
fn shared_games_replay_to_their_recorded_end() {
    if let Some(records) = shared_records("games.txt") {
        replay_games("shared games.txt", &records);
    }
}

/// Replays each game and checks its recorded end.
fn replay_games(what: &str, records: &[Record]) {
    for r in records {
        let size = r.size();
        let rules = Rules::new(size, 5, r.rule()).unwrap();
        let moves = r.points("moves");
        let plies: usize = r.req("plies").parse().unwrap();
        assert_eq!(moves.len(), plies, "{}", r.id());
        let mut game = Game::new(rules, Color::Black).unwrap();
        for (n, &m) in moves.iter().enumerate() {
            assert!(
                !game.is_over(),
                "{}: game over before move {}",
                r.id(),
                n + 1
            );
            game.play_refereed(m)
                .unwrap_or_else(|e| panic!("{}: move {}: {e}", r.id(), n + 1));
        }
        let end = r.req("end");
        let result = r.req("result");
        match (result, end.split(':').collect::<Vec<_>>().as_slice()) {
            ("draw", ["board-full"]) => {
                assert_eq!(game.outcome(), Some(&Outcome::Draw), "{}", r.id())
            }
            ("b" | "w", ["five"]) => {
                let want = if result == "b" {
                    Color::Black
                } else {
                    Color::White
                };
                match game.outcome() {
                    Some(Outcome::Five { winner, line }) => {
                        assert_eq!(*winner, want, "{}", r.id());
                        assert!(line.points().any(|p| Some(p) == game.last_move()));
                    }
                    other => panic!("{}: expected a five, got {other:?}", r.id()),
                }
            }
            ("w", ["black-foul", at, kind]) => match game.outcome() {
                Some(Outcome::Foul {
                    winner,
                    at: p,
                    foul,
                }) => {
                    assert_eq!(*winner, Color::White);
                    assert_eq!(*p, parse_pos(at, size).unwrap(), "{}", r.id());
                    assert_eq!(foul.label(), *kind, "{}", r.id());
                }
                other => panic!("{}: expected a foul, got {other:?}", r.id()),
            },
            (winner @ ("b" | "w"), ["resign"]) => {
                assert!(!game.is_over(), "{}", r.id());
                // The side to move resigned.
                let o = game.resign().unwrap();
                let want = if winner == "b" {
                    Color::Black
                } else {
                    Color::White
                };
                assert_eq!(o.winner(), Some(want), "{}", r.id());
            }
            ("unfinished", ["-"]) => assert!(!game.is_over(), "{}", r.id()),
            other => panic!("{}: unknown ending {other:?}", r.id()),
        }
        // The checked path refuses exactly where the referee scored a foul.
        let mut setup = GameSetup::new(size, 5, r.rule());
        setup.moves = moves.clone();
        match Game::from_setup(&setup) {
            Ok(g) => assert!(
                !end.starts_with("black-foul"),
                "{}: {:?}",
                r.id(),
                g.outcome()
            ),
            Err(e) => assert!(end.starts_with("black-foul"), "{}: {e}", r.id()),
        }
    }
    eprintln!("{what}: {} games replayed", records.len());
}
