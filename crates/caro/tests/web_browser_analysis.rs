//! The game page's analysis in real headless Chromium: the live panel's
//! evaluation bar and three best lines for a position, a finished game's
//! analysis (a win-chance graph with one point per position, a click or an
//! arrow key on it showing that move, in English and Vietnamese, and on a
//! phone without sideways scrolling), the result dialog's "Analyse" for a
//! game that ends on the page, a hint in a game against the computer,
//! counted in the game, no live panel for the two players of an online
//! game in progress, and the sides named X and O on an X and O board.
//! With `CARO_UPDATE_SCREENSHOTS=1` it saves `docs/images/analysis.png`.
//! A failing scenario leaves a screenshot in `target/browser-failures/`.

mod common;

use std::error::Error;
use std::time::{Duration, Instant};

use common::browser::{
    browser_or_skip, click, click_at, connect, doc_screenshot, in_another_browser, js, play, press,
    select, until, until_within, Scenarios, TestResult, PHONE,
};
use common::{agent, get, post, Server};
use fantoccini::actions::{InputSource, MouseActions, PointerAction};
use fantoccini::key::Key;
use fantoccini::Client;
use serde_json::{json, Value};

/// A new game made through the API with these settings; returns its id.
fn new_game(a: &ureq::Agent, base: &str, settings: &Value) -> Result<i64, Box<dyn Error>> {
    let (status, view) = post(a, &format!("{base}/api/games"), settings);
    if status != 201 && status != 200 {
        return Err(format!("new game: {status} {view}").into());
    }
    Ok(view["id"].as_i64().ok_or("no id")?)
}

/// A game between two people on 15×15 with these moves, made through the
/// API; returns its id.
fn game_with_moves(base: &str, moves: &[(u8, u8)]) -> Result<i64, Box<dyn Error>> {
    let a = agent();
    let id = new_game(
        &a,
        base,
        &json!({"black": "human", "white": "human", "width": 15, "height": 15}),
    )?;
    for (i, &(x, y)) in moves.iter().enumerate() {
        let (status, answer) = post(
            &a,
            &format!("{base}/api/games/{id}/move"),
            &json!({"ply": i, "x": x, "y": y}),
        );
        if status != 200 {
            return Err(format!("move {i}: {status} {answer}").into());
        }
    }
    Ok(id)
}

/// Black's five on row 8 while white plays elsewhere: 9 moves, black wins.
const FIVE: [(u8, u8); 9] = [
    (3, 7),
    (3, 9),
    (4, 7),
    (4, 9),
    (5, 7),
    (10, 12),
    (6, 7),
    (11, 2),
    (7, 7),
];

/// Opens a game's page and waits for its board and the analysis panel.
async fn open_game(c: &Client, base: &str, id: i64, moves: usize) -> TestResult {
    c.goto(&format!("{base}/game/{id}")).await?;
    until(
        c,
        "the game page with its analysis panel",
        &format!(
            "const b = document.getElementById('board');
             return !!b && b.dataset.ply === '{moves}' && !!document.getElementById('an-toggle')"
        ),
    )
    .await
}

/// The live panel: switched on for a position, it shows the evaluation
/// bar, three lines with their scores and the three moves as ghost stones
/// on the board, with depth and speed; switched off, the ghosts go.
async fn live_panel_shows_three_lines(c: &Client, base: &str) -> TestResult {
    let id = game_with_moves(base, &[(7, 7), (8, 8), (7, 8), (8, 6)])?;
    open_game(c, base, id, 4).await?;
    let shown = js(c, "return document.getElementById('an-live').hidden").await?;
    if shown != json!(true) {
        return Err("the live panel is on before it is asked for".into());
    }
    click(c, "#an-toggle").await?;
    until(
        c,
        "three lines and the evaluation bar",
        "const bar = document.getElementById('an-bar');
         return document.querySelectorAll('#an-lines li').length === 3 && bar.dataset.state === 'ready'
           && document.getElementById('analysis-panel').dataset.ghosts === '3'",
    )
    .await?;
    let seen = js(
        c,
        "const bar = document.getElementById('an-bar');
         return [Number(bar.getAttribute('aria-valuenow')),
                 [...document.querySelectorAll('#an-lines li')].map(li => li.dataset.move),
                 document.getElementById('an-stats').textContent,
                 document.getElementById('an-toggle').getAttribute('aria-pressed')]",
    )
    .await?;
    let chance = seen[0].as_f64().unwrap_or(-1.0);
    if !(0.0..=100.0).contains(&chance) {
        return Err(format!("the bar's value {chance} is no percentage").into());
    }
    let names: Vec<&str> = seen[1]
        .as_array()
        .ok_or("no lines")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // The moves are points for people (a1 at the bottom left), all on empty
    // points and different.
    let taken = ["h8", "i7", "h7", "i9"];
    for n in &names {
        if taken.contains(n) || !n.chars().next().is_some_and(|ch| ch.is_ascii_lowercase()) {
            return Err(format!("a line starts on {n}: {names:?}").into());
        }
    }
    if names.iter().collect::<std::collections::HashSet<_>>().len() != 3 {
        return Err(format!("the three lines are not three moves: {names:?}").into());
    }
    let stats = seen[2].as_str().unwrap_or("");
    if !stats.contains("depth") || !stats.contains("nodes/s") {
        return Err(format!("no depth or speed: {stats:?}").into());
    }
    if seen[3] != json!("true") {
        return Err("the toggle does not say it is on".into());
    }
    click(c, "#an-toggle").await?;
    until(
        c,
        "the panel off and its ghosts gone",
        "return document.getElementById('an-live').hidden
           && document.getElementById('analysis-panel').dataset.ghosts === '0'",
    )
    .await
}

/// Clicks the graph's point of the position after `ply` moves with a real
/// pointer.
async fn click_graph_point(c: &Client, ply: u64) -> TestResult {
    let at = js(
        c,
        &format!(
            "const p = document.querySelector('#analysis-graph .an-pt[data-ply=\"{ply}\"]');
             if (!p) return null;
             p.parentElement.parentElement.scrollIntoView({{ block: 'center' }});
             const r = p.getBoundingClientRect();
             return [r.left + r.width / 2, r.top + r.height / 2]"
        ),
    )
    .await?;
    click_at(
        c,
        at[0].as_f64().ok_or("no point on the graph")?,
        at[1].as_f64().ok_or("no point on the graph")?,
    )
    .await
}

/// Focuses the graph (a slider) and presses `key` on it.
async fn graph_key(c: &Client, key: Key) -> TestResult {
    js(
        c,
        "document.getElementById('analysis-graph').focus(); return true",
    )
    .await?;
    press(c, &[key.into()]).await
}

/// On a 3×3 board, drawn as X and O, the panel names the sides X and O.
async fn tic_tac_toe_names_x_and_o(c: &Client, base: &str) -> TestResult {
    let a = agent();
    let id = new_game(
        &a,
        base,
        &json!({"black": "human", "white": "human", "width": 3, "height": 3}),
    )?;
    post(
        &a,
        &format!("{base}/api/games/{id}/move"),
        &json!({"ply": 0, "x": 1, "y": 1}),
    );
    open_game(c, base, id, 1).await?;
    click(c, "#an-toggle").await?;
    until(
        c,
        "the lines with X and O",
        "const p = document.getElementById('analysis-panel');
         return document.querySelectorAll('#an-lines li').length === 3
           && p.querySelector('.an-bar-b').textContent.startsWith('X ')
           && p.querySelector('.an-bar-w').textContent.startsWith('O ')
           && document.getElementById('an-side').textContent.startsWith('O to move')",
    )
    .await?;
    click(c, "#an-toggle").await
}

/// Waits for a game's analysis to finish, as the page shows it.
async fn wait_analysed(c: &Client, points: usize) -> TestResult {
    until_within(
        c,
        "the game's analysis",
        &format!(
            "const g = document.getElementById('analysis-graph');
             return !!g && !g.hidden && g.dataset.points === '{points}'
               && document.getElementById('an-job').hidden"
        ),
        Duration::from_secs(180),
    )
    .await
}

/// A finished game analysed: the progress bar while it runs, then a graph
/// with one point per position (moves + 1), white's missed blocks marked,
/// and a click on a point shows that move with its mark.
async fn analysed_game_graph_jumps(c: &Client, base: &str) -> TestResult {
    let id = game_with_moves(base, &FIVE)?;
    open_game(c, base, id, FIVE.len()).await?;
    click(c, "#an-game").await?;
    wait_analysed(c, FIVE.len() + 1).await?;
    let dots = js(
        c,
        "return [document.querySelectorAll('#analysis-graph .an-pt').length,
                 document.querySelectorAll('#analysis-graph .an-pt-blunder, #analysis-graph .an-pt-mistake').length]",
    )
    .await?;
    if dots[0] != json!(FIVE.len() + 1) {
        return Err(format!("the graph has {} points for {} moves", dots[0], FIVE.len()).into());
    }
    if dots[1].as_u64().unwrap_or(0) == 0 {
        return Err("white let black make five and no move is marked".into());
    }
    let stored = get(&agent(), &format!("{base}/api/games/{id}/analysis")).1;
    if stored["points"].as_array().map(Vec::len) != Some(FIVE.len() + 1) {
        return Err(format!("the server's analysis: {stored}").into());
    }
    // Click on the point of the position after move 4.
    click_graph_point(c, 4).await?;
    until(
        c,
        "move 4 shown",
        "return document.getElementById('analysis-graph').dataset.ply === '4'
           && document.getElementById('an-detail').dataset.ply === '4'",
    )
    .await?;
    let detail = js(c, "return document.getElementById('an-detail').textContent").await?;
    if !detail.as_str().unwrap_or("").starts_with("Move 4, White") {
        return Err(format!("the move's detail: {detail}").into());
    }
    // White's sixth move (move 6, a stone far away while black has three
    // in a row) lost the game: marked, with the better move shown.
    click_graph_point(c, 6).await?;
    until(
        c,
        "move 6 with its mark and the better move",
        "const d = document.getElementById('an-detail');
         return d.dataset.ply === '6' && !!d.querySelector('.an-better')
           && /(blunder|mistake|inaccuracy) best/.test(document.getElementById('analysis-panel').dataset.marks || '')",
    )
    .await?;
    // The graph is a slider: focused, the arrow keys step through the moves.
    graph_key(c, Key::Left).await?;
    until(
        c,
        "move 5 by the keyboard",
        "const g = document.getElementById('analysis-graph');
         return g.dataset.ply === '5' && g.getAttribute('aria-valuenow') === '5'
           && document.getElementById('board').dataset.ply === '5'",
    )
    .await?;
    // "Next mistake" goes to white's sixth move.
    click(c, "#an-next").await?;
    until(
        c,
        "the next mistake",
        "return document.getElementById('analysis-graph').dataset.ply === '6'",
    )
    .await?;
    graph_key(c, Key::Left).await?;
    until(
        c,
        "move 5 again",
        "return document.getElementById('analysis-graph').dataset.ply === '5'",
    )
    .await?;
    // The panel speaks Vietnamese too.
    select(c, "#lang", "vi").await?;
    until(
        c,
        "the panel in Vietnamese",
        "return document.getElementById('an-toggle').textContent === 'Phân tích trực tiếp'
           && document.getElementById('an-detail').textContent.startsWith('Nước 5, Đen')",
    )
    .await?;
    select(c, "#lang", "en").await?;
    phone_layout(base, id, FIVE.len() + 1).await
}

/// Online, the two players have no live analysis while the game is on;
/// a spectator has.
async fn online_players_have_no_live_panel(c: &Client, base: &str) -> TestResult {
    let (status, made) = post(&agent(), &format!("{base}/api/online"), &json!({}));
    if status != 201 && status != 200 {
        return Err(format!("new online game: {status} {made}").into());
    }
    let black = made["black"]["url"].as_str().ok_or("no seat link")?;
    let watch = made["spectator"].as_str().ok_or("no spectators' link")?;
    c.goto(&format!("{base}{black}")).await?;
    until(
        c,
        "black's seat without live analysis",
        "const t = document.getElementById('an-toggle'), n = document.getElementById('an-live-note');
         return !!t && t.hidden && !n.hidden && n.textContent.includes('off for the two players')",
    )
    .await?;
    // Black's first move, so there is a game to review (later).
    play(c, 7, 7).await?;
    c.goto(&format!("{base}{watch}")).await?;
    until(
        c,
        "the spectator's live analysis, and no review while the game is on",
        "const t = document.getElementById('an-toggle');
         return !!t && !t.hidden && document.getElementById('board').dataset.ply === '1' && document.getElementById('an-live-note').hidden
           && document.getElementById('an-game').hidden",
    )
    .await
}

/// On a phone the analysed game's graph and panel fit the width.
async fn phone_layout(base: &str, id: i64, points: usize) -> TestResult {
    in_another_browser(PHONE, "analysis_phone", async |p: &Client| {
        p.goto(&format!("{base}/game/{id}")).await?;
        wait_analysed(p, points).await?;
        let sizes = js(
            p,
            "const g = document.getElementById('analysis-graph').getBoundingClientRect();
             const a = document.getElementById('analysis-panel').getBoundingClientRect();
             return [document.documentElement.scrollWidth, window.innerWidth, g.width, a.right]",
        )
        .await?;
        let n = |i: usize| sizes[i].as_f64().unwrap_or(f64::MAX);
        if n(0) > n(1) || n(3) > n(1) + 0.5 || n(2) < n(1) * 0.8 {
            return Err(format!(
                "on a phone (page width, viewport, graph width, panel's right edge): {sizes}"
            )
            .into());
        }
        Ok(())
    })
    .await
}

/// A game that ends on the page: the result dialog's "Analyse" starts the
/// review and the graph appears.
async fn result_dialog_analyses(c: &Client, base: &str) -> TestResult {
    let id = game_with_moves(base, &FIVE[..8])?;
    open_game(c, base, id, 8).await?;
    let (status, answer) = post(
        &agent(),
        &format!("{base}/api/games/{id}/move"),
        &json!({"ply": 8, "x": FIVE[8].0, "y": FIVE[8].1}),
    );
    if status != 200 {
        return Err(format!("the last move: {status} {answer}").into());
    }
    until(
        c,
        "the result dialog with Analyse",
        "const b = document.getElementById('result-analyse'); return !!b && !b.hidden && b.offsetParent !== null",
    )
    .await?;
    click(c, "#result-analyse").await?;
    wait_analysed(c, FIVE.len() + 1).await
}

/// A hint in a game against the computer, on the person's turn: the move
/// is marked on the board and the count, kept in the game, is shown.
async fn hint_against_the_computer(c: &Client, base: &str) -> TestResult {
    let a = agent();
    let id = new_game(
        &a,
        base,
        &json!({"black": "human", "white": "caro:1", "time_ms": 100, "width": 15, "height": 15}),
    )?;
    open_game(c, base, id, 0).await?;
    until(
        c,
        "the hint button",
        "const b = document.getElementById('an-hint'); return !b.hidden && !b.disabled",
    )
    .await?;
    click(c, "#an-hint").await?;
    until(
        c,
        "the hint on the board and its count",
        "const p = document.getElementById('analysis-panel'), h = document.getElementById('an-hint-text');
         return /hint/.test(p.dataset.marks || '') && h.dataset.hints === '1' && !!h.dataset.move",
    )
    .await?;
    let said = js(
        c,
        "return document.getElementById('an-hint-text').textContent",
    )
    .await?;
    if !said
        .as_str()
        .unwrap_or("")
        .contains("Hints used in this game: 1")
    {
        return Err(format!("the hint's words: {said}").into());
    }
    let (_, view) = get(&a, &format!("{base}/api/games/{id}"));
    if view["hints"] != json!(1) {
        return Err(format!("the game does not count the hint: {}", view["hints"]).into());
    }
    // The count stays with the game.
    c.refresh().await?;
    open_game(c, base, id, 0).await?;
    until(
        c,
        "the count after a reload",
        "return document.getElementById('an-hint-text').dataset.hints === '1'",
    )
    .await
}

/// `docs/images/analysis.png`: a game between two computers, analysed,
/// at its worst move, with the live panel on.
async fn screenshot(c: &Client, base: &str) -> TestResult {
    if !std::env::var("CARO_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
        return Ok(());
    }
    let a = agent();
    let (_, view) = post(
        &a,
        &format!("{base}/api/games"),
        &json!({"black": "caro:4", "white": "caro:2", "time_ms": 100, "width": 15, "height": 15}),
    );
    let id = view["id"].as_i64().ok_or("no id")?;
    let start = Instant::now();
    let moves = loop {
        let (_, v) = get(&a, &format!("{base}/api/games/{id}"));
        if !v["result"].is_null() {
            break v["moves"].as_array().map(Vec::len).unwrap_or(0);
        }
        if start.elapsed() > Duration::from_secs(120) {
            return Err("the computers' game did not end".into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // The same moves as a game between two people, whose page has no
    // computer controls.
    let (_, played) = get(&a, &format!("{base}/api/games/{id}"));
    let moves_played: Vec<(u8, u8)> = played["moves"]
        .as_array()
        .ok_or("no moves")?
        .iter()
        .filter_map(|m| Some((m[0].as_u64()? as u8, m[1].as_u64()? as u8)))
        .collect();
    let id = game_with_moves(base, &moves_played)?;
    open_game(c, base, id, moves).await?;
    click(c, "#an-game").await?;
    wait_analysed(c, moves + 1).await?;
    // The move that lost the most.
    let (_, analysis) = get(&a, &format!("{base}/api/games/{id}/analysis"));
    let worst = analysis["moves"]
        .as_array()
        .and_then(|moves| {
            moves.iter().max_by(|x, y| {
                let loss = |m: &Value| m["loss"].as_f64().unwrap_or(0.0);
                loss(x).total_cmp(&loss(y))
            })
        })
        .and_then(|m| m["ply"].as_u64())
        .ok_or("no worst move")?;
    click_graph_point(c, worst).await?;
    until(
        c,
        "the worst move shown",
        &format!("return document.getElementById('an-detail').dataset.ply === '{worst}'"),
    )
    .await?;
    click(c, "#an-toggle").await?;
    until(
        c,
        "the live lines",
        "return document.querySelectorAll('#an-lines li').length === 3",
    )
    .await?;
    // The pointer off the lines (a hovered line is drawn whole), and the
    // page scrolled down to the end of the analysis.
    let away = MouseActions::new("mouse".to_string()).then(PointerAction::MoveTo {
        duration: None,
        x: 1.0,
        y: 1.0,
    });
    c.perform_actions(away).await?;
    c.release_actions().await?;
    js(
        c,
        "document.getElementById('an-detail').scrollIntoView({ block: 'end' }); return true",
    )
    .await?;
    doc_screenshot(c, "analysis").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_in_a_real_browser() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let (_driver, client) = connect(&browser, profile.path()).await;
    let mut scenarios = Scenarios::new(&client, &server.base);
    scenarios.run(live_panel_shows_three_lines).await;
    scenarios.run(analysed_game_graph_jumps).await;
    scenarios.run(result_dialog_analyses).await;
    scenarios.run(hint_against_the_computer).await;
    scenarios.run(online_players_have_no_live_panel).await;
    scenarios.run(tic_tac_toe_names_x_and_o).await;
    scenarios.run(screenshot).await;
    scenarios.finish().await;
}
