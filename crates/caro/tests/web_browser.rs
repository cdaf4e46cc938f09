//! The web app end to end in real headless Chromium, driven through
//! ChromeDriver (tests/common/browser.rs): games started from the home
//! page's quick starts and its custom form, played by clicking the board
//! and with the keyboard, the computer answering with its engine panel,
//! undo and redo, resigning with a confirmation, renju fouls, reloads, a
//! 60×60 board zoomed with the wheel, Swap2 openings where the person
//! chooses and where the person opens, Soosõrv-8 through every phase
//! with the person as the tentative black and as the tentative white
//! against caro:1, Taraguchi-10 through every phase the same two ways
//! against caro:7, a first-to-2 match against
//! `random` with its end announced and a new match, a drawn match (in
//! English and Vietnamese) ended by its last game, a finished game that
//! undo does not reopen, a result worded for the person, two browsers playing online (presence, takeback and draw
//! declined, rematch with a spectator following), the phone layout, the
//! pages for a missing game and an unknown address, the theme, and the
//! Vietnamese text. A failing scenario leaves a screenshot in
//! `target/browser-failures/`; with `CARO_UPDATE_SCREENSHOTS=1` the run
//! saves docs/images/home.png, game.png and phone.png;
//! `CARO_BROWSER_ONLY=phone,match` runs only the scenarios whose names
//! contain one of those words.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs
//! them). Without them the test says it was skipped, unless
//! `CARO_REQUIRE_BROWSER=1`, when it fails.

mod common;

use std::error::Error;
use std::time::{Duration, Instant};

use common::browser::{
    browser_or_skip, click, click_point, clicks_at, confirm, connect, doc_screenshot, find_browser,
    in_another_browser, js, open_home, play, ply, point_center, press, select, text, until,
    until_seat, until_status, wait_game_page, wait_ply, wheel, Scenarios, TestResult, DESKTOP,
    PHONE,
};
use common::{agent, post, Server};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

/// Opens the custom form and picks the mode.
async fn custom(c: &Client, mode: &str) -> TestResult {
    js(
        c,
        "document.getElementById('custom').open = true; return true",
    )
    .await?;
    click(c, &format!("input[name=mode][value={mode}]")).await
}

/// From the home page, starts the custom form's game in this mode with
/// these choices (a `<select>` and its value, in this order).
async fn start_custom(c: &Client, base: &str, mode: &str, choices: &[(&str, &str)]) -> TestResult {
    open_home(c, base).await?;
    custom(c, mode).await?;
    for (css, value) in choices {
        select(c, css, value).await?;
    }
    click(c, "#go").await?;
    wait_game_page(c).await
}

/// The latest view the page holds.
async fn view(c: &Client) -> Result<Value, Box<dyn Error>> {
    js(c, "return window.caroView()").await
}

/// Waits for the result dialog and closes it.
async fn close_result(c: &Client) -> TestResult {
    until(
        c,
        "the result dialog",
        "return document.getElementById('result-dialog').open",
    )
    .await?;
    click(c, "#result-close").await?;
    until(
        c,
        "the dialog closed",
        "return !document.getElementById('result-dialog').open",
    )
    .await
}

/// Two people on one screen, started from the quick start: black wins
/// with five; the result dialog opens; a later click is refused in the
/// page.
async fn human_vs_human_won_by_five(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    select(c, "#quick-board", "gomoku").await?;
    click(c, "#quick-here").await?;
    wait_game_page(c).await?;
    // Computer-only controls are not shown in a game between people.
    let shown = js(c, "return ['cc-controls', 'stop', 'engine'].map(id => getComputedStyle(document.getElementById(id)).display)").await?;
    if shown != json!(["none", "none", "none"]) {
        return Err(format!("computer controls shown to two people: {shown}").into());
    }
    let title = js(c, "return document.title").await?;
    if !title
        .as_str()
        .unwrap_or("")
        .starts_with("Gomoku 15×15 · Player vs Player")
    {
        return Err(format!("the page's title is {title}").into());
    }
    for i in 0..9u8 {
        let (x, y) = if i % 2 == 0 {
            (3 + i / 2, 7)
        } else {
            (3 + i / 2, 9)
        };
        play(c, x, y).await?;
    }
    until(
        c,
        "black's win",
        "return document.getElementById('status').dataset.result === 'black'",
    )
    .await?;
    let status = text(c, "status").await?;
    if !status.contains("Black wins") {
        return Err(format!("status says {status:?}").into());
    }
    let list = js(
        c,
        "return document.querySelectorAll('#move-list button.mv').length",
    )
    .await?;
    if list != json!(9) {
        return Err(format!("the move list has {list} moves").into());
    }
    close_result(c).await?;
    // A click on a finished game is refused in the page.
    click_point(c, 0, 0).await?;
    until(
        c,
        "the game-over message",
        "return document.getElementById('message').textContent.includes('over')",
    )
    .await?;
    if ply(c).await? != 9 {
        return Err("a move was played after the end".into());
    }
    // The move list browses the game without changing it.
    click(c, "#move-list button.mv[data-ply='3']").await?;
    until(
        c,
        "move 3 shown",
        "return document.getElementById('board').dataset.ply === '3' && document.getElementById('status').textContent.startsWith('Viewing move 3')",
    )
    .await?;
    click(c, "#live").await?;
    wait_ply(c, 9).await
}

/// A double click plays once and shows no "the game has moved on".
async fn double_click_plays_once(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    click(c, "#quick-here").await?;
    wait_game_page(c).await?;
    let (x, y) = point_center(c, 7, 7).await?;
    clicks_at(c, x, y, 2).await?;
    wait_ply(c, 1).await?;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let message = text(c, "message").await?;
    if !message.is_empty() || ply(c).await? != 1 {
        return Err(format!(
            "after a double click: message {message:?}, ply {}",
            ply(c).await?
        )
        .into());
    }
    Ok(())
}

/// Keyboard play: the board takes the focus, arrows move its cursor and
/// Enter plays there.
async fn keyboard_play(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    click(c, "#quick-here").await?;
    wait_game_page(c).await?;
    js(c, "window.caroBoard.focus(); return true").await?;
    press(c, &[Key::Right.into(), Key::Right.into(), Key::Up.into()]).await?;
    let cursor = js(c, "const k = window.caroBoard.cursor; return [k.x, k.y]").await?;
    press(c, &[Key::Enter.into()]).await?;
    wait_ply(c, 1).await?;
    let first = view(c).await?["moves"][0].clone();
    if first != cursor {
        return Err(format!("Enter played {first}, the cursor was at {cursor}").into());
    }
    press(c, &[Key::Down.into(), ' ']).await?;
    wait_ply(c, 2).await?;
    let second = view(c).await?["moves"][1].clone();
    let below = json!([cursor[0], cursor[1].as_i64().unwrap_or(0) + 1]);
    if second != below {
        return Err(format!("Space played {second}, expected {below}").into());
    }
    Ok(())
}

/// Against the computer: its engine panel, `u` taking back the reply and
/// the person's move, redo, history browsing, and resigning with a
/// confirmation (Cancel keeps the game on).
async fn human_vs_computer_undo_redo_resign(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "hc",
        &[
            ("#white-player", "caro:2"),
            ("#time", "100"),
            ("#preset", "15x15"),
        ],
    )
    .await?;
    play(c, 7, 7).await?;
    wait_ply(c, 2).await?;
    until_status(c, "the person's turn", "Your move").await?;
    // The engine's panel stays after its move, in words: who played, no
    // evaluation of the game in progress, no raw statistics.
    until(
        c,
        "the engine panel",
        "const e = document.getElementById('engine');
         return !e.hidden && document.getElementById('engine-side').textContent.startsWith('caro:2 plays White')
           && document.getElementById('engine-eval').hidden && !/depth|nodes/.test(e.textContent)",
    )
    .await?;
    // `u` takes back the computer's reply and the person's move.
    c.find(Locator::Css("body")).await?.send_keys("u").await?;
    wait_ply(c, 0).await?;
    click(c, "#redo").await?;
    wait_ply(c, 2).await?;
    // Home and End browse the history without changing the game.
    c.find(Locator::Css("body"))
        .await?
        .send_keys(&Key::Home.to_string())
        .await?;
    until_status(c, "history view", "Viewing move 0").await?;
    c.find(Locator::Css("body"))
        .await?
        .send_keys(&Key::End.to_string())
        .await?;
    until_status(c, "the live game", "Your move").await?;
    play(c, 8, 8).await?;
    wait_ply(c, 4).await?;
    confirm(c, "#resign", "#confirm-no").await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    if view(c).await?["result"] != Value::Null {
        return Err("Cancel resigned the game".into());
    }
    confirm(c, "#resign", "#confirm-yes").await?;
    until(
        c,
        "white's win by resignation",
        "return document.getElementById('status').dataset.result === 'white' && document.getElementById('status').textContent.includes('resigned')",
    )
    .await?;
    close_result(c).await
}

/// Two computers: pause, step, the delay's value shown, the game to its
/// end, then Pause and Step disabled.
async fn computer_vs_computer_to_the_end(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "cc",
        &[
            ("#black-player", "minimax:4"),
            ("#white-player", "random"),
            ("#time", "100"),
            ("#preset", "3x3"),
        ],
    )
    .await?;
    let delay = text(c, "speed-value").await?;
    if !delay.ends_with(" s") {
        return Err(format!("the delay shows {delay:?}").into());
    }
    click(c, "#pause").await?;
    until_status(c, "the pause", "Paused").await?;
    let paused_at = ply(c).await?;
    click(c, "#step").await?;
    wait_ply(c, paused_at + 1).await?;
    click(c, "#pause").await?;
    until(
        c,
        "the end of the game",
        "return document.getElementById('status').dataset.result !== ''",
    )
    .await?;
    let result = js(c, "return document.getElementById('status').dataset.result").await?;
    // minimax:4 never loses at tic-tac-toe.
    if result == json!("white") {
        return Err("minimax:4 lost to random".into());
    }
    // Nobody at the screen played: the winner is named.
    let status = text(c, "status").await?;
    let expected = if result == json!("black") {
        "minimax:4 wins with 3 in a row!"
    } else {
        "Draw: the board is full."
    };
    if status != expected {
        return Err(format!("two computers' result: {status:?}").into());
    }
    let disabled = js(
        c,
        "return [document.getElementById('pause').disabled, document.getElementById('step').disabled]",
    )
    .await?;
    if disabled != json!([true, true]) {
        return Err(format!("Pause and Step after the end: disabled {disabled}").into());
    }
    Ok(())
}

async fn renju_forbidden_point_refused(c: &Client, base: &str) -> TestResult {
    let a = agent();
    let (_, view) = post(&a, &format!("{base}/api/games"), &json!({"rule": "renju"}));
    let id = view["id"].as_i64().ok_or("no id")?;
    let line = [
        (5, 7),
        (0, 0),
        (6, 7),
        (0, 2),
        (7, 5),
        (0, 4),
        (7, 6),
        (0, 6),
    ];
    for (i, &(x, y)) in line.iter().enumerate() {
        post(
            &a,
            &format!("{base}/api/games/{id}/move"),
            &json!({"ply": i, "x": x, "y": y}),
        );
    }
    c.goto(&format!("{base}/game/{id}")).await?;
    wait_ply(c, 8).await?;
    click_point(c, 7, 7).await?;
    until(
        c,
        "the foul message",
        "return document.getElementById('message').textContent.startsWith('Forbidden point')",
    )
    .await?;
    if ply(c).await? != 8 {
        return Err("the forbidden move was played".into());
    }
    Ok(())
}

async fn reload_restores_the_game(c: &Client, base: &str) -> TestResult {
    start_custom(c, base, "hh", &[("#preset", "19x19")]).await?;
    for (x, y) in [(9, 9), (10, 9), (9, 10)] {
        play(c, x, y).await?;
    }
    c.refresh().await?;
    wait_ply(c, 3).await?;
    play(c, 10, 10).await
}

/// A 60×60 board: the size check on the form, the corners played, and the
/// wheel zooming about the pointer (`data-zoom` grows), after which a
/// click still lands on the point under it.
async fn a_60_by_60_game_zoomed(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    custom(c, "hh").await?;
    select(c, "#preset", "custom").await?;
    let height = c.find(Locator::Id("height")).await?;
    height.clear().await?;
    height.send_keys("70").await?;
    click(c, "#go").await?;
    until(
        c,
        "the size message",
        "return document.getElementById('setup-error').textContent.includes('from 3 to 60')",
    )
    .await?;
    height.clear().await?;
    height.send_keys("60").await?;
    let width = c.find(Locator::Id("width")).await?;
    width.clear().await?;
    width.send_keys("60").await?;
    click(c, "#go").await?;
    wait_game_page(c).await?;
    wait_ply(c, 0).await?;
    for (x, y) in [(0, 0), (59, 59), (30, 30), (59, 0), (0, 59)] {
        play(c, x, y).await?;
    }
    let size = js(
        c,
        "const r = document.getElementById('board').getBoundingClientRect(); return [r.width, r.height]",
    )
    .await?;
    if size[0].as_f64().unwrap_or(0.0) < 600.0 {
        return Err(format!("the 60×60 board is drawn too small: {size}").into());
    }
    let (px, py) = point_center(c, 32, 32).await?;
    wheel(c, px, py, -600).await?;
    until(
        c,
        "the zoom",
        "return Number(document.getElementById('board').dataset.zoom) > 1.2",
    )
    .await?;
    let cell = js(
        c,
        "return Number(document.getElementById('board').dataset.cellPx)",
    )
    .await?;
    if cell.as_f64().unwrap_or(0.0) < 14.0 {
        return Err(format!("zoomed, a cell is {cell} px").into());
    }
    play(c, 33, 32).await?;
    let last = view(c).await?["moves"][5].clone();
    if last != json!([33, 32]) {
        return Err(format!("the click after zooming played {last}").into());
    }
    if js(c, "return !document.getElementById('reset-view').hidden").await? != json!(true) {
        return Err("no control to fit the board again".into());
    }
    click(c, "#reset-view").await?;
    until(
        c,
        "the whole board again",
        "return Number(document.getElementById('board').dataset.zoom) < 1.01",
    )
    .await
}

/// Plays toward five in a row for `me` whenever it is that colour's turn,
/// until the game ends: each move goes into the five-cell window along a
/// row with the most of `me`'s stones and none of the other side's.
async fn play_to_five(c: &Client, me: &str) -> TestResult {
    let started = Instant::now();
    loop {
        if started.elapsed() > Duration::from_secs(120) {
            return Err(format!("no five for {me} in two minutes").into());
        }
        match toward_five(c, me).await? {
            Toward::Over => return Ok(()),
            Toward::Play(x, y) => play(c, x, y).await?,
            Toward::Wait => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// What [`toward_five`] says to do.
enum Toward {
    Over,
    Play(u8, u8),
    Wait,
}

/// The next move toward five for `me`: into the five-cell window along a
/// row with the most of `me`'s stones and none of the other side's.
async fn toward_five(c: &Client, me: &str) -> Result<Toward, Box<dyn Error>> {
    let next = js(
        c,
        &format!(
            "const v = window.caroView();
             if (!v) return null;
             if (v.result) return 'over';
             if (v.to_move !== '{me}' || (v.turn && v.turn.kind === 'choose') || v.busy) return null;
             const other = v.first === 'black' ? 'white' : 'black';
             const mine = new Set(), theirs = new Set();
             v.moves.forEach(([x, y], i) => ((i % 2 === 0 ? v.first : other) === '{me}' ? mine : theirs).add(x + ',' + y));
             let best = null, bestCount = -1;
             const near = (n, c) => [...Array(n).keys()].sort((a, b) => Math.abs(a - c) - Math.abs(b - c));
             for (const y of near(v.height, (v.height - 1) / 2)) for (const x0 of near(v.width - 4, (v.width - 5) / 2)) {{
               let count = 0, free = null, blocked = false;
               for (let x = x0; x < x0 + 5; x++) {{
                 const k = x + ',' + y;
                 if (theirs.has(k)) {{ blocked = true; break; }}
                 if (mine.has(k)) count++; else if (!free) free = [x, y];
               }}
               if (!blocked && free && count > bestCount) {{ best = free; bestCount = count; }}
             }}
             return best"
        ),
    )
    .await?;
    if next == json!("over") {
        return Ok(Toward::Over);
    }
    Ok(match (next[0].as_u64(), next[1].as_u64()) {
        (Some(x), Some(y)) => Toward::Play(x as u8, y as u8),
        _ => Toward::Wait,
    })
}

/// A game against caro:3 from the quick start, a few moves in, for
/// docs/images/game.png (saved with `CARO_UPDATE_SCREENSHOTS=1`).
async fn a_game_against_the_computer(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    select(c, "#quick-board", "gomoku").await?;
    click(c, "#level-3").await?;
    wait_game_page(c).await?;
    let title = js(c, "return document.title").await?;
    if !title
        .as_str()
        .unwrap_or("")
        .starts_with("Gomoku 15×15 · You vs caro:3")
    {
        return Err(format!("the page's title is {title}").into());
    }
    let started = Instant::now();
    while ply(c).await? < 10 && started.elapsed() < Duration::from_secs(60) {
        match toward_five(c, "black").await? {
            Toward::Over => break,
            Toward::Play(x, y) => play(c, x, y).await?,
            Toward::Wait => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    until(
        c,
        "the computer's reply",
        "const v = window.caroView(); return !!v.result || (v.to_move === 'black' && !v.busy)",
    )
    .await?;
    doc_screenshot(c, "game").await?;
    // The computer's evaluation is kept with the game: a reload shows it.
    c.refresh().await?;
    wait_game_page(c).await?;
    until(
        c,
        "the engine panel after a reload",
        "return !document.getElementById('engine').hidden && document.getElementById('engine-side').textContent.startsWith('caro:3 plays White')",
    )
    .await
}

/// A match, first to 2, against `random`: the person wins game 1 as black
/// and game 2 as white (colours alternate); the score above the board
/// follows; "Next game" continues the match and is gone once it is won.
async fn match_first_to_two_against_random(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "hc",
        &[
            ("#white-player", "random"),
            ("#time", "100"),
            ("#preset", "15x15"),
            ("#first-to", "2"),
        ],
    )
    .await?;
    until(
        c,
        "the match bar",
        "return !document.getElementById('match-bar').hidden && document.getElementById('match-bar').textContent.includes('first to 2')",
    )
    .await?;
    let first_game = js(c, "return location.pathname").await?;
    play_to_five(c, "black").await?;
    until(
        c,
        "the person's win in game 1",
        "return document.getElementById('status').dataset.result === 'black' && document.getElementById('match-bar').dataset.score === '1-0'",
    )
    .await?;
    // The result is worded for the person.
    let words = text(c, "status").await?;
    if words != "You win with 5 in a row!" {
        return Err(format!("the person's win in words: {words:?}").into());
    }
    until(
        c,
        "the result dialog with Next game",
        "return document.getElementById('result-dialog').open && !document.getElementById('result-next').hidden",
    )
    .await?;
    // The dialog's score counts the game just ended.
    let line = text(c, "result-match").await?;
    if !line.contains("You 1 – 0 random") {
        return Err(format!("the result dialog's score after game 1: {line:?}").into());
    }
    click(c, "#result-next").await?;
    until(
        c,
        "game 2",
        &format!(
            "return location.pathname !== {first_game} && !!window.caroView() && window.caroView().match && window.caroView().match.game === 2"
        ),
    )
    .await?;
    let seats = js(c, "const v = window.caroView(); return [v.black, v.white]").await?;
    if seats != json!(["random", "human"]) {
        return Err(format!("game 2's seats: {seats}").into());
    }
    play_to_five(c, "white").await?;
    until(
        c,
        "the match won",
        "return document.getElementById('match-bar').dataset.over === '1' && document.getElementById('match-bar').dataset.score === '2-0'",
    )
    .await?;
    until(
        c,
        "the final result dialog",
        "return document.getElementById('result-dialog').open && document.getElementById('result-next').hidden",
    )
    .await?;
    // The end of the match: its result, each game's, and a new match.
    let end = js(
        c,
        "return [document.getElementById('result-title').textContent, document.getElementById('result-match').textContent,
                 [...document.querySelectorAll('#result-games li')].map(li => li.textContent),
                 document.getElementById('result-new-match').hidden, document.getElementById('result-rematch').hidden,
                 document.getElementById('match-bar').textContent]",
    )
    .await?;
    let end = end.as_array().ok_or("a list")?.clone();
    let expected = json!([
        "Match over",
        "You win the match 2–0",
        ["Game 1: You won", "Game 2: You won"],
        false,
        true,
    ]);
    if end[..5] != expected.as_array().unwrap()[..]
        || !end[5]
            .as_str()
            .unwrap_or("")
            .starts_with("You win the match 2–0")
    {
        return Err(format!("the end of the match: {end:?}").into());
    }
    close_result(c).await?;
    if js(c, "return document.getElementById('next-game').hidden").await? != json!(true) {
        return Err("Next game offered after the match was won".into());
    }
    // New match: the same players, first to 2, from game 1.
    click(c, "#new-match").await?;
    until(
        c,
        "a new match",
        "const v = window.caroView(); return !!v && !!v.match && v.match.game === 1 && v.moves.length === 0
           && v.black === 'human' && v.white === 'random' && v.match.first_to === 2
           && document.getElementById('match-bar').dataset.score === '0-0'",
    )
    .await
}

/// Plays `moves` (x, y) in game `id` through the API, from ply 0.
fn api_moves(base: &str, id: i64, moves: &[(u8, u8)]) -> TestResult {
    let a = agent();
    for (ply, (x, y)) in moves.iter().enumerate() {
        let (status, answer) = post(
            &a,
            &format!("{base}/api/games/{id}/move"),
            &json!({"ply": ply, "x": x, "y": y}),
        );
        if status != 200 {
            return Err(format!("move {ply} of game {id}: {status} {answer}").into());
        }
    }
    Ok(())
}

/// A first-to-2 match between two people on tic-tac-toe: game 1 won by
/// A, game 2 drawn (both played through the API), game 3 won by B in the
/// page: 1–1 with a draw after 3 games, the most a first-to-2 match
/// lasts, so the match is over and drawn. The end of the match says so
/// (`lang`: `en` or `vi`), lists the games and offers a new match.
async fn drawn_match(c: &Client, base: &str, lang: &str) -> TestResult {
    let a = agent();
    let (status, g1) = post(
        &a,
        &format!("{base}/api/games"),
        &json!({"black": "human", "white": "human", "width": 3, "height": 3, "k": 3, "first_to": 2}),
    );
    if status != 201 {
        return Err(format!("a new match: {status} {g1}").into());
    }
    let id1 = g1["id"].as_i64().ok_or("an id")?;
    // Game 1: black (A) wins along the top row.
    api_moves(base, id1, &[(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])?;
    let (_, g2) = post(&a, &format!("{base}/api/games/{id1}/next"), &json!({}));
    let id2 = g2["id"].as_i64().ok_or("game 2")?;
    // Game 2: a full board, no line.
    api_moves(base, id2, &common::DRAWN_TICTACTOE)?;
    let (_, g3) = post(&a, &format!("{base}/api/games/{id2}/next"), &json!({}));
    let id3 = g3["id"].as_i64().ok_or("game 3")?;
    // Game 3: A is black again; white (B) is one move from the middle row.
    api_moves(base, id3, &[(0, 0), (0, 1), (2, 2), (1, 1), (0, 2)])?;
    c.goto(&format!("{base}/game/{id3}")).await?;
    wait_game_page(c).await?;
    select(c, "#lang", lang).await?;
    wait_ply(c, 5).await?;
    play(c, 2, 1).await?;
    until(
        c,
        "the end of the match",
        "return document.getElementById('result-dialog').open && document.getElementById('match-bar').dataset.over === '1'",
    )
    .await?;
    let end = js(
        c,
        "return [document.getElementById('result-title').textContent, document.getElementById('result-match').textContent,
                 [...document.querySelectorAll('#result-games li')].map(li => li.textContent),
                 document.getElementById('result-next').hidden, document.getElementById('result-new-match').hidden,
                 document.getElementById('match-bar').dataset.winner, document.getElementById('match-bar').textContent]",
    )
    .await?;
    let end = end.as_array().ok_or("a list")?.clone();
    let (title, headline, games) = if lang == "vi" {
        (
            "Trận đấu kết thúc",
            "Trận đấu hòa 1–1 sau 3 ván",
            json!([
                "Ván 1: Người chơi A thắng",
                "Ván 2: hòa",
                "Ván 3: Người chơi B thắng"
            ]),
        )
    } else {
        (
            "Match over",
            "Match drawn 1–1 after 3 games",
            json!([
                "Game 1: Player A won",
                "Game 2: draw",
                "Game 3: Player B won"
            ]),
        )
    };
    let expected = json!([title, headline, games, true, false, "draw"]);
    if end[..6] != expected.as_array().unwrap()[..]
        || !end[6].as_str().unwrap_or("").starts_with(headline)
    {
        return Err(format!("the end of the drawn match: {end:?}").into());
    }
    close_result(c).await?;
    select(c, "#lang", "en").await?;
    Ok(())
}

/// A drawn match announced in English.
async fn a_drawn_match_is_announced(c: &Client, base: &str) -> TestResult {
    drawn_match(c, base, "en").await
}

/// A drawn match announced in Vietnamese, and the match rule stated in the
/// custom form's help in both languages.
async fn a_drawn_match_is_announced_in_vietnamese(c: &Client, base: &str) -> TestResult {
    drawn_match(c, base, "vi").await?;
    open_home(c, base).await?;
    custom(c, "hc").await?;
    let help = text(c, "match-help").await?;
    if !help.contains("2N − 1") || !help.contains("draws included") {
        return Err(format!("the match rule in English: {help:?}").into());
    }
    select(c, "#lang", "vi").await?;
    until(
        c,
        "the match rule in Vietnamese",
        "const h = document.getElementById('match-help').textContent; return h.includes('2N − 1') && h.includes('tính cả ván hòa')",
    )
    .await?;
    select(c, "#lang", "en").await?;
    Ok(())
}

/// A finished game against the computer stays finished: tic-tac-toe
/// against caro:1 played to its end (the person takes the first empty
/// cell), then Undo is off, `u` changes nothing and the games list shows
/// the result; a resigned game keeps its result the same way.
async fn a_finished_game_is_not_reopened_by_undo(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "hc",
        &[
            ("#white-player", "caro:1"),
            ("#time", "100"),
            ("#preset", "3x3"),
        ],
    )
    .await?;
    let started = Instant::now();
    loop {
        let next = js(
            c,
            "const v = window.caroView();
             if (v.result) return 'over';
             if (v.to_move !== 'black' || v.busy) return null;
             for (let y = 0; y < 3; y++) for (let x = 0; x < 3; x++)
               if (!v.moves.some(([a, b]) => a === x && b === y)) return [x, y];
             return null",
        )
        .await?;
        if next == json!("over") {
            break;
        }
        if let (Some(x), Some(y)) = (next[0].as_u64(), next[1].as_u64()) {
            play(c, x as u8, y as u8).await?;
        } else {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err("the game never ended".into());
        }
    }
    close_result(c).await?;
    let before = view(c).await?;
    if js(c, "return document.getElementById('undo').disabled").await? != json!(true) {
        return Err("Undo is offered after the game ended".into());
    }
    c.find(Locator::Css("body")).await?.send_keys("u").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = view(c).await?;
    if after["result"] != before["result"]
        || after["moves"] != before["moves"]
        || after["result"].is_null()
    {
        return Err(format!("undo changed the finished game: {after}").into());
    }
    let id = before["id"].as_i64().ok_or("an id")?;
    c.goto(&format!("{base}/games")).await?;
    until(
        c,
        "the game listed as finished",
        &format!(
            "const tr = document.querySelector('tr[data-id=\"{id}\"]');
             return !!tr && !tr.textContent.includes('unfinished')"
        ),
    )
    .await?;
    // Resigned: the same.
    start_custom(
        c,
        base,
        "hc",
        &[
            ("#white-player", "caro:1"),
            ("#time", "100"),
            ("#preset", "15x15"),
        ],
    )
    .await?;
    play(c, 7, 7).await?;
    wait_ply(c, 2).await?;
    confirm(c, "#resign", "#confirm-yes").await?;
    until(
        c,
        "the resignation",
        "return document.getElementById('status').dataset.result === 'white'",
    )
    .await?;
    close_result(c).await?;
    if js(c, "return document.getElementById('undo').disabled").await? != json!(true) {
        return Err("Undo is offered after resigning".into());
    }
    Ok(())
}

/// A result worded for the person, in English and Vietnamese: resigning
/// against caro:1 reads "You resigned: caro:1 wins." in the status and
/// the result dialog, and Resign is gone once the game is over.
async fn a_result_is_worded_for_the_person(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "hc",
        &[
            ("#white-player", "caro:1"),
            ("#time", "100"),
            ("#preset", "15x15"),
        ],
    )
    .await?;
    play(c, 7, 7).await?;
    wait_ply(c, 2).await?;
    confirm(c, "#resign", "#confirm-yes").await?;
    until(
        c,
        "the resignation in the dialog",
        "return document.getElementById('result-dialog').open",
    )
    .await?;
    let words = js(
        c,
        "return [document.getElementById('status').textContent, document.getElementById('result-text').textContent,
                 getComputedStyle(document.getElementById('resign')).display]",
    )
    .await?;
    let expected = json!([
        "You resigned: caro:1 wins.",
        "You resigned: caro:1 wins.",
        "none"
    ]);
    if words != expected {
        return Err(format!("the resignation in words: {words}").into());
    }
    close_result(c).await?;
    select(c, "#lang", "vi").await?;
    until(
        c,
        "the resignation in Vietnamese",
        "return document.getElementById('status').textContent === 'Bạn chịu thua: caro:1 thắng.'",
    )
    .await?;
    select(c, "#lang", "en").await?;
    Ok(())
}

/// Swap2 against the computer: caro:1 opens with three stones, the person
/// is asked to choose, takes white and plays on.
async fn swap2_the_person_chooses(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "ch",
        &[
            ("#black-player", "caro:1"),
            ("#time", "100"),
            ("#preset", "15x15"),
            ("#opening", "swap2"),
        ],
    )
    .await?;
    until(
        c,
        "the choice",
        "return !document.getElementById('swap').hidden && !!document.getElementById('choose-take-white') && !!document.getElementById('choose-place-two')
           && document.getElementById('status').textContent.startsWith('Choose')",
    )
    .await?;
    if ply(c).await? != 3 {
        return Err(format!("the choice came at ply {}", ply(c).await?).into());
    }
    click(c, "#choose-take-white").await?;
    until(
        c,
        "the person to move as white",
        "return document.getElementById('swap').hidden && document.getElementById('status').textContent.startsWith('Your move (White)')",
    )
    .await?;
    let free = js(
        c,
        "const v = window.caroView(); for (let y = 0; y < 15; y++) for (let x = 0; x < 15; x++) if (!v.moves.some(m => m[0] === x && m[1] === y)) return [x, y];",
    )
    .await?;
    play(
        c,
        free[0].as_u64().ok_or("no point")? as u8,
        free[1].as_u64().ok_or("no point")? as u8,
    )
    .await?;
    wait_ply(c, 5).await
}

/// The theme: the toggle switches it, a reload keeps it; the pages met no
/// script error and no file that did not load.
async fn dark_theme_remembered(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    let before = js(c, "return document.documentElement.dataset.theme").await?;
    click(c, "#theme-toggle").await?;
    let after = js(c, "return document.documentElement.dataset.theme").await?;
    if before == after {
        return Err(format!("the theme stayed {before}").into());
    }
    click(c, "#quick-here").await?;
    wait_game_page(c).await?;
    play(c, 7, 7).await?;
    c.refresh().await?;
    wait_ply(c, 1).await?;
    let kept = js(c, "return document.documentElement.dataset.theme").await?;
    if kept != after {
        return Err(format!("after a reload the theme is {kept}, not {after}").into());
    }
    let errors = js(c, "return window.caroErrors").await?;
    if errors != json!([]) {
        return Err(format!("the page met errors: {errors}").into());
    }
    click(c, "#theme-toggle").await?;
    Ok(())
}

/// Swap2 with the person opening: the page asks for the three stones one
/// by one, then caro:1 decides (and if it places two more, the person is
/// asked for a colour); the game goes on with the colours set.
async fn swap2_the_person_opens(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "hc",
        &[
            ("#white-player", "caro:1"),
            ("#time", "100"),
            ("#preset", "15x15"),
            ("#opening", "swap2"),
        ],
    )
    .await?;
    for (i, (x, y)) in [(7u8, 7u8), (8, 8), (6, 8)].into_iter().enumerate() {
        until(
            c,
            "the opening's instruction",
            &format!(
                "return document.getElementById('status').textContent.startsWith('Opening: place stone {} of 3')",
                i + 1
            ),
        )
        .await?;
        play(c, x, y).await?;
    }
    // caro:1 takes a colour, or places two more and leaves the choice.
    until(
        c,
        "the computer's decision",
        "const v = window.caroView(); return !!v && v.seats.some(s => s.color) || (v.turn.kind === 'choose' && !document.getElementById('swap').hidden)",
    )
    .await?;
    if js(c, "return !document.getElementById('swap').hidden").await? == json!(true) {
        click(c, "#choose-take-black").await?;
    }
    until(
        c,
        "the colours set",
        "const v = window.caroView(); return v.seats.every(s => s.color) && v.turn.kind === 'move'",
    )
    .await
}

/// Plays the person's part of a Soosõrv-8 game on the page until the 6th
/// move (see [`renju_opening_through_every_phase`]); the offers are drawn.
async fn soosorv8_through_every_phase(c: &Client, mode: &str) -> TestResult {
    renju_opening_through_every_phase(c, mode, "").await?;
    let v = view(c).await?;
    if v["fifth_offers"].as_array().is_none_or(|o| o.is_empty()) {
        return Err(format!("no offers recorded: {v}").into());
    }
    Ok(())
}

/// Plays the person's part of a renju opening on the page until the 6th
/// move, whatever the computer does: a decision by the `prefer` button of
/// the opening's box when it shows one, else by its first button; a stone
/// or an offer by clicking points out from the centre until one is taken,
/// the pick by clicking the first marked point. Checks the page words
/// each phase and that the colours end up set.
async fn renju_opening_through_every_phase(c: &Client, mode: &str, prefer: &str) -> TestResult {
    let person = if mode == "hc" { 0 } else { 1 };
    let started = Instant::now();
    let mut phases = std::collections::BTreeSet::new();
    loop {
        if started.elapsed() > Duration::from_secs(120) {
            return Err(format!("the opening did not end; phases seen: {phases:?}").into());
        }
        let v = view(c).await?;
        if v["ply"].as_u64().unwrap_or(0) >= 6 {
            break;
        }
        let seat = v["turn"]["seat"].as_str().unwrap_or("");
        if seat != ["first", "second"][person] {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let kind = v["turn"]["kind"].as_str().unwrap_or("").to_string();
        let status = text(c, "status").await?;
        let expected = match kind.as_str() {
            "choose" => "",
            "offer" => "Offer a 5th move: click a point",
            "pick" => "Pick black's 5th move",
            _ if v["seats"][0]["color"].is_null() => "Opening: place stone",
            _ => "",
        };
        if !status.starts_with(expected) {
            return Err(format!("{kind}: the status says {status:?}").into());
        }
        phases.insert(kind.clone());
        let before = js(
            c,
            "return JSON.stringify([window.caroView().version, window.caroView().turn])",
        )
        .await?;
        let changed = format!(
            "return JSON.stringify([window.caroView().version, window.caroView().turn]) !== {}",
            serde_json::to_string(&before)?
        );
        match kind.as_str() {
            "choose" => {
                until(
                    c,
                    "the opening's choices",
                    "return !document.getElementById('swap').hidden",
                )
                .await?;
                let preferred = !prefer.is_empty()
                    && js(c, &format!("return !!document.querySelector({prefer:?})")).await?
                        == json!(true);
                if preferred {
                    click(c, prefer).await?;
                } else {
                    click(c, "#swap-choices button").await?;
                }
                until(c, "the choice taken", &changed).await?;
            }
            "pick" => {
                let marks = js(c, "return window.caroView().fifth_offers.length").await?;
                if marks.as_u64().unwrap_or(0) == 0 {
                    return Err("no offers to pick from".into());
                }
                let p = &v["fifth_offers"][0];
                let (x, y) = (
                    p[0].as_u64().unwrap_or(0) as u8,
                    p[1].as_u64().unwrap_or(0) as u8,
                );
                click_point(c, x, y).await?;
                until(c, "the pick", &changed).await?;
            }
            _ => {
                let mut taken = false;
                'points: for r in 0..5u8 {
                    for y in 7 - r..=7 + r {
                        for x in 7 - r..=7 + r {
                            let empty = !v["moves"]
                                .as_array()
                                .is_some_and(|m| m.contains(&json!([x, y])))
                                && !v["fifth_offers"]
                                    .as_array()
                                    .is_some_and(|m| m.contains(&json!([x, y])));
                            if !empty {
                                continue;
                            }
                            click_point(c, x, y).await?;
                            tokio::time::sleep(Duration::from_millis(150)).await;
                            if js(c, &changed).await? == json!(true) {
                                taken = true;
                                break 'points;
                            }
                        }
                    }
                }
                if !taken {
                    return Err(format!("no point taken for {kind}").into());
                }
            }
        }
    }
    let v = view(c).await?;
    if !v["seats"][0]["color"].is_string() {
        return Err("the colours are not set".into());
    }
    eprintln!("the person's phases: {phases:?}");
    Ok(())
}

/// Soosõrv-8 with the person as the tentative black against caro:1.
async fn soosorv8_the_person_opens(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "hc",
        &[
            ("#white-player", "caro:1"),
            ("#time", "100"),
            ("#preset", "15x15"),
            ("#rule", "renju"),
            ("#opening", "soosorv8"),
        ],
    )
    .await?;
    until_status(
        c,
        "the first stone's instruction",
        "Opening: place stone 1 (Black) at the centre",
    )
    .await?;
    soosorv8_through_every_phase(c, "hc").await
}

/// Soosõrv-8 with caro:1 opening and the person as the tentative white.
async fn soosorv8_the_person_is_tentative_white(c: &Client, base: &str) -> TestResult {
    start_custom(
        c,
        base,
        "ch",
        &[
            ("#black-player", "caro:1"),
            ("#time", "100"),
            ("#preset", "15x15"),
            ("#rule", "renju"),
            ("#opening", "soosorv8"),
        ],
    )
    .await?;
    soosorv8_through_every_phase(c, "ch").await
}

/// Plays Taraguchi-10 against caro:7 on the page with the person in
/// `mode`'s seat through every phase to the 6th move: the four stones in
/// their central squares with a swap after each, black's branch (the
/// person, holding black, offers ten 5th moves), the offers or the 5th
/// stone and its swap, the pick, and the 6th move. Checks the phases the
/// game went through.
async fn taraguchi10_against_caro7(c: &Client, base: &str, mode: &str) -> TestResult {
    let computer = if mode == "hc" {
        "#white-player"
    } else {
        "#black-player"
    };
    start_custom(
        c,
        base,
        mode,
        &[
            (computer, "caro:7"),
            ("#time", "100"),
            ("#preset", "15x15"),
            ("#rule", "renju"),
            ("#opening", "taraguchi10"),
        ],
    )
    .await?;
    if mode == "hc" {
        until_status(
            c,
            "the first stone's instruction",
            "Opening: place stone 1 (Black) at the centre",
        )
        .await?;
    }
    renju_opening_through_every_phase(c, mode, "#choose-offer-fifths").await?;
    let v = view(c).await?;
    let moves = v["moves"].as_array().cloned().unwrap_or_default();
    let point = |i: usize| -> (i64, i64) {
        let m = &moves[i];
        (
            m[0].as_i64().unwrap_or(-1) - 7,
            m[1].as_i64().unwrap_or(-1) - 7,
        )
    };
    if moves.len() < 6 {
        return Err(format!("the game stopped before the 6th move: {v}").into());
    }
    // Stone n within the central (2n-1)×(2n-1) square.
    for (i, half) in [0, 1, 2, 3].into_iter().enumerate() {
        let (dx, dy) = point(i);
        if dx.abs() > half || dy.abs() > half {
            return Err(format!("stone {} is outside its square: {v}", i + 1).into());
        }
    }
    // The code's decisions: a swap decision after each of the four
    // stones, black's branch (o offer, f place), and after a placed 5th
    // one more swap decision.
    let code = v["code"].as_str().unwrap_or_default();
    let decisions = code.split('.').nth(4).and_then(|f| f.split('-').nth(1));
    let offers = v["fifth_offers"].as_array().cloned().unwrap_or_default();
    let branch = if offers.is_empty() { "f" } else { "o" };
    let swaps_ok = |d: &str| d.chars().take(4).all(|c| c == 'b' || c == 'w');
    match decisions {
        Some(d) if d.len() == 5 && branch == "o" && d.ends_with('o') && swaps_ok(d) => {}
        Some(d) if d.len() == 6 && branch == "f" && &d[4..5] == "f" && swaps_ok(d) => {}
        _ => return Err(format!("the decisions of {code:?} are not Taraguchi-10's").into()),
    }
    eprintln!("taraguchi10 ({mode}): {code}");
    if offers.is_empty() {
        let (dx, dy) = point(4);
        if dx.abs() > 4 || dy.abs() > 4 {
            return Err(format!("the placed 5th stone is outside the 9×9: {v}").into());
        }
    } else if offers.len() != 10 || !offers.contains(&moves[4]) {
        return Err(format!("ten offers and the 5th among them expected: {v}").into());
    }
    Ok(())
}

/// Taraguchi-10 with the person as the tentative black against caro:7.
async fn taraguchi10_the_person_opens(c: &Client, base: &str) -> TestResult {
    taraguchi10_against_caro7(c, base, "hc").await
}

/// Taraguchi-10 with caro:7 opening and the person as the tentative white.
async fn taraguchi10_the_person_is_tentative_white(c: &Client, base: &str) -> TestResult {
    taraguchi10_against_caro7(c, base, "ch").await
}

/// The page's own pages for a game that does not exist and an unknown
/// address: no board, no live buttons, a way home.
async fn missing_game_and_unknown_path(c: &Client, base: &str) -> TestResult {
    c.goto(&format!("{base}/game/99999")).await?;
    until(
        c,
        "the missing game",
        "return !document.getElementById('missing-page').hidden && document.getElementById('game-page').hidden
           && document.getElementById('missing-title').textContent.includes('99999')",
    )
    .await?;
    c.goto(&format!("{base}/no/such/page")).await?;
    until(
        c,
        "the not-found page",
        "return !document.getElementById('missing-page').hidden && document.getElementById('missing-title').textContent === 'There is no such page.'",
    )
    .await
}

/// Vietnamese: the page's words, the `lang` attribute, option and
/// placeholder texts, and a server error given by its code.
async fn vietnamese_text(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    doc_screenshot(c, "home").await?;
    select(c, "#lang", "vi").await?;
    until(
        c,
        "Vietnamese",
        "return document.getElementById('go').textContent === 'Bắt đầu' && document.documentElement.lang === 'vi'
           && document.querySelector('#rule option[value=standard]').textContent.startsWith('chuẩn')
           && document.getElementById('k').placeholder === 'tự động'
           && document.getElementById('level-3').getAttribute('aria-label') === 'Chơi với máy ở cấp 3'",
    )
    .await?;
    // A bad position code: the server's refusal in Vietnamese.
    js(
        c,
        "document.getElementById('code').value = 'zzz'; return true",
    )
    .await?;
    click(c, "#code-form button[type=submit]").await?;
    until(
        c,
        "the refusal in Vietnamese",
        "return document.getElementById('quick-error').textContent === 'Máy chủ không nhận các thiết lập này.'",
    )
    .await?;
    select(c, "#lang", "en").await?;
    until(
        c,
        "English",
        "return document.getElementById('go').textContent === 'Start the game' && document.documentElement.lang === 'en'
           && document.getElementById('quick-error').textContent === 'The server refused these settings.'",
    )
    .await
}

/// The phone: the board takes at least 95% of the width, nothing scrolls
/// sideways (game page and games list), a tap plays.
async fn phone_layout(base: &str) -> TestResult {
    in_another_browser(PHONE, "phone_layout", async |c: &Client| {
        open_home(c, base).await?;
        let wide = js(
            c,
            "document.getElementById('custom').open = true;
             return document.documentElement.scrollWidth <= window.innerWidth",
        )
        .await?;
        if wide != json!(true) {
            return Err("the home page scrolls sideways".into());
        }
        js(
            c,
            "document.getElementById('custom').open = false; return true",
        )
        .await?;
        click(c, "#quick-here").await?;
        wait_game_page(c).await?;
        let fit = js(
            c,
            "const r = document.getElementById('board').getBoundingClientRect();
             return [r.width, window.innerWidth, document.documentElement.scrollWidth]",
        )
        .await?;
        let (board, viewport, scroll) = (
            fit[0].as_f64().unwrap_or(0.0),
            fit[1].as_f64().unwrap_or(1.0),
            fit[2].as_f64().unwrap_or(1e9),
        );
        if board < 0.95 * viewport || scroll > viewport {
            return Err(
                format!("phone: board {board} px of {viewport}, page {scroll} px wide").into(),
            );
        }
        for (x, y) in [(7, 7), (8, 7), (7, 8), (8, 8), (6, 6)] {
            play(c, x, y).await?;
        }
        doc_screenshot(c, "phone").await?;
        c.goto(&format!("{base}/games")).await?;
        until(
            c,
            "the games list",
            "return document.querySelectorAll('#games-table tr.game-row').length > 0",
        )
        .await?;
        let list = js(
            c,
            "return document.documentElement.scrollWidth <= window.innerWidth",
        )
        .await?;
        if list != json!(true) {
            return Err("the games list scrolls sideways on a phone".into());
        }
        // A row opens its game, saved moves and buttons to replay them.
        click(c, "#games-table tr.game-row td.result").await?;
        wait_game_page(c).await?;
        click(c, "#nav-first").await?;
        until(
            c,
            "the start of the game",
            "return document.getElementById('board').dataset.ply === '0'",
        )
        .await?;
        click(c, "#nav-next").await?;
        until(
            c,
            "move 1",
            "return document.getElementById('board').dataset.ply === '1'",
        )
        .await?;
        // A 60×60 board on a touch screen starts zoomed to cells of 24 px
        // at least; a tap still plays.
        let (_, big) = post(
            &agent(),
            &format!("{base}/api/games"),
            &json!({"width": 60, "height": 60}),
        );
        let id = big["id"].as_i64().ok_or("no id")?;
        c.goto(&format!("{base}/game/{id}")).await?;
        wait_game_page(c).await?;
        let cell = js(
            c,
            "return Number(document.getElementById('board').dataset.cellPx)",
        )
        .await?;
        if cell.as_f64().unwrap_or(0.0) < 24.0 {
            return Err(format!("60×60 on a phone: a cell is {cell} px").into());
        }
        play(c, 30, 30).await?;
        if view(c).await?["moves"][0] != json!([30, 30]) {
            return Err("the tap on the zoomed board missed its point".into());
        }
        Ok(())
    })
    .await
}

/// Play a friend online: black creates the game from the custom form
/// with a clock and sends the white link; a second browser (its own
/// profile) opens it, and the two windows play to black's win. A
/// spectator page cannot move.
async fn two_windows_play_a_friend_online(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    custom(c, "online").await?;
    select(c, "#preset", "15x15").await?;
    select(c, "#clock", "600+5").await?;
    click(c, "#go").await?;
    until(
        c,
        "the seat links",
        "return document.getElementById('link-white').value.includes('?seat=')",
    )
    .await?;
    until_seat(c, "black's seat", "You play Black.").await?;
    until(
        c,
        "the clocks",
        "const k = document.querySelector('#card-black .pclock'); return !k.hidden && k.textContent === '10:00'",
    )
    .await?;
    let white_link = js(c, "return document.getElementById('link-white').value").await?;
    let white_link = white_link.as_str().ok_or("no white link")?.to_string();
    let watch_link = js(c, "return document.getElementById('link-watch').value").await?;
    let watch_link = watch_link.as_str().ok_or("no spectator link")?.to_string();
    let game_page = watch_link.trim_end_matches("?watch").to_string();

    in_another_browser(DESKTOP, "two_windows_white", async |w: &Client| {
        w.goto(&white_link).await?;
        until_seat(w, "white's seat", "You play White.").await?;
        if w.current_url().await?.as_str().contains("seat=") {
            return Err("the seat token stayed in the address bar".into());
        }
        // Black's page says whether white is connected.
        until(
            c,
            "white connected on black's page",
            "const k = document.querySelector('#card-white .conn'); return !k.hidden && k.textContent === 'connected'",
        )
        .await?;
        for i in 0..5u8 {
            play(c, 3 + i, 7).await?;
            wait_ply(w, i64::from(i) * 2 + 1).await?;
            if i == 0 {
                // A spectator's page (no seat) sees the game but cannot move.
                w.goto(&watch_link).await?;
                until_seat(w, "the spectator's view", "You are watching.").await?;
                wait_ply(w, 1).await?;
                until(
                    c,
                    "white gone on black's page",
                    "return document.querySelector('#card-white .conn').textContent === 'not connected'",
                )
                .await?;
                click_point(w, 9, 9).await?;
                until(
                    w,
                    "the spectator refused",
                    "return document.getElementById('message').textContent.startsWith('You are watching')",
                )
                .await?;
                // White comes back to its seat (kept in this browser).
                w.goto(&game_page).await?;
                until_seat(w, "white's seat again", "You play White.").await?;
                wait_ply(w, 1).await?;
                if ply(c).await? != 1 {
                    return Err("the spectator's click was played".into());
                }
            }
            if i == 4 {
                break;
            }
            play(w, 3 + i, 9).await?;
            wait_ply(c, i64::from(i) * 2 + 2).await?;
            if i == 1 {
                // `u` online asks the opponent to take a move back; white
                // declines and the game goes on unchanged.
                c.find(Locator::Css("body")).await?.send_keys("u").await?;
                until(
                    w,
                    "the takeback request on white's page",
                    "return !document.getElementById('offer').hidden && document.getElementById('offer-text').textContent.startsWith('Your opponent asks to take back')",
                )
                .await?;
                click(w, "#offer-no").await?;
                until(
                    c,
                    "the request answered",
                    "return document.getElementById('offer').hidden",
                )
                .await?;
                if ply(c).await? != 4 {
                    return Err("a declined takeback changed the game".into());
                }
            }
            if i == 2 {
                // A draw offer can be declined.
                click(c, "#draw").await?;
                until(
                    w,
                    "the draw offer on white's page",
                    "return !document.getElementById('offer').hidden && document.getElementById('offer-text').textContent.startsWith('Your opponent offers a draw')",
                )
                .await?;
                click(w, "#offer-no").await?;
                for page in [c, w] {
                    until(
                        page,
                        "the offer declined",
                        "return document.getElementById('offer').hidden",
                    )
                    .await?;
                }
            }
        }
        for (page, who) in [(c, "black"), (w, "white")] {
            until(
                page,
                &format!("black's win on {who}'s page"),
                "return document.getElementById('status').dataset.result === 'black'",
            )
            .await?;
            close_result(page).await?;
        }
        // A rematch, asked by black and accepted by white: both pages go
        // to the new game, colours swapped, and a spectator follows.
        let browser = find_browser().ok_or("no browser")?;
        let profile = tempfile::tempdir()?;
        let (_spectator_driver, s) = connect(&browser, profile.path()).await;
        s.goto(&watch_link).await?;
        until(
            &s,
            "the spectator's view of the finished game",
            "return document.getElementById('seat-info').textContent === 'You are watching.' && document.getElementById('status').dataset.result === 'black'",
        )
        .await?;
        let old_path = js(c, "return location.pathname").await?;
        click(c, "#rematch").await?;
        until(
            w,
            "the rematch offer on white's page",
            "return !document.getElementById('offer').hidden && document.getElementById('offer-text').textContent.startsWith('Your opponent wants a rematch')",
        )
        .await?;
        click(w, "#offer-yes").await?;
        until(
            &s,
            "the spectator at the rematch",
            &format!(
                "return location.pathname !== {old_path} && document.getElementById('seat-info').textContent === 'You are watching.'"
            ),
        )
        .await?;
        let _ = s.close().await;
        for (page, seat) in [(c, "White"), (w, "Black")] {
            until(
                page,
                &format!("the rematch, {seat}'s seat"),
                &format!(
                    "return location.pathname !== {old_path} && document.getElementById('seat-info').textContent === 'You play {seat}.'"
                ),
            )
            .await?;
        }
        // Resigning online asks first too; white (black's old seat)
        // resigns the new game and both pages say so.
        confirm(c, "#resign", "#confirm-yes").await?;
        for page in [c, w] {
            until(
                page,
                "white's resignation",
                "return document.getElementById('status').dataset.result === 'black' && document.getElementById('status').textContent.includes('resigned')",
            )
            .await?;
        }
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_app_in_a_real_browser() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let started = Instant::now();
    let (_driver, client) = connect(&browser, profile.path()).await;
    eprintln!("browser session started in {:?}", started.elapsed());
    let mut scenarios = Scenarios::new(&client, &server.base);
    scenarios.run(vietnamese_text).await;
    scenarios.run(a_60_by_60_game_zoomed).await;
    scenarios.run(human_vs_human_won_by_five).await;
    scenarios.run(double_click_plays_once).await;
    scenarios.run(keyboard_play).await;
    scenarios.run(human_vs_computer_undo_redo_resign).await;
    scenarios.run(a_game_against_the_computer).await;
    scenarios.run(computer_vs_computer_to_the_end).await;
    scenarios.run(renju_forbidden_point_refused).await;
    scenarios.run(reload_restores_the_game).await;
    scenarios.run(missing_game_and_unknown_path).await;
    scenarios.run(dark_theme_remembered).await;
    scenarios.run(match_first_to_two_against_random).await;
    scenarios.run(a_drawn_match_is_announced).await;
    scenarios
        .run(a_drawn_match_is_announced_in_vietnamese)
        .await;
    scenarios.run(a_finished_game_is_not_reopened_by_undo).await;
    scenarios.run(a_result_is_worded_for_the_person).await;
    scenarios.run(swap2_the_person_chooses).await;
    scenarios.run(swap2_the_person_opens).await;
    scenarios.run(soosorv8_the_person_opens).await;
    scenarios.run(soosorv8_the_person_is_tentative_white).await;
    scenarios.run(taraguchi10_the_person_opens).await;
    scenarios
        .run(taraguchi10_the_person_is_tentative_white)
        .await;
    scenarios.run(two_windows_play_a_friend_online).await;
    scenarios.run_alone(phone_layout).await;
    scenarios.finish().await;
}
