// lobby.js: the lobby. Post a seek (game, opening, clock, rated, colour),
// see every open seek live (server-sent events, across instances) and
// take one. When this page's own seek is taken it opens the game; leaving
// the page cancels its seeks.

import { t, onLang } from "/i18n.js";
import { api, errorText } from "/api.js";
import { go } from "/app.js";
import { $ } from "/dom.js";
import { getMe, loadMe, onMe } from "/people.js";
import { keep } from "/prefs.js";

/** The home page's presets: rule and board side. */
const GAMES = {
  gomoku: { rule: "freestyle", size: 15 },
  caro: { rule: "caro", size: 20 },
  renju: { rule: "renju", size: 15 },
  standard: { rule: "standard", size: 15 },
  ttt: { rule: "freestyle", size: 3 },
};

const lobby = {
  wired: false,
  events: null,
  seeks: [],
  /** This page's open seeks: id → guest token ("" for an account's). */
  mine: new Map(),
};

/** Shows the lobby and follows it live. */
export async function showLobby() {
  if (!lobby.wired) wire();
  $("lobby-error").textContent = "";
  await loadMe();
  renderWho();
  follow();
}

/** Stops following the lobby and cancels this page's open seeks. */
export function leaveLobby() {
  if (lobby.events) { lobby.events.close(); lobby.events = null; }
  for (const [id, token] of lobby.mine) {
    // keepalive: the request is sent even as the page goes away.
    fetch("/api/seeks/" + id, { method: "DELETE", keepalive: true, headers: token ? { "X-Caro-Seat": token } : {} }).catch(() => {});
  }
  lobby.mine.clear();
}

function wire() {
  lobby.wired = true;
  onLang(() => { if (!$("lobby-page").hidden) { renderWho(); render(); } });
  onMe(() => { if (!$("lobby-page").hidden) { renderWho(); render(); } });
  $("seek-game").addEventListener("change", () => {
    // Tic-tac-toe is never rated, and is played free.
    const ttt = $("seek-game").value === "ttt";
    $("seek-rated").disabled = ttt || !getMe();
    if (ttt) $("seek-rated").checked = false;
  });
  $("seek-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("lobby-error").textContent = "";
    const game = GAMES[$("seek-game").value] || GAMES.gomoku;
    const body = {
      rule: game.rule, size: game.size, opening: $("seek-opening").value,
      minutes: Number($("seek-minutes").value) || 0, increment: Number($("seek-increment").value) || 0,
      rated: $("seek-rated").checked, colour: $("seek-colour").value,
    };
    try {
      const seek = await api("POST", "/api/seeks", body);
      lobby.mine.set(seek.id, seek.token || "");
      render();
    } catch (e) { $("lobby-error").textContent = errorText(e); }
  });
  $("seek-list").addEventListener("click", async (ev) => {
    const button = ev.target.closest("button[data-seek]");
    if (!button) return;
    const id = Number(button.dataset.seek);
    $("lobby-error").textContent = "";
    if (button.dataset.action === "cancel") {
      const token = lobby.mine.get(id);
      try {
        await fetch("/api/seeks/" + id, { method: "DELETE", headers: token ? { "X-Caro-Seat": token } : {} });
      } catch (_) { /* the lobby's next list tells */ }
      lobby.mine.delete(id);
      render();
      return;
    }
    button.disabled = true;
    try {
      const game = await api("POST", "/api/seeks/" + id + "/accept");
      if (game.token) keep("caro.seat." + game.id, game.token);
      go("/game/" + game.id);
    } catch (e) { $("lobby-error").textContent = errorText(e); button.disabled = false; }
  });
}

function follow() {
  if (lobby.events) return;
  lobby.events = new EventSource("/api/seeks/events");
  lobby.events.addEventListener("seeks", (ev) => {
    let list;
    try { list = JSON.parse(ev.data); } catch (_) { return; }
    if (!Array.isArray(list)) return;
    lobby.seeks = list;
    checkMine();
    render();
  });
}

/** This page's seeks that left the list: taken (open the game) or gone. */
async function checkMine() {
  const open = new Set(lobby.seeks.map((s) => s.id));
  for (const [id, token] of [...lobby.mine]) {
    if (open.has(id)) continue;
    lobby.mine.delete(id);
    let seek;
    try { seek = await api("GET", "/api/seeks/" + id); } catch (_) { continue; }
    if (seek.game_id) {
      if (token) keep("caro.seat." + seek.game_id, token);
      go("/game/" + seek.game_id);
      return;
    }
  }
}

function renderWho() {
  const me = getMe();
  $("lobby-who").textContent = me ? t("lobby_as", { name: me.name }) : t("lobby_guest");
  $("seek-rated").disabled = !me || $("seek-game").value === "ttt";
  if (!me) $("seek-rated").checked = false;
}

/** "Gomoku 15×15 · swap2 · 5+3 · rated". */
function describe(s) {
  const game = s.rule === "caro" ? t("q_caro") : s.rule === "renju" ? t("q_renju") : s.rule === "standard" ? t("q_standard")
    : s.size === 3 ? t("q_ttt") : t("q_gomoku");
  const parts = [game];
  if (s.opening && s.opening !== "free") parts.push(t("o_" + s.opening).split(" (")[0]);
  parts.push(s.minutes || s.increment ? s.minutes + "+" + s.increment : t("no_clock"));
  parts.push(s.rated ? t("rated") : t("casual"));
  if (s.colour !== "random") parts.push(t(s.colour === "black" ? "poster_black" : "poster_white"));
  return parts.join(" · ");
}

/** A rating as shown: "1500?" while provisional. */
export function ratingText(r) {
  if (!r || r.rating === null || r.rating === undefined) return "";
  return String(r.rating) + (r.provisional ? "?" : "");
}

function render() {
  const list = $("seek-list");
  list.textContent = "";
  const me = getMe();
  for (const s of lobby.seeks) {
    const li = document.createElement("li");
    const mine = lobby.mine.has(s.id) || (me && s.name === me.name);
    li.classList.toggle("mine", !!mine);
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = s.name ? s.name + (s.rating ? " (" + ratingText(s.rating) + ")" : "") : t("guest");
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = describe(s);
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.seek = String(s.id);
    if (mine) {
      button.dataset.action = "cancel";
      button.textContent = t("seek_cancel");
    } else {
      button.className = "primary";
      button.textContent = t("seek_take");
      button.disabled = s.rated && !me;
      button.setAttribute("aria-label", t("seek_take_aria", { what: describe(s), who: who.textContent }));
    }
    li.append(who, what, button);
    list.appendChild(li);
  }
  $("seek-none").hidden = lobby.seeks.length > 0;
}
