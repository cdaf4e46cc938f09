//! The lobby in real Chromium: two people sign up in two browsers, one
//! posts a rated seek, the other sees it appear without reloading and
//! takes it, they play to the end and both see the new ratings; the
//! profile shows the rating's graph; two guests play a casual seek; the
//! lobby and a profile on a phone, in Vietnamese, with no sideways scroll.
//! Skipped (and says so) without Chromium.

mod common;

use common::browser::{
    browser_or_skip, click, connect, connect_window, doc_screenshot, in_another_browser, js, play,
    until, wait_game_page, Scenarios, TestResult, DESKTOP, PHONE,
};
use common::Server;
use fantoccini::{Client, Locator};
use serde_json::json;

/// Types into a field (cleared first).
async fn fill(c: &Client, css: &str, text: &str) -> TestResult {
    let field = c.find(Locator::Css(css)).await?;
    field.clear().await?;
    field.send_keys(text).await?;
    Ok(())
}

/// Signs up on the log-in page and waits for the lobby.
async fn sign_up(c: &Client, base: &str, name: &str) -> TestResult {
    c.goto(&format!("{base}/login")).await?;
    until(
        c,
        "the log-in page",
        "return !document.getElementById('login-page').hidden",
    )
    .await?;
    fill(c, "#signup-name", name).await?;
    fill(c, "#signup-password", "a long password").await?;
    click(c, "#signup-form button[type=submit]").await?;
    until(
        c,
        "the lobby, logged in",
        &format!(
            "return location.pathname === '/lobby' && document.getElementById('account-link').textContent === {}",
            json!(name)
        ),
    )
    .await
}

/// Posts a seek from the lobby's form.
async fn post_seek(c: &Client, game: &str, rated: bool, colour: &str) -> TestResult {
    js(
        c,
        &format!(
            "document.getElementById('seek-game').value = {};
             document.getElementById('seek-game').dispatchEvent(new Event('change'));
             document.getElementById('seek-colour').value = {};
             document.getElementById('seek-rated').checked = {rated};",
            json!(game),
            json!(colour)
        ),
    )
    .await?;
    click(c, "#seek-form button[type=submit]").await?;
    until(
        c,
        "the posted seek in the lobby",
        "return document.querySelectorAll('#seek-list li.mine').length === 1",
    )
    .await
}

/// Black makes five on row 7 (from column 3), white answers on row 8.
async fn five_in_a_row(black: &Client, white: &Client) -> TestResult {
    for i in 0..5u8 {
        play(black, 3 + i, 7).await?;
        if i < 4 {
            until(
                white,
                "black's move on white's page",
                &format!(
                    "return Number(document.getElementById('board').dataset.ply) === {}",
                    i * 2 + 1
                ),
            )
            .await?;
            play(white, 3 + i, 8).await?;
            until(
                black,
                "white's move on black's page",
                &format!(
                    "return Number(document.getElementById('board').dataset.ply) === {}",
                    i * 2 + 2
                ),
            )
            .await?;
        }
    }
    Ok(())
}

async fn two_people_play_a_rated_seek(c: &Client, base: &str) -> TestResult {
    sign_up(c, base, "Lan").await?;
    in_another_browser(DESKTOP, "rated_seek_taker", async |w: &Client| {
        sign_up(w, base, "Minh").await?;
        until(w, "an empty lobby", "return !document.getElementById('seek-none').hidden").await?;
        post_seek(c, "gomoku", true, "black").await?;
        // Minh sees it come, without reloading.
        until(
            w,
            "Lan's seek on Minh's page",
            "const li = document.querySelector('#seek-list li');
             return !!li && li.querySelector('.who').textContent === 'Lan (1500?)' && li.querySelector('.what').textContent.includes('rated')",
        )
        .await?;
        doc_screenshot(w, "lobby").await?;
        click(w, "#seek-list li button.primary").await?;
        wait_game_page(w).await?;
        // Lan's lobby opens the game when the seek is taken.
        wait_game_page(c).await?;
        until(
            c,
            "both names on Lan's page",
            "return document.querySelector('#card-black .pname').textContent === 'Lan (You)'
                && document.querySelector('#card-white .pname').textContent === 'Minh'
                && document.querySelector('#card-white .plevel').textContent.includes('1500?')",
        )
        .await?;
        five_in_a_row(c, w).await?;
        for (page, who) in [(c, "Lan"), (w, "Minh")] {
            until(
                page,
                &format!("the new ratings on {who}'s page"),
                "const b = document.querySelector('#card-black .plevel').textContent;
                 const w = document.querySelector('#card-white .plevel').textContent;
                 return /1500 → 1\\d{3} \\(\\+\\d+\\)/.test(b) && /1500 → 1\\d{3} \\(-\\d+\\)/.test(w)",
            )
            .await?;
        }
        Ok(())
    })
    .await?;
    // Lan's profile: the rating, the game and the graph.
    js(c, "document.getElementById('account-link').click()").await?;
    until(
        c,
        "Lan's profile with its graph",
        "return location.pathname === '/@/Lan' && document.getElementById('profile-title').textContent === 'Lan'
            && document.querySelectorAll('#rating-graph circle').length === 2
            && document.querySelector('#rating-graph polyline') !== null
            && document.querySelectorAll('#profile-games li').length === 1
            && document.querySelector('#profile-games .change.up') !== null && document.querySelector('#profile-games li').textContent.includes('won')
            && !document.getElementById('profile-own').hidden",
    )
    .await?;
    doc_screenshot(c, "profile").await?;
    Ok(())
}

async fn two_guests_play_a_casual_seek(c: &Client, base: &str) -> TestResult {
    // A fresh session: log out first.
    c.goto(&format!("{base}/lobby")).await?;
    js(
        c,
        "await fetch('/api/session', {method: 'DELETE'}); location.reload();",
    )
    .await
    .ok();
    until(
        c,
        "the lobby as a guest",
        "return location.pathname === '/lobby' && document.getElementById('account-link').getAttribute('href') === '/login'
            && document.getElementById('seek-rated').disabled",
    )
    .await?;
    post_seek(c, "caro", false, "white").await?;
    in_another_browser(DESKTOP, "casual_seek_taker", async |w: &Client| {
        w.goto(&format!("{base}/lobby")).await?;
        until(
            w,
            "the guest's seek",
            "const li = document.querySelector('#seek-list li');
             return !!li && li.querySelector('.who').textContent === 'Guest' && !li.querySelector('button').disabled",
        )
        .await?;
        click(w, "#seek-list li button.primary").await?;
        wait_game_page(w).await?;
        wait_game_page(c).await?;
        // The poster asked for white: the taker opens.
        play(w, 10, 10).await?;
        until(c, "the taker's move", "return Number(document.getElementById('board').dataset.ply) === 1").await?;
        play(c, 11, 11).await?;
        Ok(())
    })
    .await
}

async fn a_seek_leaves_with_its_poster_and_the_lobby_works_from_the_keyboard(
    c: &Client,
    base: &str,
) -> TestResult {
    c.goto(&format!("{base}/lobby")).await?;
    until(
        c,
        "the lobby",
        "return !document.getElementById('lobby-page').hidden",
    )
    .await?;
    // From the keyboard: the form's fields, then Enter on its button.
    js(c, "document.getElementById('seek-game').focus()").await?;
    c.active_element().await?.send_keys("\u{E015}").await?;
    js(
        c,
        "document.querySelector('#seek-form button[type=submit]').focus()",
    )
    .await?;
    c.active_element().await?.send_keys("\u{E007}").await?;
    until(
        c,
        "the seek posted from the keyboard",
        "return document.querySelectorAll('#seek-list li.mine').length === 1",
    )
    .await?;
    // Leaving the page takes the seek out of the lobby.
    c.goto(&format!("{base}/games")).await?;
    until(
        c,
        "the lobby empty after its poster left",
        "if (!window.caroSeeks) { window.caroSeeks = 'asking'; fetch('/api/seeks').then(r => r.json()).then(l => { window.caroSeeks = l; }); }
         if (Array.isArray(window.caroSeeks)) { const empty = window.caroSeeks.length === 0; window.caroSeeks = null; return empty; }
         return false",
    )
    .await
}

async fn the_lobby_and_a_profile_on_a_phone(base: &str) -> TestResult {
    in_another_browser(PHONE, "lobby_phone", async |p: &Client| {
        p.goto(&format!("{base}/lobby")).await?;
        js(p, "localStorage.setItem('caro.lang', 'vi'); location.reload();").await.ok();
        until(
            p,
            "the lobby in Vietnamese",
            "return document.getElementById('lobby-title').textContent === 'Sảnh' && document.getElementById('seek-none') !== null",
        )
        .await?;
        for path in ["/lobby", "/@/Lan", "/leaderboard", "/login"] {
            p.goto(&format!("{base}{path}")).await?;
            until(
                p,
                &format!("{path} drawn"),
                "return document.querySelectorAll('main > section:not([hidden])').length === 1",
            )
            .await?;
            let wide = js(p, "return document.documentElement.scrollWidth - window.innerWidth").await?;
            if wide.as_i64().unwrap_or(1) > 0 {
                return Err(format!("{path} scrolls sideways by {wide} px on a phone").into());
            }
        }
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_meet_in_the_lobby() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let (_driver, client) = connect(&browser, profile.path()).await;
    let _ = connect_window;
    let mut scenarios = Scenarios::new(&client, &server.base);
    scenarios.run(two_people_play_a_rated_seek).await;
    scenarios.run(two_guests_play_a_casual_seek).await;
    scenarios
        .run(a_seek_leaves_with_its_poster_and_the_lobby_works_from_the_keyboard)
        .await;
    scenarios
        .run_alone(the_lobby_and_a_profile_on_a_phone)
        .await;
    scenarios.finish().await;
}
