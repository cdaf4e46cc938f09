//! The web app end to end in real headless Chromium, driven through
//! ChromeDriver: games played by clicking the board, the computer answering,
//! undo and redo, renju fouls, reloads and a 60×60 board. A failing scenario
//! leaves a screenshot in `target/browser-failures/`.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs
//! them). Without them the test says it was skipped, unless
//! `CARO_REQUIRE_BROWSER=1`, when it fails.

mod common;

use std::error::Error;
use std::time::Instant;

use common::browser::{
    browser_or_skip, click_point, connect, failure_shot, find_browser, js, play, ply, text, until,
    wait_ply, TestResult,
};
use common::{agent, post, Server};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::json;

async fn choose_mode(c: &Client, mode: &str) -> TestResult {
    c.find(Locator::Css(&format!("input[name=mode][value={mode}]")))
        .await?
        .click()
        .await?;
    Ok(())
}

async fn open_home(c: &Client, base: &str) -> TestResult {
    c.goto(&format!("{base}/")).await?;
    until(
        c,
        "the home page",
        "return document.getElementById('black-player').options.length > 0",
    )
    .await
}

async fn start_from_home(c: &Client, mode: &str, preset: &str) -> TestResult {
    choose_mode(c, mode).await?;
    c.find(Locator::Id("preset"))
        .await?
        .select_by_value(preset)
        .await?;
    c.find(Locator::Id("go")).await?.click().await?;
    until(c, "the game page", "return /^\\/game\\/\\d+$/.test(location.pathname) && document.getElementById('board').dataset.ply !== undefined").await
}

async fn human_vs_human_won_by_five(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    start_from_home(c, "hh", "15x15").await?;
    // Computer-only controls are not shown in a game between people.
    let shown = js(c, "return ['cc-controls', 'stop'].map(id => getComputedStyle(document.getElementById(id)).display)").await?;
    if shown != json!(["none", "none"]) {
        return Err(format!("computer controls shown to two people: {shown}").into());
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
    // A click on a finished game is refused in the page, not by alert().
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
    Ok(())
}

async fn human_vs_computer_undo_redo(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    c.find(Locator::Id("white-player"))
        .await?
        .select_by_value("caro:2")
        .await?;
    c.find(Locator::Id("time"))
        .await?
        .select_by_value("100")
        .await?;
    start_from_home(c, "hc", "15x15").await?;
    play(c, 7, 7).await?;
    wait_ply(c, 2).await?;
    until(
        c,
        "the person's turn",
        "return document.getElementById('status').textContent.startsWith('Your move')",
    )
    .await?;
    // `u` takes back the computer's reply and the person's move.
    c.find(Locator::Css("body")).await?.send_keys("u").await?;
    wait_ply(c, 0).await?;
    c.find(Locator::Id("redo")).await?.click().await?;
    wait_ply(c, 2).await?;
    // Home and End browse the history without changing the game.
    c.find(Locator::Css("body"))
        .await?
        .send_keys(&Key::Home.to_string())
        .await?;
    until(
        c,
        "history view",
        "return document.getElementById('status').textContent.startsWith('Viewing move 0')",
    )
    .await?;
    c.find(Locator::Css("body"))
        .await?
        .send_keys(&Key::End.to_string())
        .await?;
    until(
        c,
        "the live game",
        "return document.getElementById('status').textContent.startsWith('Your move')",
    )
    .await?;
    play(c, 8, 8).await?;
    wait_ply(c, 4).await
}

async fn computer_vs_computer_to_the_end(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    choose_mode(c, "cc").await?;
    c.find(Locator::Id("black-player"))
        .await?
        .select_by_value("minimax:4")
        .await?;
    c.find(Locator::Id("white-player"))
        .await?
        .select_by_value("random")
        .await?;
    c.find(Locator::Id("time"))
        .await?
        .select_by_value("100")
        .await?;
    start_from_home(c, "cc", "3x3").await?;
    c.find(Locator::Id("pause")).await?.click().await?;
    until(
        c,
        "the pause",
        "return document.getElementById('status').textContent.startsWith('Paused')",
    )
    .await?;
    let paused_at = ply(c).await?;
    c.find(Locator::Id("step")).await?.click().await?;
    wait_ply(c, paused_at + 1).await?;
    c.find(Locator::Id("pause")).await?.click().await?;
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
    open_home(c, base).await?;
    start_from_home(c, "hh", "19x19").await?;
    for (x, y) in [(9, 9), (10, 9), (9, 10)] {
        play(c, x, y).await?;
    }
    c.refresh().await?;
    wait_ply(c, 3).await?;
    play(c, 10, 10).await
}

async fn a_60_by_60_game(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    c.find(Locator::Id("preset"))
        .await?
        .select_by_value("custom")
        .await?;
    let height = c.find(Locator::Id("height")).await?;
    height.clear().await?;
    height.send_keys("70").await?;
    c.find(Locator::Css("input[name=mode][value=hh]"))
        .await?
        .click()
        .await?;
    c.find(Locator::Id("go")).await?.click().await?;
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
    c.find(Locator::Id("go")).await?.click().await?;
    until(c, "the game page", "return /^\\/game\\/\\d+$/.test(location.pathname) && document.getElementById('board').dataset.ply === '0'").await?;
    for (x, y) in [(0, 0), (59, 59), (30, 30), (59, 0), (0, 59)] {
        play(c, x, y).await?;
    }
    let size = js(
        c,
        "return [document.getElementById('board').width, document.getElementById('board').height]",
    )
    .await?;
    if size[0].as_u64().unwrap_or(0) < 300 {
        return Err(format!("the 60×60 board is drawn too small: {size}").into());
    }
    Ok(())
}

async fn vietnamese_text(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    c.find(Locator::Id("lang"))
        .await?
        .select_by_value("vi")
        .await?;
    until(
        c,
        "Vietnamese",
        "return document.getElementById('go').textContent === 'Bắt đầu'",
    )
    .await?;
    c.find(Locator::Id("lang"))
        .await?
        .select_by_value("en")
        .await?;
    until(
        c,
        "English",
        "return document.getElementById('go').textContent === \"Let's go\"",
    )
    .await
}

/// Play a friend online: black creates the game from the home page and
/// sends the white link; a second browser (its own profile) opens it, and
/// the two windows play to black's win. A spectator page cannot move.
async fn two_windows_play_a_friend_online(c: &Client, base: &str) -> TestResult {
    open_home(c, base).await?;
    c.find(Locator::Id("clock"))
        .await?
        .select_by_value("600+5")
        .await?;
    c.find(Locator::Id("friend")).await?.click().await?;
    until(
        c,
        "the seat links",
        "return document.getElementById('link-white').value.includes('?seat=')",
    )
    .await?;
    until(
        c,
        "black's seat",
        "return document.getElementById('seat-info').textContent === 'You play Black.'",
    )
    .await?;
    until(
        c,
        "the clocks",
        "return !document.getElementById('clocks').hidden && document.getElementById('clock-black').textContent === 'Black 10:00'",
    )
    .await?;
    let white_link = js(c, "return document.getElementById('link-white').value").await?;
    let white_link = white_link.as_str().ok_or("no white link")?.to_string();
    let watch_link = js(c, "return document.getElementById('link-watch').value").await?;
    let watch_link = watch_link.as_str().ok_or("no spectator link")?.to_string();
    let game_page = watch_link.trim_end_matches("?watch").to_string();

    let browser = find_browser().ok_or("no browser")?;
    let profile = tempfile::tempdir()?;
    let (_driver, w) = connect(&browser, profile.path()).await;
    let outcome = async {
        w.goto(&white_link).await?;
        until(
            &w,
            "white's seat",
            "return document.getElementById('seat-info').textContent === 'You play White.'",
        )
        .await?;
        if w.current_url().await?.as_str().contains("seat=") {
            return Err("the seat token stayed in the address bar".into());
        }
        for i in 0..5u8 {
            play(c, 3 + i, 7).await?;
            wait_ply(&w, i64::from(i) * 2 + 1).await?;
            if i == 0 {
                // A spectator's page (no seat) sees the game but cannot move.
                w.goto(&watch_link).await?;
                until(
                    &w,
                    "the spectator's view",
                    "return document.getElementById('seat-info').textContent === 'You are watching.'",
                )
                .await?;
                wait_ply(&w, 1).await?;
                click_point(&w, 9, 9).await?;
                until(
                    &w,
                    "the spectator refused",
                    "return document.getElementById('message').textContent.startsWith('You are watching')",
                )
                .await?;
                // White comes back to its seat (kept in this browser).
                w.goto(&game_page).await?;
                until(
                    &w,
                    "white's seat again",
                    "return document.getElementById('seat-info').textContent === 'You play White.'",
                )
                .await?;
                wait_ply(&w, 1).await?;
                if ply(c).await? != 1 {
                    return Err("the spectator's click was played".into());
                }
            }
            if i == 4 {
                break;
            }
            play(&w, 3 + i, 9).await?;
            wait_ply(c, i64::from(i) * 2 + 2).await?;
            if i == 1 {
                // `u` online asks the opponent to take a move back; white
                // declines and the game goes on unchanged.
                c.find(Locator::Css("body")).await?.send_keys("u").await?;
                until(
                    &w,
                    "the takeback request on white's page",
                    "return !document.getElementById('offer').hidden && document.getElementById('offer-text').textContent.startsWith('Your opponent asks to take back')",
                )
                .await?;
                w.find(Locator::Id("offer-no")).await?.click().await?;
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
        }
        for (page, who) in [(c, "black"), (&w, "white")] {
            until(
                page,
                &format!("black's win on {who}'s page"),
                "return document.getElementById('status').dataset.result === 'black'",
            )
            .await?;
        }
        Ok::<(), Box<dyn Error>>(())
    }
    .await;
    if outcome.is_err() {
        failure_shot(&w, "two_windows_white").await;
    }
    let _ = w.close().await;
    outcome
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
    let mut failures = Vec::new();
    macro_rules! scenario {
        ($name:ident) => {
            let started = Instant::now();
            let outcome = $name(&client, &server.base).await;
            eprintln!("{}: {:?}", stringify!($name), started.elapsed());
            if let Err(e) = outcome {
                let shot = failure_shot(&client, stringify!($name)).await;
                failures.push(format!(
                    "{}: {e} (screenshot {})",
                    stringify!($name),
                    shot.display()
                ));
            }
        };
    }
    scenario!(a_60_by_60_game);
    scenario!(human_vs_human_won_by_five);
    scenario!(human_vs_computer_undo_redo);
    scenario!(computer_vs_computer_to_the_end);
    scenario!(renju_forbidden_point_refused);
    scenario!(reload_restores_the_game);
    scenario!(vietnamese_text);
    scenario!(two_windows_play_a_friend_online);
    let _ = client.close().await;
    assert!(
        failures.is_empty(),
        "browser scenarios failed:\n{}",
        failures.join("\n")
    );
}
