//! Renju's tournament openings at a table: every phase, the errors that
//! refuse an illegal step, undo through the phases, and replay from a
//! record (moves, choices and offers).

use caro_core::code::PositionCode;
use caro_core::notation::parse_pos;
use caro_core::opening::{Choice, Opening, Seat, SOOSORV8};
use caro_core::table::{Actor, Sitter, Table, TableError, Turn};
use caro_core::{BoardSize, Color, Pos, Rule, Rules};

fn renju() -> Rules {
    Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap()
}

fn p(text: &str) -> Pos {
    parse_pos(text, BoardSize::square(15)).unwrap()
}

fn people(opening: Opening) -> Table {
    Table::new(
        renju(),
        Color::Black,
        opening,
        [Sitter::Human, Sitter::Human],
    )
    .unwrap()
}

/// A Soosõrv-8 game of two people up to the pick: h8 i8 j8, white swaps,
/// a4, black stays, 2 offers, white stays, offers h10 and g9.
fn soosorv_to_the_pick() -> Table {
    let mut t = people(SOOSORV8);
    for pos in ["h8", "i8", "j8"] {
        t.play(Actor::Person, p(pos)).unwrap();
    }
    t.choose(Actor::Person, Choice::TakeBlack).unwrap();
    t.play(Actor::Person, p("a4")).unwrap();
    t.choose(Actor::Person, Choice::TakeBlack).unwrap();
    t.choose(Actor::Person, Choice::Offers(2)).unwrap();
    t.choose(Actor::Person, Choice::TakeWhite).unwrap();
    t.play(Actor::Person, p("h10")).unwrap();
    t.play(Actor::Person, p("g9")).unwrap();
    t
}

#[test]
fn soosorv8_through_every_phase_at_a_table() {
    let mut t = soosorv_to_the_pick();
    assert_eq!(t.turn(), Turn::Pick { seat: Seat::First });
    assert_eq!(t.seat_of(Color::Black), Seat::Second);
    assert_eq!(t.offers(), &[p("h10"), p("g9")]);
    let e = t.play(Actor::Person, p("a1")).unwrap_err();
    assert_eq!(e.code(), "not_an_offer");
    t.play(Actor::Person, p("g9")).unwrap();
    assert!(t.colors_decided());
    assert_eq!(
        t.turn(),
        Turn::Move {
            seat: Seat::First,
            color: Color::White
        }
    );
    assert_eq!(t.opening_stones(), 5);
    assert_eq!(
        t.choices(),
        &[
            Choice::TakeBlack,
            Choice::TakeBlack,
            Choice::Offers(2),
            Choice::TakeWhite
        ]
    );
}

#[test]
fn illegal_steps_are_refused_with_clear_errors() {
    let mut t = people(SOOSORV8);
    let e = t.play(Actor::Person, p("a1")).unwrap_err();
    assert_eq!(e.code(), "outside_zone");
    assert_eq!(
        e.to_string(),
        "a1 is outside the central 1×1 square this opening stone must go in: the centre, h8"
    );
    t.play(Actor::Person, p("h8")).unwrap();
    let e = t.play(Actor::Person, p("j8")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "j8 is outside the central 3×3 square this opening stone must go in"
    );
    t.play(Actor::Person, p("i8")).unwrap();
    assert_eq!(
        t.play(Actor::Person, p("k8")).unwrap_err().code(),
        "outside_zone"
    );
    t.play(Actor::Person, p("j8")).unwrap();
    assert_eq!(
        t.play(Actor::Person, p("a1")).unwrap_err().code(),
        "must_choose"
    );
    assert_eq!(
        t.choose(Actor::Seat(Seat::First), Choice::TakeBlack)
            .unwrap_err()
            .code(),
        "not_your_choice"
    );
    assert_eq!(
        t.choose(Actor::Person, Choice::PlaceTwo)
            .unwrap_err()
            .code(),
        "no_choice"
    );

    // Symmetric offers: on h8 i8 j8 + h4 (all on row 8) the position is
    // symmetric about row 8.
    let mut t = people(SOOSORV8);
    for pos in ["h8", "i8", "j8"] {
        t.play(Actor::Person, p(pos)).unwrap();
    }
    t.choose(Actor::Person, Choice::TakeWhite).unwrap();
    t.play(Actor::Person, p("d8")).unwrap();
    t.choose(Actor::Person, Choice::TakeBlack).unwrap();
    t.choose(Actor::Person, Choice::Offers(3)).unwrap();
    t.choose(Actor::Person, Choice::TakeWhite).unwrap();
    t.play(Actor::Person, p("i9")).unwrap();
    let e = t.play(Actor::Person, p("i7")).unwrap_err();
    assert_eq!(e.code(), "bad_offer");
    assert_eq!(
        e.to_string(),
        "i7 is symmetric to the offered i9 on this position: offer points that are not"
    );
    assert_eq!(
        t.play(Actor::Person, p("h8")).unwrap_err().code(),
        "occupied"
    );
}

#[test]
fn undo_goes_back_through_the_phases() {
    let mut t = soosorv_to_the_pick();
    t.play(Actor::Person, p("g9")).unwrap();
    t.play(Actor::Person, p("a15")).unwrap();
    // The 6th move, the pick, the two offers, the swap decision, ...
    assert_eq!(t.undo(), Ok(1));
    assert_eq!(t.game().moves().len(), 5);
    assert_eq!(t.undo(), Ok(1));
    assert_eq!(t.turn(), Turn::Pick { seat: Seat::First });
    assert_eq!(t.game().moves().len(), 4);
    assert_eq!(t.undo(), Ok(1));
    assert_eq!(
        t.turn(),
        Turn::Offer {
            seat: Seat::Second,
            made: 1,
            total: 2
        }
    );
    assert_eq!(t.offers(), &[p("h10")]);
    for _ in 0..4 {
        t.undo().unwrap();
    }
    // Back before black's swap decision after the 4th stone.
    assert!(matches!(
        t.turn(),
        Turn::Choose {
            seat: Seat::Second,
            ..
        }
    ));
    assert_eq!(t.choices(), &[Choice::TakeBlack]);
    for _ in 0..5 {
        t.undo().unwrap();
    }
    assert_eq!(t.game().moves().len(), 0);
    assert_eq!(t.undo(), Err(TableError::NothingToUndo));
    assert!(matches!(
        t.turn(),
        Turn::Move {
            seat: Seat::First,
            color: Color::Black
        }
    ));
}

#[test]
fn undo_against_a_computer_goes_to_the_persons_previous_action() {
    let mut t = Table::new(
        renju(),
        Color::Black,
        SOOSORV8,
        [Sitter::Human, Sitter::Computer("caro:3".into())],
    )
    .unwrap();
    for pos in ["h8", "i8", "j8"] {
        t.play(Actor::Person, p(pos)).unwrap();
    }
    // The computer keeps white and places the 4th stone.
    t.choose(Actor::Seat(Seat::Second), Choice::TakeWhite)
        .unwrap();
    t.play(Actor::Seat(Seat::Second), p("a4")).unwrap();
    assert!(t.person_to_act());
    // Back to the person's third stone: the computer's two actions go too.
    assert_eq!(t.undo(), Ok(3));
    assert_eq!(t.game().moves().len(), 2);
    assert!(t.person_to_act());
}

#[test]
fn replay_keeps_choices_and_offers() {
    let mut t = soosorv_to_the_pick();
    t.play(Actor::Person, p("h10")).unwrap();
    t.play(Actor::Person, p("a15")).unwrap();
    let back = Table::replay_with_offers(
        renju(),
        Color::Black,
        SOOSORV8,
        [Sitter::Human, Sitter::Human],
        t.game().moves(),
        &[],
        t.choices(),
        t.offers(),
    )
    .unwrap();
    assert_eq!(back.game().moves(), t.game().moves());
    assert_eq!(back.offers(), t.offers());
    assert_eq!(back.turn(), t.turn());
    // Without the offers the record is refused, not misread.
    assert!(Table::replay(
        renju(),
        Color::Black,
        SOOSORV8,
        [Sitter::Human, Sitter::Human],
        t.game().moves(),
        &[],
        t.choices(),
    )
    .is_err());
    // The position code keeps the decisions and offers with the opening.
    let code = PositionCode::from_table(&t).unwrap();
    let text = code.encode();
    let read = PositionCode::decode(&text).unwrap();
    let coded = read.coded_opening().unwrap();
    assert_eq!(coded.opening, SOOSORV8);
    assert_eq!(coded.choices, t.choices());
    assert_eq!(coded.offers, t.offers());
    let back = read.to_table([Sitter::Human, Sitter::Human]).unwrap();
    assert_eq!(back.game().moves(), t.game().moves());
    assert_eq!(back.turn(), t.turn());
}

#[test]
fn renju_openings_need_the_renju_rule_and_room() {
    let gomoku = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
    let e = Table::new(
        gomoku,
        Color::Black,
        SOOSORV8,
        [Sitter::Human, Sitter::Human],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad table: the soosorv8 opening is a renju opening: play it under the renju rule, not freestyle"
    );
    let small = Rules::new(BoardSize::square(7), 5, Rule::Renju).unwrap();
    assert!(Table::new(
        small,
        Color::Black,
        Opening::Taraguchi10,
        [Sitter::Human, Sitter::Human]
    )
    .is_err());
    assert!(Table::new(
        small,
        Color::Black,
        SOOSORV8,
        [Sitter::Human, Sitter::Human]
    )
    .is_ok());
}

#[test]
fn taraguchi10_offers_and_a_pick() {
    let mut t = people(Opening::Taraguchi10);
    t.play(Actor::Person, p("h8")).unwrap();
    t.choose(Actor::Person, Choice::TakeWhite).unwrap();
    t.play(Actor::Person, p("i9")).unwrap();
    t.choose(Actor::Person, Choice::TakeBlack).unwrap();
    t.play(Actor::Person, p("j10")).unwrap();
    t.choose(Actor::Person, Choice::TakeWhite).unwrap();
    assert_eq!(
        t.play(Actor::Person, p("l11")).unwrap_err().code(),
        "outside_zone"
    );
    t.play(Actor::Person, p("k11")).unwrap();
    t.choose(Actor::Person, Choice::TakeBlack).unwrap();
    t.choose(Actor::Person, Choice::OfferFifths).unwrap();
    let offers = ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "i1", "j1"];
    // The four stones lie on a diagonal: b1 mirrors a2 across it.
    let mut probe = t.clone();
    probe.play(Actor::Person, p("b1")).unwrap();
    assert_eq!(
        probe.play(Actor::Person, p("a2")).unwrap_err().code(),
        "bad_offer"
    );
    for pos in offers {
        t.play(Actor::Person, p(pos)).unwrap();
    }
    assert_eq!(t.turn(), Turn::Pick { seat: Seat::Second });
    t.play(Actor::Person, p("h1")).unwrap();
    assert!(t.colors_decided());
    assert_eq!(t.seat_of(Color::White), Seat::Second);
}
