// list.js: the saved games. A whole row opens its game; the result says
// why the game ended; online games and match games are marked. On a narrow
// screen each row becomes a small card (style.css).

import { t, getLang, onLang } from "/i18n.js";
import { api, errorText, gameName, playerName, resultShort, colorName } from "/api.js";
import { go } from "/app.js";
import { $ } from "/dom.js";

let last = null;
let wired = false;

/** Shows the list of saved games. */
export async function showList() {
  if (!wired) {
    wired = true;
    onLang(() => { if (last && !$("games-page").hidden) render(last); });
    $("show-empty").addEventListener("change", () => { if (last) render(last); });
    const body = $("games-table").querySelector("tbody");
    body.addEventListener("click", (ev) => {
      const tr = ev.target.closest("tr[data-id]");
      if (!tr || ev.target.closest("a")) return;
      go("/game/" + tr.dataset.id);
    });
    body.addEventListener("keydown", (ev) => {
      const tr = ev.target.closest("tr[data-id]");
      if (tr && (ev.key === "Enter" || ev.key === " ") && ev.target === tr) { ev.preventDefault(); go("/game/" + tr.dataset.id); }
    });
  }
  const body = $("games-table").querySelector("tbody");
  body.innerHTML = "";
  try { last = await api("GET", "/api/games"); } catch (e) { body.textContent = errorText(e); return; }
  render(last);
}

function cell(tr, text, label, cls) {
  const td = tr.insertCell();
  td.textContent = text;
  td.dataset.label = label;
  if (cls) td.className = cls;
  return td;
}

/** The colour this browser played in online game `id`, if it sat there. */
function playedHere(id) {
  try { return localStorage.getItem("caro.you." + id); } catch (_) { return null; }
}

/** The players in words: "You – caro:3", online "You – Opponent". */
function playerNames(g) {
  if (g.online) {
    const me = playedHere(g.id);
    const name = (c) => (me ? (c === me ? t("you") : t("opponent")) : colorName(c));
    return name("black") + " – " + name("white");
  }
  const people = [g.black, g.white].filter((s) => s === "human").length;
  return playerName(g.black, people) + " – " + playerName(g.white, people);
}

function render(all) {
  const body = $("games-table").querySelector("tbody");
  body.innerHTML = "";
  // Games nobody played a move in are left out unless asked for.
  const list = $("show-empty").checked ? all : all.filter((g) => g.ply > 0);
  $("empty-count").textContent = t("empty_games", { n: all.length - list.length });
  $("empty-count").hidden = all.length === list.length;
  if (!list.length) {
    const tr = body.insertRow();
    const td = tr.insertCell();
    td.colSpan = 6; td.textContent = t("no_games");
    return;
  }
  for (const g of list) {
    const tr = body.insertRow();
    tr.dataset.id = String(g.id);
    tr.className = "game-row";
    const td = tr.insertCell();
    td.className = "id";
    const a = document.createElement("a");
    a.href = "/game/" + g.id; a.textContent = "#" + g.id; a.dataset.link = "";
    td.appendChild(a);
    const p = cell(tr, playerNames(g), t("col_players"), "players");
    if (g.online) {
      const b = document.createElement("span");
      b.className = "badge"; b.textContent = t("online_badge");
      p.append(" ", b);
    }
    let what = gameName(g) + " " + g.width + "×" + g.height + (g.k !== 5 ? " k=" + g.k : "");
    if (g.opening && g.opening !== "free") what += " · " + g.opening;
    if (g.match && g.game_no) what += " · " + t("match_game", { n: g.game_no });
    cell(tr, what, t("col_game"), "what");
    cell(tr, String(g.ply), t("moves"), "num").dataset.unit = t("moves_unit");
    const reason = g.reason || g.ending || "";
    cell(tr, resultShort(g.result, reason), t("result"), "result");
    cell(tr, new Date(g.updated * 1000).toLocaleString(getLang() === "vi" ? "vi-VN" : "en-GB"), t("date"), "date");
  }
}
