//! Real headless Chromium for the browser tests, driven through
//! ChromeDriver: find the browser, open a session (desktop or phone),
//! run scripts in the page, wait for a condition, click and type with a
//! real pointer and keyboard, and save screenshots.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs
//! them). [`browser_or_skip`] says a test was skipped without them,
//! unless `CARO_REQUIRE_BROWSER=1`, when it fails.
//!
//! The page's hooks used here: the board's container `#board` carries
//! `data-ply` (moves on the board shown live) and `data-zoom`;
//! `window.caroPointCenter(x, y)` gives a point's centre in client
//! coordinates; `#status` and `#message` are the page's status lines.

use std::error::Error;
use std::future::Future;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{
    InputSource, KeyAction, KeyActions, MouseActions, PointerAction, WheelAction, WheelActions,
    MOUSE_BUTTON_LEFT,
};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// What a scenario returns.
pub type TestResult = Result<(), Box<dyn Error>>;

/// The browser and its driver, found on this machine.
pub struct Browser {
    /// The Chromium binary.
    pub chromium: PathBuf,
    /// The ChromeDriver binary.
    pub driver: PathBuf,
}

/// Chromium and ChromeDriver, from `CARO_CHROMIUM` / `CARO_CHROMEDRIVER`
/// or Debian's paths.
pub fn find_browser() -> Option<Browser> {
    let pick = |var: &str, paths: &[&str]| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .into_iter()
            .chain(paths.iter().map(PathBuf::from))
            .find(|p| p.is_file())
    };
    Some(Browser {
        chromium: pick(
            "CARO_CHROMIUM",
            &["/usr/bin/chromium", "/usr/bin/chromium-browser"],
        )?,
        driver: pick("CARO_CHROMEDRIVER", &["/usr/bin/chromedriver"])?,
    })
}

/// The browser, or `None` after saying the test is skipped; panics when
/// `CARO_REQUIRE_BROWSER=1` and there is none.
pub fn browser_or_skip() -> Option<Browser> {
    let required = std::env::var("CARO_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let found = find_browser();
    if found.is_none() {
        assert!(
            !required,
            "CARO_REQUIRE_BROWSER=1 but chromium or chromedriver is missing (apt-get install chromium chromium-driver)"
        );
        eprintln!("browser tests skipped: chromium and chromedriver not found (set CARO_REQUIRE_BROWSER=1 to require them)");
    }
    found
}

/// ChromeDriver on a free port, killed when dropped.
pub struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A free TCP port on the loopback interface.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The size of the browser's viewport, and whether it is a phone (touch,
/// a device pixel ratio of 2, a mobile user agent).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Viewport width in CSS pixels.
    pub width: u32,
    /// Viewport height in CSS pixels.
    pub height: u32,
    /// Phone emulation.
    pub phone: bool,
}

/// A desktop window, 1366×900.
pub const DESKTOP: Window = Window {
    width: 1366,
    height: 900,
    phone: false,
};

/// A phone, 390×844 (touch, device pixel ratio 2).
pub const PHONE: Window = Window {
    width: 390,
    height: 844,
    phone: true,
};

/// A desktop browser session with its own profile folder.
pub async fn connect(browser: &Browser, profile: &Path) -> (Driver, Client) {
    connect_window(browser, profile, DESKTOP).await
}

/// A browser session of the given window with its own profile folder.
pub async fn connect_window(browser: &Browser, profile: &Path, window: Window) -> (Driver, Client) {
    let port = free_port();
    let driver = Driver(
        Command::new(&browser.driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver"),
    );
    let mut options = json!({
        "binary": browser.chromium,
        "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-dev-shm-usage", "--mute-audio",
            "--hide-scrollbars",
            format!("--window-size={},{}", window.width, window.height),
            format!("--user-data-dir={}", profile.display()),
        ],
    });
    if window.phone {
        options["mobileEmulation"] = json!({
            "deviceMetrics": { "width": window.width, "height": window.height, "pixelRatio": 2.0, "touch": true },
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
        });
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".to_string(), options);
    let start = Instant::now();
    loop {
        let attempt = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match attempt {
            Ok(client) => {
                if !window.phone {
                    // The window's outer size; the viewport is set below.
                    let _ = client.set_window_size(window.width, window.height).await;
                    fit_viewport(&client, window).await;
                }
                return (driver, client);
            }
            Err(e) if start.elapsed() < Duration::from_secs(30) => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("cannot start a browser session: {e}"),
        }
    }
}

/// Grows the window until the page's viewport is the asked size (a
/// headless window's frame takes a few pixels in some versions).
async fn fit_viewport(c: &Client, window: Window) {
    let Ok(inner) = c
        .execute("return [window.innerWidth, window.innerHeight]", vec![])
        .await
    else {
        return;
    };
    let w = inner[0].as_u64().unwrap_or(u64::from(window.width)) as u32;
    let h = inner[1].as_u64().unwrap_or(u64::from(window.height)) as u32;
    if w != window.width || h != window.height {
        let _ = c
            .set_window_size(
                window.width + window.width.saturating_sub(w),
                window.height + window.height.saturating_sub(h),
            )
            .await;
    }
}

/// Runs JavaScript in the page and returns its value.
pub async fn js(c: &Client, script: &str) -> Result<Value, Box<dyn Error>> {
    Ok(c.execute(script, vec![]).await?)
}

/// Waits (up to a minute) until the script returns `true`.
pub async fn until(c: &Client, what: &str, script: &str) -> TestResult {
    until_within(c, what, script, Duration::from_secs(60)).await
}

/// Waits until the script returns `true`, at most `limit`.
pub async fn until_within(c: &Client, what: &str, script: &str, limit: Duration) -> TestResult {
    let start = Instant::now();
    loop {
        if js(c, script).await? == Value::Bool(true) {
            return Ok(());
        }
        if start.elapsed() > limit {
            let seen = js(
                c,
                "const s = document.getElementById('status'), m = document.getElementById('message');
                 return [location.pathname, s ? s.textContent : null, m ? m.textContent : null]",
            )
            .await?;
            return Err(
                format!("timed out waiting for {what} (path, status, message: {seen})").into(),
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Clicks client coordinates with a real pointer.
pub async fn click_at(c: &Client, x: f64, y: f64) -> TestResult {
    clicks_at(c, x, y, 1).await
}

/// Clicks client coordinates `times` times in a row (2: a double click)
/// with a real pointer.
pub async fn clicks_at(c: &Client, x: f64, y: f64, times: usize) -> TestResult {
    let mut mouse = MouseActions::new("mouse".to_string()).then(PointerAction::MoveTo {
        duration: None,
        x: x.round(),
        y: y.round(),
    });
    for _ in 0..times {
        mouse = mouse
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
    }
    c.perform_actions(mouse).await?;
    c.release_actions().await?;
    Ok(())
}

/// Where the board draws point (x, y), in client coordinates.
pub async fn point_center(c: &Client, x: u8, y: u8) -> Result<(f64, f64), Box<dyn Error>> {
    let at = js(c, &format!("return window.caroPointCenter({x}, {y})")).await?;
    Ok((
        at["x"].as_f64().ok_or("no x")?,
        at["y"].as_f64().ok_or("no y")?,
    ))
}

/// Clicks the board at point (x, y) with a real pointer.
pub async fn click_point(c: &Client, x: u8, y: u8) -> TestResult {
    let (px, py) = point_center(c, x, y).await?;
    click_at(c, px, py).await
}

/// Clicks the element the CSS selector names.
pub async fn click(c: &Client, css: &str) -> TestResult {
    c.find(Locator::Css(css)).await?.click().await?;
    Ok(())
}

/// Chooses a value in the `<select>` the CSS selector names.
pub async fn select(c: &Client, css: &str, value: &str) -> TestResult {
    c.find(Locator::Css(css))
        .await?
        .select_by_value(value)
        .await?;
    Ok(())
}

/// Presses keys on the focused element (`fantoccini::key::Key` values
/// convert to `char` for the special keys).
pub async fn press(c: &Client, keys: &[char]) -> TestResult {
    let mut actions = KeyActions::new("keyboard".to_string());
    for &k in keys {
        actions = actions
            .then(KeyAction::Down { value: k })
            .then(KeyAction::Up { value: k });
    }
    c.perform_actions(actions).await?;
    c.release_actions().await?;
    Ok(())
}

/// The text of the element with this id.
pub async fn text(c: &Client, id: &str) -> Result<String, Box<dyn Error>> {
    Ok(c.find(Locator::Id(id)).await?.text().await?)
}

/// The number of moves on the board (`data-ply` of `#board`), or -1.
pub async fn ply(c: &Client) -> Result<i64, Box<dyn Error>> {
    Ok(js(
        c,
        "const b = document.getElementById('board'); return Number(b && b.dataset.ply !== undefined && b.dataset.ply !== '' ? b.dataset.ply : -1)",
    )
    .await?
    .as_i64()
    .unwrap_or(-1))
}

/// Waits until the board shows `n` moves.
pub async fn wait_ply(c: &Client, n: i64) -> TestResult {
    until(
        c,
        &format!("ply {n}"),
        &format!(
            "const b = document.getElementById('board'); return !!b && b.dataset.ply === '{n}'"
        ),
    )
    .await
}

/// Clicks a point and waits for the server's answer to be drawn (a
/// computer may answer at once, so at least one more move).
pub async fn play(c: &Client, x: u8, y: u8) -> TestResult {
    let before = ply(c).await?;
    click_point(c, x, y).await?;
    until(
        c,
        &format!("ply {}", before + 1),
        &format!("return Number(document.getElementById('board').dataset.ply) > {before}"),
    )
    .await
}

/// Whether the scenario `name` runs: all of them unless
/// `CARO_BROWSER_ONLY` lists some (comma-separated parts of their names).
pub fn selected(name: &str) -> bool {
    match std::env::var("CARO_BROWSER_ONLY") {
        Ok(only) if !only.trim().is_empty() => only
            .split(',')
            .any(|part| !part.trim().is_empty() && name.contains(part.trim())),
        _ => true,
    }
}

/// Where a failing scenario leaves its screenshot: `target/browser-failures/`.
pub fn failures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../browser-failures")
}

/// Saves a screenshot of the page as `target/browser-failures/NAME.png`
/// and returns its path.
pub async fn failure_shot(c: &Client, name: &str) -> PathBuf {
    let dir = failures_dir();
    let _ = std::fs::create_dir_all(&dir);
    let shot = dir.join(format!("{name}.png"));
    if let Ok(png) = c.screenshot().await {
        let _ = std::fs::write(&shot, png);
    }
    shot
}

/// The folder of the documentation's images, `docs/images/`.
pub fn docs_images() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/images")
}

/// With `CARO_UPDATE_SCREENSHOTS=1`, saves the page as
/// `docs/images/NAME.png` (the README's pictures); otherwise nothing.
pub async fn doc_screenshot(c: &Client, name: &str) -> TestResult {
    if !std::env::var("CARO_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
        return Ok(());
    }
    let dir = docs_images();
    std::fs::create_dir_all(&dir)?;
    // The last stone's animation and the fonts settle first.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let png = c.screenshot().await?;
    std::fs::write(dir.join(format!("{name}.png")), png)?;
    eprintln!("screenshot docs/images/{name}.png");
    Ok(())
}

/// Turns the mouse wheel at client coordinates (`delta_y` < 0 zooms in on
/// the board).
pub async fn wheel(c: &Client, x: f64, y: f64, delta_y: i64) -> TestResult {
    let mut actions = WheelActions::new("wheel".to_string());
    actions.push(WheelAction::Scroll {
        duration: None,
        x: x.round() as i64,
        y: y.round() as i64,
        delta_x: 0,
        delta_y,
    });
    c.perform_actions(actions).await?;
    c.release_actions().await?;
    Ok(())
}

/// Waits until the page's status line (`#status`) starts with `prefix`.
pub async fn until_status(c: &Client, what: &str, prefix: &str) -> TestResult {
    until(
        c,
        what,
        &format!("return document.getElementById('status').textContent.startsWith('{prefix}')"),
    )
    .await
}

/// Waits until the page says which seat it has (`#seat-info`, e.g.
/// `You play White.`).
pub async fn until_seat(c: &Client, what: &str, seat_info: &str) -> TestResult {
    until(
        c,
        what,
        &format!("return document.getElementById('seat-info').textContent === '{seat_info}'"),
    )
    .await
}

/// Clicks `button`, waits for the confirmation dialog and answers it with
/// `answer` (`#confirm-yes` or `#confirm-no`).
pub async fn confirm(c: &Client, button: &str, answer: &str) -> TestResult {
    click(c, button).await?;
    until(
        c,
        "the confirmation",
        "return document.getElementById('confirm-dialog').open",
    )
    .await?;
    click(c, answer).await
}

/// Runs `scenario` in a second browser session of its own (its own
/// profile, this window), then closes it; on failure it leaves that
/// session's screenshot as `target/browser-failures/SHOT.png`.
pub async fn in_another_browser(
    window: Window,
    shot: &str,
    scenario: impl AsyncFnOnce(&Client) -> TestResult,
) -> TestResult {
    let browser = find_browser().ok_or("no browser")?;
    let profile = tempfile::tempdir()?;
    let (_driver, c) = connect_window(&browser, profile.path(), window).await;
    let outcome = scenario(&c).await;
    if outcome.is_err() {
        failure_shot(&c, shot).await;
    }
    let _ = c.close().await;
    outcome
}

/// The scenarios of one browser test, run one after the other in one
/// session, each timed, the failures gathered with a screenshot each.
pub struct Scenarios<'a> {
    client: &'a Client,
    base: &'a str,
    failures: Vec<String>,
}

impl<'a> Scenarios<'a> {
    /// Scenarios in this browser session against the server at `base`.
    pub fn new(client: &'a Client, base: &'a str) -> Scenarios<'a> {
        Scenarios {
            client,
            base,
            failures: Vec::new(),
        }
    }

    /// Runs the scenario (a function, named by its name) in the session,
    /// unless `CARO_BROWSER_ONLY` leaves it out; a failure is noted with a
    /// screenshot of the page.
    pub async fn run<F, Fut>(&mut self, scenario: F)
    where
        F: FnOnce(&'a Client, &'a str) -> Fut,
        Fut: Future<Output = TestResult>,
    {
        let name = name_of(&scenario);
        if !selected(name) {
            eprintln!("{name}: not selected (CARO_BROWSER_ONLY)");
            return;
        }
        let started = Instant::now();
        let outcome = scenario(self.client, self.base).await;
        eprintln!("{name}: {:?}", started.elapsed());
        if let Err(e) = outcome {
            let shot = failure_shot(self.client, name).await;
            self.failures
                .push(format!("{name}: {e} (screenshot {})", shot.display()));
        }
    }

    /// Runs the scenario (a function, named by its name) that opens a
    /// browser of its own (it leaves its own screenshot), unless
    /// `CARO_BROWSER_ONLY` leaves it out.
    pub async fn run_alone<F, Fut>(&mut self, scenario: F)
    where
        F: FnOnce(&'a str) -> Fut,
        Fut: Future<Output = TestResult>,
    {
        let name = name_of(&scenario);
        if !selected(name) {
            return;
        }
        let started = Instant::now();
        if let Err(e) = scenario(self.base).await {
            self.failures.push(format!("{name}: {e}"));
        }
        eprintln!("{name}: {:?}", started.elapsed());
    }

    /// Closes the session and fails the test if a scenario failed.
    pub async fn finish(self) {
        let _ = self.client.clone().close().await;
        assert!(
            self.failures.is_empty(),
            "browser scenarios failed:\n{}",
            self.failures.join("\n")
        );
    }
}

/// A function's own name (`phone_layout` for `web_browser::phone_layout`).
fn name_of<F>(f: &F) -> &'static str {
    let path = std::any::type_name_of_val(f);
    path.rsplit("::").next().unwrap_or(path)
}

/// The home page, with its players loaded.
pub async fn open_home(c: &Client, base: &str) -> TestResult {
    c.goto(&format!("{base}/")).await?;
    until(
        c,
        "the home page",
        "return document.querySelectorAll('#levels button').length === 10 && document.getElementById('black-player').options.length > 0",
    )
    .await
}

/// Waits for a game page with its board drawn.
pub async fn wait_game_page(c: &Client) -> TestResult {
    until(
        c,
        "the game page",
        "const b = document.getElementById('board');
         return /^\\/game\\/\\d+$/.test(location.pathname) && !document.getElementById('game-page').hidden
           && !!window.caroView && !!window.caroView() && b.dataset.ply !== undefined && !!b.querySelector('canvas')",
    )
    .await
}
