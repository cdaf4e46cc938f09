// app.js: caro's page. The server owns every game: the page draws what it
// is sent and posts intents naming the ply they apply to. This module routes
// the addresses to the pages (home.js, game.js, list.js), keeps the theme and
// the language, and names the page in its title.
//
//   /            home: quick starts and the custom form
//   /games       the saved games
//   /game/ID     a game (live, online or saved)
//   /p/CODE      a position code, opened as a new game
//   /lobby       seeks posted and taken (lobby.js)
//   /login       log in or sign up (people.js)
//   /@/NAME      a player's profile (profile.js)
//   /leaderboard the leaderboards (profile.js)
//   anything else: the page's own "no such page"

import { t, getLang, setLang, onLang, applyText } from "/i18n.js";
import { showHome } from "/home.js";
import { showList } from "/list.js";
import { showGame, leaveGame, openCode } from "/game.js";
import { showLobby, leaveLobby } from "/lobby.js";
import { showLogin, loadMe } from "/people.js";
import { showProfile, showLeaders } from "/profile.js";
import { $ } from "/dom.js";

const PAGES = ["home-page", "game-page", "games-page", "lobby-page", "login-page", "profile-page", "leaders-page", "missing-page"];
let titleKey = "site_title";

/** Shows one of the page's sections. */
export function show(page) {
  for (const id of PAGES) $(id).hidden = id !== page;
}

/** Sets the document's title: a text key, or a ready text. */
export function setTitle(text) {
  titleKey = null;
  document.title = text ? text + " · caro" : t("site_title");
}

/** Goes to an address of the page without reloading it. */
export function go(path) {
  history.pushState(null, "", path);
  route();
}

/** The page's own "no such page", with a message. */
export function showMissing(text) {
  leaveGame();
  show("missing-page");
  $("missing-title").textContent = text || t("not_found");
  $("missing-title").dataset.text = text ? "custom" : "";
  setTitle(text || t("not_found"));
}

function route() {
  leaveGame();
  leaveLobby();
  const path = location.pathname;
  let m;
  if (path === "/") { show("home-page"); titleKey = "site_title"; document.title = t("site_title"); showHome(); }
  else if (path === "/games") { show("games-page"); setTitle(t("saved_games")); showList(); }
  else if ((m = path.match(/^\/game\/(\d+)$/))) { show("game-page"); showGame(Number(m[1])); }
  else if ((m = path.match(/^\/p\/([A-Za-z0-9._-]+)$/))) { openCode(m[1], true); }
  else if (path === "/lobby") { show("lobby-page"); setTitle(t("lobby_title")); showLobby(); }
  else if (path === "/login") { show("login-page"); setTitle(t("login_title")); showLogin(); }
  else if (path === "/leaderboard") { show("leaders-page"); setTitle(t("leaderboards")); showLeaders(); }
  else if ((m = path.match(/^\/@\/([A-Za-z0-9_-]{1,40})$/))) { show("profile-page"); showProfile(m[1]); }
  else showMissing();
}

// ---------------------------------------------------------------- theme
function preferredTheme() {
  let saved = null;
  try { saved = localStorage.getItem("caro.theme"); } catch (_) { /* none */ }
  if (saved === "light" || saved === "dark") return saved;
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
let theme = preferredTheme();

/** The colour theme in use: `light` or `dark`. */
export function getTheme() { return theme; }

const themeListeners = [];
/** Calls `f(theme)` after every theme change. */
export function onTheme(f) { themeListeners.push(f); }

function applyTheme() {
  document.documentElement.dataset.theme = theme;
  const dark = theme === "dark";
  $("theme-toggle").setAttribute("aria-pressed", String(dark));
  $("theme-label").textContent = t("theme_dark");
  $("theme-toggle").title = t(dark ? "theme_light" : "theme_dark");
  const meta = document.querySelector('meta[name="theme-color"]');
  if (meta) meta.content = dark ? "#1b1712" : "#3b2f20";
}

// ---------------------------------------------------------------- start

// Errors the page met (script errors, rejected promises, files that did not
// load), for tests and for a look in the console.
window.caroErrors = [];
window.addEventListener("error", (e) => {
  const what = e.message || (e.target && (e.target.src || e.target.href)) || "error";
  window.caroErrors.push(String(what));
}, true);
window.addEventListener("unhandledrejection", (e) => { window.caroErrors.push(String(e.reason)); });

function start() {
  applyText();
  applyTheme();
  $("lang").value = getLang();
  $("lang").addEventListener("change", () => setLang($("lang").value));
  onLang(() => {
    $("lang").value = getLang();
    applyTheme();
    if (titleKey) document.title = t(titleKey);
    if ($("missing-title").dataset.text !== "custom" && !$("missing-page").hidden) $("missing-title").textContent = t("not_found");
  });
  $("theme-toggle").addEventListener("click", () => {
    theme = theme === "dark" ? "light" : "dark";
    try { localStorage.setItem("caro.theme", theme); } catch (_) { /* not remembered */ }
    applyTheme();
    for (const f of themeListeners) f(theme);
  });
  document.addEventListener("click", (ev) => {
    const a = ev.target.closest && ev.target.closest("a[data-link]");
    if (a && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && ev.button === 0) { ev.preventDefault(); go(a.getAttribute("href")); }
  });
  window.addEventListener("popstate", route);
  // Leaving the page closes its live connection (a page kept in the
  // back-forward cache would otherwise hold one of the browser's few
  // connections to the server); coming back reopens it.
  window.addEventListener("pagehide", () => { leaveGame(); leaveLobby(); });
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) route(); });
  loadMe();
  route();
}

start();
