//! Renju's tournament openings through the HTTP API of a real `caro
//! serve`: a Soosõrv-8 game of two people through every phase with the
//! refusals and their codes, the offers kept over a restart, and games
//! against caro:1 with the person as the tentative black and as the
//! tentative white, through to the 6th move, under Soosõrv-8 and
//! Taraguchi-10.

mod common;

use std::time::{Duration, Instant};

use common::{agent, get, post, post_raw, Server};
use serde_json::{json, Value};

fn url(server: &Server, id: i64, what: &str) -> String {
    server.url(&format!("/api/games/{id}/{what}"))
}

fn new_game(a: &ureq::Agent, server: &Server, body: Value) -> Value {
    let (status, view) = post(a, &server.url("/api/games"), &body);
    assert_eq!(status, 201, "{view}");
    view
}

fn play(a: &ureq::Agent, server: &Server, id: i64, ply: u64, x: u64, y: u64) -> (u16, Value) {
    post(
        a,
        &url(server, id, "move"),
        &json!({"ply": ply, "x": x, "y": y}),
    )
}

fn choose(a: &ureq::Agent, server: &Server, id: i64, ply: u64, choice: &str) -> (u16, Value) {
    post(
        a,
        &url(server, id, "choose"),
        &json!({"ply": ply, "choice": choice}),
    )
}

fn view(a: &ureq::Agent, server: &Server, id: i64) -> Value {
    let (status, view) = get(a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(status, 200, "{view}");
    view
}

fn ply(v: &Value) -> u64 {
    v["ply"].as_u64().expect("ply")
}

fn refused(answer: (u16, Value), status: u16, code: &str) {
    assert_eq!(answer.0, status, "{}", answer.1);
    assert_eq!(answer.1["code"], code, "{}", answer.1);
}

#[test]
fn soosorv8_between_two_people_through_every_phase() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (status, v) = post(
        &a,
        &server.url("/api/games"),
        &json!({"black": "human", "white": "human", "opening": "soosorv8"}),
    );
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"].as_str().unwrap_or_default().contains("renju"),
        "{v}"
    );
    let v = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "human", "rule": "renju", "opening": "soosorv8"}),
    );
    let id = v["id"].as_i64().unwrap();
    assert_eq!(v["opening"], "soosorv8");
    refused(play(&a, &server, id, 0, 0, 0), 409, "outside_zone");
    // h8 i8 j8: all on row 8.
    for (i, (x, y)) in [(7, 7), (8, 7), (9, 7)].into_iter().enumerate() {
        assert_eq!(play(&a, &server, id, i as u64, x, y).0, 200);
    }
    assert_eq!(choose(&a, &server, id, 3, "take-white").0, 200);
    assert_eq!(play(&a, &server, id, 3, 3, 7).0, 200); // d8
    assert_eq!(choose(&a, &server, id, 4, "take-black").0, 200);
    let v = view(&a, &server, id);
    assert_eq!(v["turn"]["kind"], "choose");
    assert_eq!(v["turn"]["options"].as_array().unwrap().len(), 8);
    refused(choose(&a, &server, id, 4, "offers-9"), 409, "no_choice");
    assert_eq!(choose(&a, &server, id, 4, "offers-2").0, 200);
    assert_eq!(choose(&a, &server, id, 4, "take-white").0, 200);
    let v = view(&a, &server, id);
    assert_eq!(
        v["turn"],
        json!({"kind": "offer", "seat": "first", "made": 0, "total": 2})
    );
    assert_eq!(play(&a, &server, id, 4, 8, 6).0, 200); // i9
    refused(play(&a, &server, id, 4, 8, 8), 409, "bad_offer"); // i7 mirrors it
    assert_eq!(play(&a, &server, id, 4, 6, 8).0, 200); // g7
    let v = view(&a, &server, id);
    assert_eq!(v["turn"], json!({"kind": "pick", "seat": "second"}));
    assert_eq!(v["fifth_offers"], json!([[8, 6], [6, 8]]));
    refused(play(&a, &server, id, 4, 0, 0), 409, "not_an_offer");

    // The offers survive a restart.
    drop(server);
    let server = Server::start(dir.path());
    let v = view(&a, &server, id);
    assert_eq!(v["fifth_offers"], json!([[8, 6], [6, 8]]));
    assert_eq!(v["turn"]["kind"], "pick");
    // Undo takes back the last offer.
    assert_eq!(
        post(&a, &url(&server, id, "undo"), &json!({"ply": 4})).0,
        200
    );
    let v = view(&a, &server, id);
    assert_eq!(v["fifth_offers"], json!([[8, 6]]));
    assert_eq!(play(&a, &server, id, 4, 6, 8).0, 200);
    let (status, v) = play(&a, &server, id, 4, 8, 6);
    assert_eq!(status, 200, "{v}");
    assert_eq!(ply(&v), 5);
    assert_eq!(
        v["turn"],
        json!({"kind": "move", "seat": "second", "color": "white"})
    );
    assert_eq!(v["seats"][1]["color"], "white");

    // Exported as PSQ and imported: the opening, its choices and the
    // offers come back.
    let mut res = a.get(&url(&server, id, "psq")).call().unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let psq = res.body_mut().read_to_string().unwrap();
    assert!(
        psq.contains(
            "opening=soosorv8 choices=take-white,take-black,offers-2,take-white offers=i9,g7\n"
        ),
        "{psq}"
    );
    let (status, imported) = post_raw(&a, &server.url("/api/import"), "text/plain", &psq);
    assert_eq!(status, 201, "{imported}");
    for key in ["opening", "fifth_offers", "turn", "moves", "seats", "ply"] {
        assert_eq!(imported[key], v[key], "{key}: {imported}");
    }
    // A bad opening line is refused with the line named.
    let bad = psq.replace("offers=i9,g7", "offers=i9,zz");
    let (status, err) = post_raw(&a, &server.url("/api/import"), "text/plain", &bad);
    assert_eq!(status, 400, "{err}");
    assert!(
        err["error"].as_str().unwrap().contains("bad opening line"),
        "{err}"
    );
}

#[test]
fn a_position_code_keeps_the_opening_decisions_and_offers() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let v = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "human", "rule": "renju", "opening": "soosorv8"}),
    );
    let id = v["id"].as_i64().unwrap();
    for (i, (x, y)) in [(7, 7), (8, 7), (9, 7)].into_iter().enumerate() {
        assert_eq!(play(&a, &server, id, i as u64, x, y).0, 200);
    }
    assert_eq!(choose(&a, &server, id, 3, "take-black").0, 200);
    assert_eq!(play(&a, &server, id, 3, 3, 7).0, 200); // d8
    assert_eq!(choose(&a, &server, id, 4, "take-black").0, 200);
    assert_eq!(choose(&a, &server, id, 4, "offers-3").0, 200);
    assert_eq!(choose(&a, &server, id, 4, "take-white").0, 200);
    assert_eq!(play(&a, &server, id, 4, 8, 6).0, 200); // i9
    let v = view(&a, &server, id);
    let code = v["code"].as_str().expect("a code").to_string();
    assert_eq!(code, "v1.15x15.5.renju.soosorv8-bbDw-IG.b.HHIHJHDH");

    // Opened as a new game, the code stands where the game stood: the
    // swaps made, three 5th moves declared, one offered, two to go.
    let opened = new_game(&a, &server, json!({"code": code}));
    for key in [
        "opening",
        "fifth_offers",
        "turn",
        "moves",
        "seats",
        "ply",
        "code",
    ] {
        assert_eq!(opened[key], v[key], "{key}: {opened}");
    }
    assert_eq!(
        opened["turn"],
        json!({"kind": "offer", "seat": "second", "made": 1, "total": 3})
    );
    let id2 = opened["id"].as_i64().unwrap();
    refused(play(&a, &server, id2, 4, 8, 8), 409, "bad_offer"); // i7 mirrors i9
    assert_eq!(play(&a, &server, id2, 4, 6, 8).0, 200); // g7

    // A code whose decisions the opening does not take is refused.
    let (status, err) = post(
        &a,
        &server.url("/api/games"),
        &json!({"code": "v1.15x15.5.renju.soosorv8-C.b.HH"}),
    );
    assert_eq!(status, 400, "{err}");
    assert!(
        err["error"].as_str().unwrap().contains("does not replay"),
        "{err}"
    );
}

/// The person acts whenever it is their turn, whatever the phase: the
/// first option, the first point the opening accepts, the first offer.
fn against_caro(person_opens: bool, opening: &str) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (black, white, person) = if person_opens {
        ("human", "caro:1", "first")
    } else {
        ("caro:1", "human", "second")
    };
    let v = new_game(
        &a,
        &server,
        json!({"black": black, "white": white, "rule": "renju", "opening": opening, "time_ms": 100}),
    );
    let id = v["id"].as_i64().unwrap();
    let start = Instant::now();
    let mut kinds = std::collections::BTreeSet::new();
    loop {
        assert!(start.elapsed() < Duration::from_secs(120), "stuck");
        let v = view(&a, &server, id);
        if ply(&v) >= 6 {
            break;
        }
        if v["turn"]["seat"] != person {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let kind = v["turn"]["kind"].as_str().unwrap().to_string();
        kinds.insert(kind.clone());
        let n = ply(&v);
        match kind.as_str() {
            "choose" => {
                let first = v["turn"]["options"][0].as_str().unwrap().to_string();
                assert_eq!(choose(&a, &server, id, n, &first).0, 200);
            }
            "pick" => {
                let p = &v["fifth_offers"][0];
                let (x, y) = (p[0].as_u64().unwrap(), p[1].as_u64().unwrap());
                assert_eq!(play(&a, &server, id, n, x, y).0, 200);
            }
            _ => {
                // A stone or an offer: the first point taken, spiralling
                // out from the centre.
                let mut done = false;
                'search: for r in 0..8u64 {
                    for x in 7 - r..=7 + r {
                        for y in 7 - r..=7 + r {
                            if play(&a, &server, id, n, x, y).0 == 200 {
                                done = true;
                                break 'search;
                            }
                        }
                    }
                }
                assert!(done, "no point taken at {v}");
            }
        }
    }
    let v = view(&a, &server, id);
    if opening == "soosorv8" {
        assert!(
            v["fifth_offers"].as_array().is_some_and(|o| !o.is_empty()),
            "{v}"
        );
    }
    assert!(v["seats"][0]["color"].is_string(), "{v}");
    assert!(!kinds.is_empty());
}

#[test]
fn soosorv8_against_the_computer_with_the_person_as_tentative_black() {
    against_caro(true, "soosorv8");
}

#[test]
fn soosorv8_against_the_computer_with_the_person_as_tentative_white() {
    against_caro(false, "soosorv8");
}

#[test]
fn taraguchi10_against_the_computer_as_either_side() {
    against_caro(true, "taraguchi10");
    against_caro(false, "taraguchi10");
}
