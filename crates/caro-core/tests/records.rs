//! Game records: PSQ files and position codes round-trip random legal
//! games, and no input, however broken, makes a reader panic.

use caro_core::code::{CodeError, PositionCode};
use caro_core::opening::Opening;
use caro_core::psq::{read_psq, read_psq_bytes, write_psq, PsqError, PsqRecord};
use caro_core::table::{Actor, Sitter, Table, Turn};
use caro_core::{BoardSize, Color, Game, MoveError, Pos, Rule, Rules, SetupError};
use proptest::prelude::*;

/// A small deterministic generator (splitmix64), so a failing case shrinks
/// over its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What a random game is made from.
#[derive(Clone, Debug)]
struct GameSpec {
    width: u8,
    height: u8,
    rule: usize,
    k_seed: u8,
    white_first: bool,
    moves: usize,
    seed: u64,
}

fn side() -> impl Strategy<Value = u8> {
    // Small boards often, so that games also end in wins and draws.
    prop_oneof![3u8..=8, 3u8..=60]
}

fn game_spec() -> impl Strategy<Value = GameSpec> {
    (
        side(),
        side(),
        0..Rule::ALL.len(),
        any::<u8>(),
        any::<bool>(),
        0usize..150,
        any::<u64>(),
    )
        .prop_map(
            |(width, height, rule, k_seed, white_first, moves, seed)| GameSpec {
                width,
                height,
                rule,
                k_seed,
                white_first,
                moves,
                seed,
            },
        )
}

/// A legal game: random rules for the board, then random legal moves, most
/// of them near earlier stones, until the game ends or `spec.moves` are
/// played.
fn random_game(spec: &GameSpec) -> Game {
    let size = BoardSize::new(spec.width, spec.height).unwrap();
    let longest = spec.width.max(spec.height);
    let mut rule = Rule::ALL[spec.rule];
    if rule == Rule::Renju && longest < 5 {
        rule = Rule::Freestyle;
    }
    let k = if rule == Rule::Renju {
        5
    } else {
        let max_k = longest.min(10);
        3 + spec.k_seed % (max_k - 3 + 1)
    };
    let first = if spec.white_first && rule != Rule::Renju {
        Color::White
    } else {
        Color::Black
    };
    let rules = Rules::new(size, k, rule).unwrap();
    let mut game = Game::new(rules, first).unwrap();
    let mut rng = Rng(spec.seed);
    let mut empty: Vec<Pos> = size.points().collect();
    while game.moves().len() < spec.moves && !game.is_over() && !empty.is_empty() {
        // Three times in four, a point next to the last stone if one is free.
        let near = game
            .last_move()
            .filter(|_| rng.below(4) != 0)
            .and_then(|p| {
                let around: Vec<usize> = empty
                    .iter()
                    .enumerate()
                    .filter(|(_, q)| q.x.abs_diff(p.x) <= 2 && q.y.abs_diff(p.y) <= 2)
                    .map(|(i, _)| i)
                    .collect();
                (!around.is_empty()).then(|| around[rng.below(around.len())])
            });
        let i = near.unwrap_or_else(|| rng.below(empty.len()));
        let pos = empty.swap_remove(i);
        match game.try_play(pos) {
            Ok(_) => {}
            // Forbidden for black now: leave the point out.
            Err(MoveError::Forbidden { .. }) => {}
            Err(e) => panic!("random move {pos:?} refused: {e}"),
        }
    }
    game
}

/// Small edits of a valid text: delete, insert, replace, cut, repeat.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
    Truncate(usize),
    RepeatLine(usize),
    SwapLines(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let ch = prop_oneof![
        4 => prop::sample::select(vec![
            '0', '1', '5', '9', ',', '-', 'x', '\n', '\r', ' ', '=', '.', 'A', '_', 'é'
        ]),
        1 => any::<char>(),
    ];
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), ch.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), ch).prop_map(|(i, c)| Edit::Replace(i, c)),
        any::<usize>().prop_map(Edit::Truncate),
        any::<usize>().prop_map(Edit::RepeatLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
        match *e {
            Edit::Delete(i) => {
                if !chars.is_empty() {
                    chars.remove(at(i, chars.len()));
                }
            }
            Edit::Insert(i, c) => chars.insert(at(i, chars.len() + 1), c),
            Edit::Replace(i, c) => {
                if !chars.is_empty() {
                    let i = at(i, chars.len());
                    chars[i] = c;
                }
            }
            Edit::Truncate(i) => chars.truncate(at(i, chars.len() + 1)),
            Edit::RepeatLine(i) | Edit::SwapLines(i, _) => {
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.split('\n').collect();
                let a = at(i, lines.len());
                if let Edit::SwapLines(_, j) = *e {
                    let b = at(j, lines.len());
                    lines.swap(a, b);
                } else {
                    lines.insert(a, lines[a]);
                }
                chars = lines.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

/// Whatever a PSQ reader accepts must write out and read back the same,
/// and replaying it must not panic.
fn check_psq_text(text: &str) {
    if let Ok(record) = read_psq(text) {
        assert_eq!(read_psq(&write_psq(&record)).as_ref(), Ok(&record));
        let _ = record.to_game();
    }
}

/// The same for position codes.
fn check_code_text(text: &str) {
    if let Ok(code) = PositionCode::decode(text) {
        assert_eq!(PositionCode::decode(&code.encode()).as_ref(), Ok(&code));
        let _ = code.to_game();
    }
}

/// A renju opening (`soosorvN` or `taraguchi10`) played at random by two
/// people for `steps` actions on a 15×15 board: each choice among those
/// offered, each stone, offer or pick at a random point the table takes.
fn random_opening_table(opening: Opening, seed: u64, steps: usize) -> Table {
    let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
    let mut t = Table::new(rules, Color::Black, opening, [Sitter::Human, Sitter::Human]).unwrap();
    let mut rng = Rng(seed);
    for _ in 0..steps {
        match t.turn() {
            Turn::Over => break,
            Turn::Choose { options, .. } => {
                let c = options[rng.below(options.len())];
                t.choose(Actor::Person, c).unwrap();
            }
            Turn::Pick { .. } => {
                let offers = t.offers().to_vec();
                t.play(Actor::Person, offers[rng.below(offers.len())])
                    .unwrap();
            }
            Turn::Move { .. } | Turn::Offer { .. } => {
                // Some point is always taken; give up on this step if the
                // random ones all miss.
                for _ in 0..400 {
                    let pos = Pos::new(rng.below(15) as u8, rng.below(15) as u8);
                    if t.play(Actor::Person, pos).is_ok() {
                        break;
                    }
                }
            }
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn psq_round_trips_renju_openings(n in 0u8..=16, seed in any::<u64>(), steps in 0usize..40) {
        let opening = if n == 0 { Opening::Taraguchi10 } else { Opening::soosorv(n).unwrap() };
        let t = random_opening_table(opening, seed, steps);
        let record = PsqRecord::from_table(&t).unwrap();
        let text = write_psq(&record);
        let read = read_psq(&text).unwrap();
        prop_assert_eq!(&read, &record);
        let back = read.to_table([Sitter::Human, Sitter::Human]).unwrap();
        prop_assert_eq!(back.game().moves(), t.game().moves());
        prop_assert_eq!(back.choices(), t.choices());
        prop_assert_eq!(back.offers(), t.offers());
        prop_assert_eq!(back.turn(), t.turn());
        prop_assert_eq!(back.opening_stones(), t.opening_stones());
    }

    #[test]
    fn psq_round_trips_random_games(spec in game_spec(), times in prop::collection::vec(any::<u32>(), 0..200)) {
        let game = random_game(&spec);
        let mut record = PsqRecord::from_game(&game).unwrap();
        prop_assert_eq!(&record.times_ms, &vec![0; game.moves().len()]);
        for (t, &random) in record.times_ms.iter_mut().zip(&times) {
            *t = random;
        }
        let text = write_psq(&record);
        let read = read_psq(&text).unwrap();
        prop_assert_eq!(&read, &record);
        prop_assert_eq!(read_psq(&text.replace('\n', "\r\n")).unwrap(), record);
        prop_assert_eq!(read.to_game().unwrap(), game);
    }

    #[test]
    fn code_round_trips_random_games(spec in game_spec(), opening in prop::sample::select(vec!["free", "swap1", "swap2"])) {
        let game = random_game(&spec);
        let code = PositionCode::from_game(&game, opening).unwrap();
        let text = code.encode();
        prop_assert!(
            text.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
            "{} needs percent-encoding", text
        );
        let read = PositionCode::decode(&text).unwrap();
        prop_assert_eq!(&read, &code);
        prop_assert_eq!(read.to_game().unwrap(), game);
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check_psq_text(&text);
        check_code_text(&text);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(record) = read_psq_bytes(&bytes) {
            let _ = record.to_game();
        }
        if let Ok(text) = std::str::from_utf8(&bytes) {
            check_code_text(text);
        }
    }

    #[test]
    fn psq_like_text_never_panics(
        header in "Piskvorky [0-9]{1,3}x[0-9]{1,3}, 11:11, 0",
        body in "([0-9]{1,3},[0-9]{1,3}(,[0-9]{0,11})?\r?\n){0,30}(-1\n)?(caro( (k|rule|first)=[a-z0-9-]{0,14}){0,4}\n)?",
    ) {
        check_psq_text(&format!("{header}\n{body}"));
    }

    #[test]
    fn code_like_text_never_panics(
        text in "v[0-9]\\.[0-9]{1,3}x[0-9]{1,3}\\.[0-9]{1,3}\\.(freestyle|standard|renju|caro|caro-standard|x)\\.(free|swap1|swap2|y)\\.[bwz]\\.[A-Za-z0-9_.-]{0,40}",
    ) {
        check_code_text(&text);
    }

    #[test]
    fn mutated_psq_files_never_panic(spec in game_spec(), edits in prop::collection::vec(edit(), 1..8)) {
        let text = write_psq(&PsqRecord::from_game(&random_game(&spec)).unwrap());
        check_psq_text(&apply(&text, &edits));
    }

    #[test]
    fn mutated_codes_never_panic(spec in game_spec(), edits in prop::collection::vec(edit(), 1..8)) {
        let text = PositionCode::from_game(&random_game(&spec), "swap2").unwrap().encode();
        check_code_text(&apply(&text, &edits));
    }
}

#[test]
fn piskvork_file_reads_to_exact_moves() {
    let text = "Piskvorky 20x20, 11:11, 0\r\n\
                10,10,0\r\n\
                11,11,2906\r\n\
                9,11,15\r\n\
                11,9,1203\r\n\
                AlphaGomoku.zip\r\n\
                Yixin2018.zip\r\n\
                -1\r\n";
    let record = read_psq(text).unwrap();
    assert_eq!(record.size, BoardSize::square(20));
    assert_eq!(
        record.moves,
        vec![
            Pos::new(9, 9),
            Pos::new(10, 10),
            Pos::new(8, 10),
            Pos::new(10, 8)
        ]
    );
    assert_eq!(record.times_ms, vec![0, 2906, 15, 1203]);
    assert_eq!(
        (record.k, record.rule, record.first),
        (5, Rule::Freestyle, Color::Black)
    );
    let game = record.to_game().unwrap();
    assert_eq!(game.board().get(Pos::new(8, 10)), Some(Color::Black));
    assert_eq!(game.board().get(Pos::new(10, 8)), Some(Color::White));
}

#[test]
fn rectangular_20_by_30_board() {
    // 20 columns, 30 rows: x up to 20, y up to 30.
    let text = "Piskvorky 20x30, 11:11, 0\n20,30,5\n1,30\n20,1,7\n-1\ncaro k=6 rule=standard first=white\n";
    let record = read_psq(text).unwrap();
    assert_eq!(record.size, BoardSize::new(20, 30).unwrap());
    assert_eq!(
        record.moves,
        vec![Pos::new(19, 29), Pos::new(0, 29), Pos::new(19, 0)]
    );
    assert_eq!(record.times_ms, vec![5, 0, 7]);
    assert_eq!(
        (record.k, record.rule, record.first),
        (6, Rule::Standard, Color::White)
    );
    let game = record.to_game().unwrap();
    assert_eq!(game.color_of_move(0), Color::White);
    assert_eq!(game.to_move(), Color::Black);
    assert_eq!(
        write_psq(&record),
        "Piskvorky 20x30, 11:11, 0\n20,30,5\n1,30,0\n20,1,7\n-1\ncaro k=6 rule=standard first=white\n"
    );

    // Row 30 exists, column 21 does not.
    assert!(matches!(
        read_psq("Piskvorky 20x30\n21,30\n"),
        Err(PsqError::OffBoard {
            number: 1,
            x: 21,
            y: 30,
            ..
        })
    ));

    let code = PositionCode::from_game(&game, "free").unwrap();
    assert_eq!(code.encode(), "v1.20x30.6.standard.free.w.TdAdTA");
    assert_eq!(
        PositionCode::decode(&code.encode())
            .unwrap()
            .to_game()
            .unwrap(),
        game
    );
    assert!(matches!(
        PositionCode::decode("v1.20x30.6.standard.free.w.Ue"),
        Err(CodeError::OffBoard { number: 1, .. })
    ));
}

#[test]
fn illegal_moves_are_named() {
    // Renju: black's ninth move (8,8) makes two open threes at once.
    let text = "Piskvorky 15x15, 11:11, 0\n\
                6,8\n1,1\n7,8\n1,15\n8,6\n15,1\n8,7\n15,15\n8,8\n\
                -1\ncaro k=5 rule=renju first=black\n";
    let record = read_psq(text).unwrap();
    assert_eq!(record.rule, Rule::Renju);
    assert_eq!(record.moves.len(), 9);
    let err = record.to_game().unwrap_err();
    assert!(
        matches!(
            err,
            PsqError::Setup(SetupError::Move {
                number: 9,
                error: MoveError::Forbidden { .. }
            })
        ),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("move 9: "), "{err}");

    // Under freestyle the same moves are a legal game.
    let free = read_psq(&text.replace("rule=renju", "rule=freestyle")).unwrap();
    assert_eq!(free.to_game().unwrap().moves().len(), 9);

    // A move after the game has been won.
    let text = "Piskvorky 3x3, 11:11, 0\n1,1\n1,2\n2,1\n2,2\n3,1\n3,2\n-1\n";
    let err = read_psq(text).unwrap().to_game().unwrap_err();
    assert_eq!(
        err,
        PsqError::Setup(SetupError::Move {
            number: 6,
            error: MoveError::GameOver
        })
    );
    let code = PositionCode::decode("v1.3x3.3.freestyle.free.b.AAABBABBCACB").unwrap();
    assert!(matches!(
        code.to_game(),
        Err(CodeError::Setup(SetupError::Move { number: 6, .. }))
    ));
}
