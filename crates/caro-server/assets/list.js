// list.js: the saved games. A whole row opens its game; the result says
// why the game ended; online games and match games are marked. On a narrow
// screen each row becomes a small card (style.css).

import { t, getLang, onLang } from "/i18n.js";
import { api, errorText, gameName, playerName, resultShort } from "/api.js";
import { go } from "/app.js";

const $ = (id) => document.getElementById(id);
let last = null;
let wired = false;

/** Shows the list of saved games. */
export async function showList() {
  if (!wired) {
    wired = true;
    onLang(() => { if (last && !$("games-page").hidden) render(last); });
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

function render(list) {
  const body = $("games-table").querySelector("tbody");
  body.innerHTML = "";
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
    const people = [g.black, g.white].filter((s) => s === "human").length;
    const names = playerName(g.black, people) + " – " + playerName(g.white, people);
    const p = cell(tr, names, t("col_players"), "players");
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
