// home.js: the home page: quick starts (the computer at levels 1 to 10, a
// friend online or on this screen, two computers, a position code or a PSQ
// file) and the full form under "Custom game".

import { t, onLang, say } from "/i18n.js";
import { api, errorText } from "/api.js";
import { go } from "/app.js";
import { openCode } from "/game.js";
import { $ } from "/dom.js";

let players = null;
let wired = false;

/** The quick starts' boards. */
const QUICK = {
  gomoku: { width: 15, height: 15, rule: "freestyle" },
  caro: { width: 20, height: 20, rule: "caro" },
  renju: { width: 15, height: 15, rule: "renju" },
  ttt: { width: 3, height: 3, rule: "freestyle", k: 3 },
};

/** Shows the home page (fills the players once). */
export async function showHome() {
  if (!wired) wire();
  homeVisibility();
  if (!players) {
    try { players = await api("GET", "/api/players"); } catch (e) { say($("quick-error"), () => errorText(e)); return; }
    fillPlayers();
    $("black-player").value = "caro:5";
    $("white-player").value = "caro:5";
  }
}

/** The custom form's computer players in the home page's words: caro's levels 1 to 10, the articles' players by name, then configured engines. */
function fillPlayers() {
  if (!players) return;
  const groups = [["pl_levels", []], ["pl_articles", []], ["pl_engines", []]];
  for (const p of players) {
    let m;
    if ((m = /^caro:(\d+)$/.exec(p.name))) groups[0][1].push([p.name, t("q_level", { n: m[1] })]);
    else if ((m = /^minimax:(\d+)$/.exec(p.name))) groups[1][1].push([p.name, t("pl_minimax", { n: m[1] })]);
    else if (p.kind === "builtin") groups[1][1].push([p.name, t("pl_" + p.name)]);
    else groups[2][1].push([p.name, p.name]);
  }
  for (const sel of [$("black-player"), $("white-player")]) {
    const value = sel.value;
    sel.replaceChildren();
    for (const [key, items] of groups) {
      if (!items.length) continue;
      const g = document.createElement("optgroup");
      g.label = t(key);
      for (const [name, label] of items) {
        const o = document.createElement("option");
        o.value = name; o.textContent = label;
        g.appendChild(o);
      }
      sel.appendChild(g);
    }
    if (value) sel.value = value;
  }
}

function quickBoard() {
  let q = QUICK[$("quick-board").value] || QUICK.gomoku;
  try { localStorage.setItem("caro.quick", $("quick-board").value); } catch (_) { /* not remembered */ }
  return Object.assign({}, q);
}

function fillText() {
  const levels = $("levels");
  levels.querySelectorAll("button").forEach((b) => {
    // The number alone: it never wraps ("Cấp / 1"); the card says what it is.
    b.textContent = b.dataset.level;
    b.setAttribute("aria-label", t("q_level_aria", { n: b.dataset.level }));
  });
  const sel = $("first-to");
  const value = sel.value;
  sel.innerHTML = "";
  const single = document.createElement("option");
  single.value = ""; single.textContent = t("m_single");
  sel.appendChild(single);
  for (let n = 1; n <= 10; n++) {
    const o = document.createElement("option");
    o.value = String(n); o.textContent = t("m_first_to", { n });
    sel.appendChild(o);
  }
  sel.value = value;
}

async function create(body, error) {
  say(error, null);
  try {
    const view = await api("POST", "/api/games", body);
    go("/game/" + view.id);
  } catch (e) { say(error, () => errorText(e)); }
}

/** Creates an online game; the creator takes the opening (black's) seat. */
async function createOnline(body, error) {
  say(error, null);
  try {
    const made = await api("POST", "/api/online", body);
    try {
      localStorage.setItem("caro.seat." + made.id, made.black.token);
      localStorage.setItem("caro.links." + made.id, JSON.stringify({
        black: location.origin + made.black.url, white: location.origin + made.white.url,
        watch: location.origin + made.spectator,
      }));
    } catch (_) { /* the seat is kept in this page only */ }
    go("/game/" + made.id);
  } catch (e) { say(error, () => errorText(e)); }
}

function wire() {
  wired = true;
  try { const q = localStorage.getItem("caro.quick"); if (q && QUICK[q]) $("quick-board").value = q; } catch (_) { /* default */ }
  for (let n = 1; n <= 10; n++) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "level"; b.dataset.level = String(n); b.id = "level-" + n;
    b.addEventListener("click", () => create(Object.assign(quickBoard(), { black: "human", white: "caro:" + n, time_ms: 1000 }), $("quick-error")));
    $("levels").appendChild(b);
  }
  fillText();
  onLang(() => { fillText(); fillPlayers(); });
  $("quick-friend").addEventListener("click", () => createOnline(quickBoard(), $("quick-error")));
  $("quick-here").addEventListener("click", () => create(Object.assign(quickBoard(), { black: "human", white: "human" }), $("quick-error")));
  $("quick-watch").addEventListener("click", () => create(Object.assign(quickBoard(), { black: "caro:6", white: "caro:4", time_ms: 300 }), $("quick-error")));
  $("code-form").addEventListener("submit", (ev) => { ev.preventDefault(); openCode($("code").value.trim(), false); });
  $("psq-file").addEventListener("change", async () => {
    const f = $("psq-file").files[0];
    if (!f) return;
    try {
      const data = await api("POST", "/api/import", await f.text(), "text/plain");
      go("/game/" + data.id);
    } catch (e) { say($("quick-error"), () => errorText(e)); }
  });
  document.querySelectorAll("input[name=mode]").forEach((r) => r.addEventListener("change", homeVisibility));
  $("preset").addEventListener("change", homeVisibility);
  $("opening").addEventListener("change", homeVisibility);
  $("rule").addEventListener("change", () => { if ($("rule").value === "renju") $("first").value = "black"; });
  $("setup").addEventListener("submit", (ev) => { ev.preventDefault(); submitCustom(); });
}

function mode() { return document.querySelector("input[name=mode]:checked").value; }

function homeVisibility() {
  const m = mode();
  $("black-player-label").hidden = !(m === "ch" || m === "cc");
  $("white-player-label").hidden = !(m === "hc" || m === "cc");
  $("time-label").hidden = m === "hh" || m === "online";
  $("clock-label").hidden = m !== "online";
  $("computers").hidden = m === "hh";
  $("custom-size").hidden = $("preset").value !== "custom";
  // Under a swap opening black opens: the choice of colours is the swap's.
  $("first-label").hidden = $("opening").value !== "free";
}

/** The custom form's settings, with the text keys of what is wrong pushed to `problems`. */
function settings(problems) {
  let width, height;
  if ($("preset").value === "custom") { width = Number($("width").value); height = Number($("height").value); }
  else [width, height] = $("preset").value.split("x").map(Number);
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 3 && width <= 60 && height >= 3 && height <= 60)) problems.push("need_size");
  const kText = $("k").value.trim();
  const k = kText === "" ? 0 : Number(kText);
  if (kText !== "" && !(Number.isInteger(k) && k >= 3 && k <= 10 && k <= Math.max(width, height))) problems.push("need_k");
  if ($("rule").value === "renju" && $("first").value !== "black" && $("opening").value === "free") problems.push("renju_first");
  const body = { width, height, rule: $("rule").value };
  if ($("opening").value !== "free") body.opening = $("opening").value;
  else body.first = $("first").value;
  if ($("first-to").value) body.first_to = Number($("first-to").value);
  if (k) body.k = k;
  return body;
}

function submitCustom() {
  const problems = [];
  const body = settings(problems);
  const m = mode();
  const error = $("setup-error");
  if (m === "online") {
    const [clockSeconds, increment] = $("clock").value.split("+").map(Number);
    if (clockSeconds) { body.clock_seconds = clockSeconds; body.increment_seconds = increment; }
    if (problems.length) { say(error, () => problems.map((k) => t(k)).join("\n")); return; }
    createOnline(body, error);
    return;
  }
  body.black = m === "ch" || m === "cc" ? $("black-player").value : "human";
  body.white = m === "hc" || m === "cc" ? $("white-player").value : "human";
  if (!body.black) problems.push("need_black");
  if (!body.white) problems.push("need_white");
  body.time_ms = Number($("time").value);
  if (problems.length) { say(error, () => problems.map((k) => t(k)).join("\n")); return; }
  create(body, error);
}
