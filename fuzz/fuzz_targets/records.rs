//! Records and move lists as a user or another program may hand them to
//! caro: PSQ files (Piskvork's game records), position codes (as in a caro
//! URL), move lists in board notation and Gomocup coordinates, and the
//! lines a Gomocup engine answers with. A bad one must be an error, never
//! a panic; a good PSQ record or position code must write and read back as
//! itself.
#![no_main]

use caro_core::code::PositionCode;
use caro_core::notation::{parse_gomocup, parse_move_list, parse_pos};
use caro_core::psq::{read_psq_bytes, write_psq, PsqRecord};
use caro_core::{BoardSize, Color, Game, Rule, Rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [w, h, rest @ ..] = data else {
        return;
    };
    if let Ok(record) = read_psq_bytes(rest) {
        if let Ok(game) = record.to_game() {
            let again = PsqRecord::from_game(&game).expect("a read game writes");
            let text = write_psq(&again);
            let back = read_psq_bytes(text.as_bytes()).expect("a written record reads");
            assert_eq!(back.moves, again.moves);
            assert_eq!(
                (back.size, back.k, back.rule),
                (again.size, again.k, again.rule)
            );
        }
    }
    let text = String::from_utf8_lossy(rest);
    if let Ok(code) = PositionCode::decode(&text) {
        if let Ok(game) = code.to_game() {
            let again = code.encode();
            let back = PositionCode::decode(&again).expect("an encoded code decodes");
            let replayed = back
                .to_game()
                .expect("a code that made a game makes it again");
            assert_eq!(replayed.moves(), game.moves());
        }
    }
    let _ = caro_gomocup::protocol::parse_reply(&text);
    let _ = caro_gomocup::protocol::parse_line(&text);
    let Ok(size) = BoardSize::new(3 + w % 58, 3 + h % 58) else {
        return;
    };
    let _ = parse_pos(&text, size);
    let _ = parse_gomocup(&text, size);
    if let Ok(moves) = parse_move_list(&text, size) {
        for rule in [Rule::Freestyle, Rule::Renju, Rule::Caro] {
            if let Ok(rules) = Rules::new(size, 5.min(size.width.max(size.height)), rule) {
                let _ = Game::from_moves(rules, Color::Black, &moves);
            }
        }
    }
});
