// profile.js: a player's profile (/@/NAME): ratings per game with "?"
// while provisional, a graph of the rating's history, the lobby games
// (each opens in the replay and analysis), and for one's own profile the
// account's settings. Also the leaderboards (/leaderboard).

import { t, onLang, getLang } from "/i18n.js";
import { api, errorText } from "/api.js";
import { go, setTitle, showMissing } from "/app.js";
import { $ } from "/dom.js";
import { getMe, loadMe, logOut, forget, remember } from "/people.js";
import { ratingText } from "/lobby.js";

/** The rated games, in the order shown. */
export const VARIANTS = ["freestyle15", "renju15", "caro20", "standard15"];

const state = { wired: false, profile: null, leaders: null };

function variantName(v) { return t("v_" + v); }

function fillVariants(select) {
  const chosen = select.value;
  select.textContent = "";
  for (const v of VARIANTS) {
    const o = document.createElement("option");
    o.value = v;
    o.textContent = variantName(v);
    select.appendChild(o);
  }
  if (chosen) select.value = chosen;
}

function wire() {
  state.wired = true;
  onLang(() => {
    if (state.profile && !$("profile-page").hidden) renderProfile(state.profile);
    if (state.leaders && !$("leaders-page").hidden) renderLeaders();
  });
  $("profile-variant").addEventListener("change", () => { if (state.profile) renderGraph(state.profile); });
  $("leaders-variant").addEventListener("change", () => showLeaders($("leaders-variant").value));
  $("profile-games").addEventListener("click", (ev) => {
    const li = ev.target.closest("li[data-game]");
    if (li && !ev.target.closest("a")) go("/game/" + li.dataset.game);
  });
  $("logout").addEventListener("click", async () => { await logOut(); go("/"); });
  $("password-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("own-message").textContent = "";
    try {
      remember(await api("POST", "/api/me/password", { password: $("pw-old").value, new_password: $("pw-new").value }));
      $("pw-old").value = ""; $("pw-new").value = "";
      $("own-message").textContent = t("pw_changed");
    } catch (e) { $("own-message").textContent = errorText(e); }
  });
  $("delete-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!window.confirm(t("delete_confirm"))) return;
    try {
      const res = await fetch("/api/me", { method: "DELETE", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ password: $("delete-password").value }) });
      if (!res.ok) throw await res.json().catch(() => ({ code: "bad_response" }));
      forget();
      go("/");
    } catch (e) { $("own-message").textContent = errorText(e); }
  });
}

/** Shows the profile of `name`. */
export async function showProfile(name) {
  if (!state.wired) wire();
  $("profile-error").textContent = "";
  let profile;
  try { profile = await api("GET", "/api/players/" + encodeURIComponent(name)); } catch (e) {
    if (e.status === 404) { showMissing(t("player_not_found", { name })); return; }
    $("profile-error").textContent = errorText(e);
    return;
  }
  state.profile = profile;
  await loadMe();
  fillVariants($("profile-variant"));
  // The graph opens on the game played most.
  let most = VARIANTS[0];
  for (const v of VARIANTS) if ((profile.ratings[v] || {}).games > (profile.ratings[most] || {}).games) most = v;
  $("profile-variant").value = most;
  renderProfile(profile);
}

function renderProfile(p) {
  setTitle(p.name);
  $("profile-title").textContent = p.name;
  $("profile-since").textContent = t("member_since", { date: new Date(p.created * 1000).toLocaleDateString(getLang()) });
  fillVariants($("profile-variant"));
  const ratings = $("profile-ratings");
  ratings.textContent = "";
  for (const v of VARIANTS) {
    const r = p.ratings[v];
    if (!r) continue;
    const li = document.createElement("li");
    const name = document.createElement("span");
    name.textContent = variantName(v);
    const big = document.createElement("span");
    big.className = "big";
    big.textContent = ratingText(r);
    const counts = document.createElement("span");
    counts.className = "hint";
    counts.textContent = t("wdl", { w: r.wins, d: r.draws, l: r.losses, n: r.games });
    li.append(name, big, counts);
    li.setAttribute("aria-label", variantName(v) + ": " + ratingText(r) + (r.provisional ? " (" + t("provisional") + ")" : "") + ", " + counts.textContent);
    ratings.appendChild(li);
  }
  renderGraph(p);
  const games = $("profile-games");
  games.textContent = "";
  for (const g of p.games) {
    const li = document.createElement("li");
    li.dataset.game = String(g.id);
    const a = document.createElement("a");
    a.href = "/game/" + g.id;
    a.dataset.link = "";
    a.textContent = "#" + g.id;
    const what = document.createElement("span");
    const opponent = g.opponent || t("guest");
    what.textContent = (g.variant === "casual" ? t("casual") : variantName(g.variant) + (g.rated ? " · " + t("rated") : " · " + t("casual")))
      + " · " + t("versus", { name: opponent }) + " · " + outcome(p, g);
    li.append(a, what);
    if (typeof g.change === "number") {
      const change = document.createElement("span");
      change.className = "change " + (g.change > 0 ? "up" : g.change < 0 ? "down" : "");
      change.textContent = (g.change > 0 ? "+" : "") + g.change;
      li.appendChild(change);
    }
    games.appendChild(li);
  }
  const own = getMe() && getMe().name.toLowerCase() === p.name.toLowerCase();
  $("profile-own").hidden = !own;
}

/** "won", "lost", "drawn", "aborted" or "in play", from the player's side. */
function outcome(p, g) {
  if (g.state === "aborted") return t("aborted");
  return t(g.outcome || "playing");
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The rating's history in the chosen game, as a line over the games. */
function renderGraph(p) {
  const v = $("profile-variant").value || VARIANTS[0];
  const graph = $("rating-graph");
  graph.textContent = "";
  const history = ((p.ratings[v] || {}).history || []).map((h) => h.rating);
  const points = [1500, ...history];
  $("graph-none").hidden = history.length > 0;
  graph.setAttribute("aria-label", t("graph_aria", { game: variantName(v), from: points[0], to: points[points.length - 1], n: history.length }));
  const [w, h, pad] = [600, 220, 24];
  let lo = Math.min(...points), hi = Math.max(...points);
  if (hi - lo < 100) { lo -= 50; hi += 50; }
  const x = (i) => pad + (points.length === 1 ? 0 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (r) => h - pad - ((r - lo) * (h - 2 * pad)) / (hi - lo);
  for (const r of [lo, (lo + hi) / 2, hi]) {
    graph.appendChild(svg("line", { x1: pad, x2: w - pad, y1: y(r), y2: y(r), class: "grid" }));
    const label = svg("text", { x: 2, y: y(r) - 3 });
    label.textContent = String(Math.round(r));
    graph.appendChild(label);
  }
  graph.appendChild(svg("polyline", { points: points.map((r, i) => x(i) + "," + y(r)).join(" "), class: "line" }));
  points.forEach((r, i) => graph.appendChild(svg("circle", { cx: x(i), cy: y(r), r: 3, class: "dot" })));
}

/** Shows the leaderboard of a game (the first one if none is named). */
export async function showLeaders(variant) {
  if (!state.wired) wire();
  fillVariants($("leaders-variant"));
  const v = VARIANTS.includes(variant) ? variant : $("leaders-variant").value || VARIANTS[0];
  $("leaders-variant").value = v;
  try { state.leaders = await api("GET", "/api/leaderboard/" + v); } catch (e) { $("leaders-list").textContent = errorText(e); return; }
  renderLeaders();
}

function renderLeaders() {
  const list = $("leaders-list");
  list.textContent = "";
  for (const p of state.leaders) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/@/" + encodeURIComponent(p.name);
    a.dataset.link = "";
    a.className = "who";
    a.textContent = p.name;
    const r = document.createElement("span");
    r.textContent = String(p.rating);
    const n = document.createElement("span");
    n.className = "hint";
    n.textContent = t("n_games", { n: p.games });
    li.append(a, r, n);
    list.appendChild(li);
  }
  $("leaders-none").hidden = state.leaders.length > 0;
}
