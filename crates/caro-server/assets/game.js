// game.js: the game page. The board (board.js) takes all the room it can;
// beside it (below it on a phone) the player cards with their clocks, the
// status, the swap choices, the engine's panel, the buttons, the move list
// (click a move to look at it; "Back to the game" returns) and the analysis
// (its graph there too: the board keeps its size).
//
// The analysis hook. If /analysis.js loads, the page calls
//   mountAnalysis({ panel, graph, board, getPosition, onJump, lang })
// once per game page, where
//   panel        <section id="analysis-panel"> in the side column,
//   graph        <div id="analysis-graph"> in the side column, above the panel,
//   board        the Board (the module sets its ghosts and marks itself),
//   getPosition  () => ({ view, ply }): the latest view (with `you` online)
//                and the number of its moves shown,
//   onJump       (ply) => show the position after `ply` moves,
//   lang         () => the language in use;
// and it returns { update(), setLang(l), analyseGame(), destroy() }: update
// after every new view or move shown, setLang after a language change,
// analyseGame from the result dialog's "Analyse", destroy on leaving.

import { Board } from "/board.js";
import { t, getLang, onLang, say } from "/i18n.js";
import { api, errorText, colorName, other, pointName, gameName, playerName, playerLevel } from "/api.js";
import { go, show, setTitle, showMissing, getTheme, onTheme } from "/app.js";
import { confirmDialog, resultDialog, closeDialogs } from "/dialogs.js";
import { sound } from "/sound.js";
import { $ } from "/dom.js";
import { prefs, read, keep, boardStyle } from "/prefs.js";


// The game page's state: one object, so every module-level value is in
// one place.
const page = {
  current: null,       // the latest view from the server
  viewPly: null,       // browsing: the number of moves shown, or null for the live game
  events: null,        // a local game's server-sent events
  socket: null,        // an online game's WebSocket
  socketRetries: 0,    // reconnections since the socket last heard the server
  lobby: null,        // a lobby game's people: {black, white, state} (/api/games/ID/players)
  watching: false,     // opened with ?watch: never use a stored seat
  lastThinking: null,  // { thinking, ply }: the engine's latest report, kept after its move
  lastResultShown: null, // the game whose result dialog was shown
  sentMove: null,      // the last move sent: a stale answer for it is no news
  clockAt: 0,          // when the clocks were last set (performance.now())
  board: null,         // the Board (board.js), made once
  analysis: null,      // the analysis panel (analysis.js), one a game
  wired: false,        // the page's controls have their handlers
  loading: 0,          // counts page loads: an old load's answer is dropped
  offerAnswers: { yes: null, no: null }, // the offer's Yes and No handlers
};

// ---------------------------------------------------------------- leaving and opening

/** Closes the game's connections (leaving the page or going elsewhere). */
export function leaveGame() {
  page.loading++;
  if (page.events) { page.events.close(); page.events = null; }
  if (page.socket) { const s = page.socket; page.socket = null; s.close(); }
  if (page.analysis) { try { page.analysis.destroy(); } catch (_) { /* gone */ } page.analysis = null; }
  closeDialogs();
  page.current = null;
}

/** Opens a position code as a new game (`/p/CODE`, or the home page's form). */
export async function openCode(code, fromAddress) {
  try {
    const view = await api("POST", "/api/games", { code });
    if (fromAddress) history.replaceState(null, "", "/game/" + view.id);
    else history.pushState(null, "", "/game/" + view.id);
    show("game-page");
    showGame(view.id);
  } catch (e) {
    if (fromAddress) { history.replaceState(null, "", "/"); show("home-page"); }
    const { showHome } = await import("/home.js");
    showHome();
    say($("quick-error"), () => errorText(e));
  }
}

/** Shows game `id`: a live game, an online one, or a saved one to replay. */
export async function showGame(id) {
  if (!page.wired) wire();
  const load = ++page.loading;
  page.viewPly = null; page.lastThinking = null; page.lastResultShown = null; page.sentMove = null;
  $("move-list").dataset.game = "";
  message(null);
  $("status").textContent = t("loading");
  const query = new URLSearchParams(location.search);
  page.watching = query.has("watch");
  if (query.get("seat")) {
    // A seat link: keep the token here, out of the address bar.
    keep("caro.seat." + id, query.get("seat"));
    history.replaceState(null, "", "/game/" + id);
  }
  ensureBoard();
  let view;
  try { view = await api("GET", "/api/games/" + id); } catch (e) {
    if (load !== page.loading) return;
    if (e.code === "not_found" || e.status === 404) { showMissing(t("game_not_found", { id })); return; }
    message(() => errorText(e));
    return;
  }
  if (load !== page.loading) return;
  page.lastResultShown = view.result ? view.id : null;
  page.lobby = null;
  if (view.online) { view.you = "spectator"; accept(view, true); openSocket(id); loadLobbyPeople(id, 0); }
  else {
    accept(view, true);
    page.events = new EventSource("/api/games/" + id + "/events");
    page.events.addEventListener("game", (ev) => { try { accept(JSON.parse(ev.data)); } catch (_) { /* ignore a bad frame */ } });
  }
  mountAnalysisPanel(load);
}

async function mountAnalysisPanel(load) {
  let mod;
  try { mod = await import("/analysis.js"); } catch (_) { return; }
  if (load !== page.loading || !mod || typeof mod.mountAnalysis !== "function" || page.analysis) return;
  try {
    page.analysis = mod.mountAnalysis({
      panel: $("analysis-panel"), graph: $("analysis-graph"), board: page.board,
      getPosition: () => ({ view: page.current, ply: shownPly() }),
      onJump: (ply) => browse(ply),
      lang: () => getLang(),
    });
  } catch (e) { console.warn("analysis panel", e); page.analysis = null; }
}

// ---------------------------------------------------------------- the board

/** The page.board, made once (page.board.js). */
function ensureBoard() {
  if (page.board) return;
  page.board = new Board($("board"), {
    onPlay: (x, y) => playAt(x, y),
    onOccupied: () => message(() => t("e_occupied")),
    onCursor: () => {},
  });
  // For tests and tools: where a point is on screen, the latest view and
  // the board.
  window.caroPointCenter = (x, y) => {
    const p = page.board.pointToPixel(x, y);
    return { x: p.left, y: p.top };
  };
  window.caroView = () => page.current;
  window.caroBoard = page.board;
}

function shownPly() { return page.current ? (page.viewPly === null ? page.current.moves.length : page.viewPly) : 0; }

function drawBoard() {
  const v = page.current;
  if (!v || !page.board) return;
  const shown = shownPly();
  const live = page.viewPly === null;
  const style = boardStyle(v);
  $("game-page").querySelector(".game-layout").classList.toggle("xo", style === "xo");
  const humanBlack = v.online ? v.you === "black" : seatName(v, "black") === "human";
  page.board.set({
    width: v.width, height: v.height, k: v.k,
    cells: style === "xo" ? "cells" : "intersections",
    moves: v.moves.slice(0, shown),
    first: v.first,
    showNumbers: prefs.numbers === "all" ? true : prefs.numbers === "last" ? 10 : false,
    toMove: v.result ? null : v.to_move,
    lastMove: true,
    winLine: live && v.result && v.result.line && v.result.line.length ? v.result.line : null,
    forbidden: live && humanBlack && !v.result ? v.forbidden || [] : [],
    // A renju opening's offered 5th moves, numbered, while they are offered
    // and picked.
    ...(isRenjuOpening(v) ? { marks: live ? offerMarks(v) : [] } : {}),
    // Live, every click reaches playAt, which plays or says why not.
    interactive: live,
    preview: live && canPlay(v),
    theme: getTheme(),
    style,
    label: gameName(v) + ", " + t("board_aria", { w: v.width, h: v.height }),
    name: gameName(v),
    words: { black: sideName("black"), white: sideName("white"), empty: t("empty_point") },
  });
  const el = $("board");
  $("game-page").querySelector(".game-layout").style.setProperty("--ratio", String(v.width / v.height));
  el.dataset.ply = String(shown);
  el.dataset.version = String(v.version);
  $("reset-view").hidden = !(page.board.zoom > 1.001);
}

/** Whether the person at this page may place a stone now. */
function canPlay(v) {
  if (!v || v.result) return false;
  if (v.turn && v.turn.kind === "choose") return false;
  if (v.turn && (v.turn.kind === "offer" || v.turn.kind === "pick")) return mySeat(v, v.turn.seat);
  if (v.online) return v.you === v.to_move;
  return seatName(v, v.to_move) === "human";
}

function seatName(v, color) { return v[color]; }

function playAt(x, y) {
  const v = page.current;
  if (!v) return;
  if (page.viewPly !== null) { browse(null); return; }
  if (v.online && v.you !== "black" && v.you !== "white") { message(() => t("e_not_a_player")); return; }
  if (v.result) { message(() => t("e_game_over")); return; }
  if (v.turn && v.turn.kind === "choose") { message(() => t("e_must_choose")); return; }
  page.sentMove = { ply: v.ply, x, y };
  intent("move", { ply: v.ply, x, y });
}

// ---------------------------------------------------------------- server intents

/** Shows a message: words from `f()` (again after a language change), or none. */
function message(f) { say($("message"), f || null); }

/** Whether a stale answer is only the page's own move, already shown. */
function alreadyPlayed() {
  const v = page.current, m = page.sentMove;
  if (!v || !m) return false;
  const at = v.moves[m.ply];
  return !!at && at[0] === m.x && at[1] === m.y;
}

async function intent(path, body) {
  const v = page.current;
  if (!v) return;
  if (v.online) {
    if (path === "move") send({ t: "move", ply: body.ply, x: body.x, y: body.y });
    else if (path === "resign") send({ t: "resign" });
    else if (path === "choose") send({ t: "choose", choice: body.choice, ply: body.ply });
    return;
  }
  try {
    accept(await api("POST", "/api/games/" + v.id + "/" + path, body === undefined ? {} : body));
    message(null);
  } catch (e) {
    if (e.code === "stale") {
      await refresh();
      if (path === "move" && alreadyPlayed()) { message(null); return; }
    }
    message(() => errorText(e));
  }
}

async function refresh() {
  if (!page.current) return;
  try { accept(await api("GET", "/api/games/" + page.current.id)); } catch (_) { /* keep what we have */ }
}

// An online game: one WebSocket carries the game both ways.
function openSocket(id) {
  let token = null;
  if (!page.watching) token = read("caro.seat." + id, null);
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/games/" + id + "/ws" +
    (token ? "?seat=" + encodeURIComponent(token) : "");
  const ws = new WebSocket(url);
  page.socket = ws;
  ws.onmessage = (ev) => {
    page.socketRetries = 0;
    let m;
    try { m = JSON.parse(ev.data); } catch (_) { return; }
    if (m.t === "game") {
      const declined = declinedOffer(page.current, m);
      accept(m);
      if (page.current && !page.current.result && $("message").dataset.keep !== "1") message(declined ? () => t(declined) : null);
    }
    else if (m.t === "error") {
      if (m.code === "stale" && alreadyPlayed()) return;
      message(() => errorText(m, true));
    } else if (m.t === "rematch") {
      if (m.seat) keep("caro.seat." + m.id, m.seat);
      go("/game/" + m.id + (m.seat ? "" : "?watch"));
    }
  };
  ws.onclose = (ev) => {
    if (page.socket !== ws) return; // closed on purpose
    page.socket = null;
    if (ev.code === 1007 || ev.code === 1008 || ev.code === 1009) { message(() => t("closed", { r: ev.reason })); return; }
    message(() => t("reconnecting"));
    // Sooner at first, then less often, each page at its own moment: after
    // a server restarts its players do not all come back at once.
    const wait = Math.min(10000, 500 * 2 ** Math.min(page.socketRetries++, 5)) * (0.75 + Math.random() / 2);
    setTimeout(() => { if (!page.socket && page.current && page.current.id === id && !$("game-page").hidden) openSocket(id); }, wait);
  };
}

/**
 * The text key saying that the opponent declined this page's draw offer or
 * takeback request, when `next` (same game, same moves) no longer holds it.
 */
function declinedOffer(before, next) {
  if (!before || !next || before.id !== next.id || next.result || !before.offers) return null;
  const you = before.you;
  if (you !== "black" && you !== "white") return null;
  if ((next.moves || []).length !== before.moves.length) return null;
  const o = next.offers || {};
  if (before.offers.draw === you && !o.draw) return "declined_draw";
  if (before.offers.takeback && before.offers.takeback.by === you && !o.takeback) return "declined_takeback";
  return null;
}

function send(command) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) page.socket.send(JSON.stringify(command));
  else message(() => t("reconnecting"));
}

// ---------------------------------------------------------------- a new view

function accept(view, first) {
  if (page.current && view.id === page.current.id && view.version < page.current.version) return;
  if (page.current && page.current.online && view.you === undefined) view.you = page.current.you;
  page.clockAt = performance.now();
  // The games list names the online players from the colour played here.
  if (view.online && (view.you === "black" || view.you === "white")) keep("caro.you." + view.id, view.you);
  const before = page.current;
  page.current = view;
  if (view.thinking) page.lastThinking = { thinking: view.thinking, ply: view.ply };
  else if (view.evaluation) page.lastThinking = { thinking: view.evaluation, ply: lastMoveBy(view, view.evaluation.color) };
  else if (page.lastThinking && page.lastThinking.ply > view.moves.length) page.lastThinking = null;
  if (!first && before && before.id === view.id && view.ply > before.ply && !view.result) sound("move", prefs.sound);
  if (view.result && page.lastResultShown !== view.id) {
    page.lastResultShown = view.id;
    // A rated lobby game: its new ratings.
    if (page.lobby && !first) loadLobbyPeople(view.id, 0);
    if (!first) {
      const people = [view.black, view.white].filter((s) => s === "human").length;
      const mine = view.online ? view.you : people === 1 ? (view.black === "human" ? "black" : "white") : null;
      sound(mine && view.result.winner && view.result.winner !== mine ? "loss" : "win", prefs.sound);
      openResult();
    }
  }
  // A spectator follows the players to their rematch or next game.
  const next = view.match && view.match.next ? view.match.next : null;
  if (view.online && view.you === "spectator" && next && next !== view.id) { go("/game/" + next + "?watch"); return; }
  render();
}

/** The number of moves before `color`'s last move (its search's position). */
function lastMoveBy(v, color) {
  for (let i = v.moves.length - 1; i >= 0; i--) {
    if ((i % 2 === 0 ? v.first : other(v.first)) === color) return i;
  }
  return 0;
}

/** A side's name: "Black" or "White", or X and O when the board shows them. */
function sideName(c) {
  if (page.current && boardStyle(page.current) === "xo") return c === "white" ? "O" : "X";
  return colorName(c);
}

// ---------------------------------------------------------------- drawing the page

function people(v) { return [v.black, v.white].filter((s) => s === "human").length; }

function isComputer(v, color) { return v[color] !== "human"; }

/**
 * The people of a game made in the lobby, with their ratings; read again
 * until a rated game that ended shows its rating change.
 */
async function loadLobbyPeople(id, tries) {
  let people;
  try { people = await api("GET", "/api/games/" + id + "/players"); } catch (_) { return; }
  if (!page.current || page.current.id !== id) return;
  page.lobby = people;
  render();
  if (page.current.result && people.state === "playing" && tries < 4) setTimeout(() => loadLobbyPeople(id, tries + 1), 1000);
}

/** A lobby player's rating as shown: "1532?", "1500 → 1662 (+162)". */
function lobbyRating(p) {
  if (!p || p.rating === null || p.rating === undefined) return "";
  const r = String(p.rating) + (p.provisional && typeof p.change !== "number" ? "?" : "");
  if (typeof p.change !== "number") return r;
  return r + " → " + (p.rating + p.change) + " (" + (p.change > 0 ? "+" : "") + p.change + ")";
}

function displayName(v, color) {
  if (Array.isArray(v.names) && v.names[color === "black" ? 0 : 1]) return v.names[color === "black" ? 0 : 1];
  const lobbyName = page.lobby && page.lobby[color] ? page.lobby[color].name : null;
  if (v.online && page.lobby) {
    const name = lobbyName || t("guest");
    return v.you === color ? name + " (" + t("you") + ")" : name;
  }
  if (v.online) {
    if (v.you === color) return t("you");
    return sideName(color);
  }
  return playerName(v[color], people(v));
}

/** The colour the one person at this page plays, or null (two people, two computers, a spectator). */
function myColor(v) {
  if (v.online) return v.you === "black" || v.you === "white" ? v.you : null;
  if (people(v) !== 1) return null;
  return v.black === "human" ? "black" : "white";
}

/** A side in a result: the person's opponent by name, two computers by name, two people by colour. */
function sideInResult(v, color) {
  if (v.online) return sideName(color);
  if (people(v) === 0 && !(Array.isArray(v.names) && v.names[0])) {
    // Two computers: by name, with the colour when both have the same.
    return v.black === v.white ? v[color] + " (" + sideName(color) + ")" : v[color];
  }
  return people(v) === 1 ? displayName(v, color) : sideName(color);
}

/** The result in words, for the person at the screen: "You win", "You lose". */
function resultText(v) {
  const r = v.result;
  const c = r.winner ? sideInResult(v, r.winner) : "";
  const l = r.winner ? sideInResult(v, other(r.winner)) : "";
  const me = r.winner ? myColor(v) : null;
  if (me) {
    const won = r.winner === me;
    switch (r.reason) {
      case "five": return t(won ? "you_win_five" : "you_lose_five", { c, k: v.k });
      case "resign": return t(won ? "you_win_resign" : "you_lose_resign", { c, l });
      case "time": return t(won ? "you_win_time" : "you_lose_time", { c, l });
      case "foul": return t(won ? "you_win_foul" : "you_lose_foul", { c, l });
      case "failed": if (won) return t("you_win_failed", { l }); break;
      default: break;
    }
  }
  switch (r.reason) {
    case "five": return t("wins_five", { c, k: v.k });
    case "draw": return t(v.moves.length >= v.width * v.height ? "draw" : "draw_stuck");
    case "agreed": return t("agreed");
    case "time": return t("timeout", { c, l });
    case "resign": return t("resigned", { c, l });
    case "foul": return t("foul");
    default: return t("failed", { c });
  }
}

function statusText(v) {
  if (page.viewPly !== null) return t("viewing", { n: page.viewPly, m: v.moves.length });
  if (v.result) return resultText(v);
  const sw = swapText(v);
  if (sw) return sw;
  const c = sideName(v.to_move);
  if (v.online && (v.you === "black" || v.you === "white")) {
    return v.to_move === v.you ? t("you_to_move", { c }) : t("waiting", { c });
  }
  if (v.paused) return t("paused", { c });
  if (isComputer(v, v.to_move)) return t("thinking", { p: v[v.to_move], c });
  return people(v) === 1 ? t("you_to_move", { c }) : t("to_move", { c });
}

/** The seat's player name (`human` or a computer). */
function seatPlayer(v, seat) {
  if (Array.isArray(v.seats)) return v.seats[seat === "first" ? 0 : 1].name;
  return seat === "first" ? v.black : v.white;
}

/** Whether the person at this page sits in this seat. */
function mySeat(v, seat) {
  if (v.online) {
    const opener = v.seats && v.seats[0] && v.seats[0].color ? v.seats[0].color : "black";
    const color = seat === "first" ? opener : other(opener);
    if (v.seats && !v.seats[0].color) return seat === "first" ? v.you === "black" : v.you === "white";
    return v.you === color;
  }
  return seatPlayer(v, seat) === "human";
}

/** Whether the game opens with one of renju's tournament openings. */
function isRenjuOpening(v) {
  return !!v.opening && (v.opening.startsWith("soosorv") || v.opening === "taraguchi10");
}

/** The offered 5th moves as marks for the page.board, while offers are made or picked. */
function offerMarks(v) {
  const kind = v.turn && v.turn.kind;
  if (v.result || (kind !== "offer" && kind !== "pick")) return [];
  return (v.fifth_offers || []).map(([x, y], i) => ({ x, y, kind: "best", label: i + 1 }));
}

/** The central square the next stone of a renju opening must go in, in words. */
function renjuZone(v) {
  const n = v.moves.length;
  const radius = v.opening === "taraguchi10" ? n : n < 3 ? n : -1;
  if (radius === 0) return t("rj_zone_centre");
  if (radius < 0 || radius > 4) return t("rj_zone_any");
  return t("rj_zone", { s: 2 * radius + 1 });
}

/** What a renju opening asks now, in words. */
function renjuText(v, mine, pname) {
  const turn = v.turn;
  const options = turn.options || [];
  if (turn.kind === "choose") {
    if (!mine) return t("rj_wait", { p: pname });
    if (options.some((o) => o.startsWith("offers-"))) return t("rj_declare", { n: options.length });
    if (options.includes("place-fifth")) return t("rj_branch");
    return t("rj_swap");
  }
  if (turn.kind === "offer") {
    return mine ? t("rj_offer", { m: turn.made + 1, n: turn.total }) : t("rj_offer_wait", { p: pname });
  }
  if (turn.kind === "pick") return mine ? t("rj_pick") : t("rj_pick_wait", { p: pname });
  const undecided = Array.isArray(v.seats) && v.seats.every((s) => !s.color);
  if (turn.kind === "move" && undecided) {
    if (!mine) return t("rj_place_wait", { p: pname });
    return t("rj_place", { c: sideName(turn.color), n: v.moves.length + 1, zone: renjuZone(v) });
  }
  return "";
}

/** What the swap opening asks now, in words, or "". */
function swapText(v) {
  if (!v.opening || v.opening === "free" || !v.turn || v.result) return "";
  if (isRenjuOpening(v)) {
    const pname = v.online ? sideName(v.turn.seat === "first" ? "black" : "white") : playerName(seatPlayer(v, v.turn.seat), people(v));
    return renjuText(v, mySeat(v, v.turn.seat), pname);
  }
  const turn = v.turn;
  const undecided = Array.isArray(v.seats) && v.seats.every((s) => !s.color);
  const who = seatPlayer(v, turn.seat);
  const mine = mySeat(v, turn.seat);
  const pname = v.online ? sideName(turn.seat === "first" ? "black" : "white") : playerName(who, people(v));
  if (turn.kind === "choose") {
    if (!mine) return t("sw_choose_wait", { p: pname });
    if ((turn.options || []).includes("place-two")) return t("sw_choose2");
    if (v.moves.length > 3) {
      // The opponent placed two more stones: say who, when a computer did.
      const placer = seatPlayer(v, turn.seat === "first" ? "second" : "first");
      return placer !== "human" ? t("sw_choose_after_two", { p: placer }) : t("sw_choose_last");
    }
    return t("sw_choose1");
  }
  if (turn.kind === "move" && undecided) {
    const n = v.moves.length;
    const c = sideName(turn.color);
    if (n < 3) return mine ? t("sw_place3", { n: n + 1, c }) : t("sw_place3_wait", { p: pname });
    if (n < 5) return mine ? t("sw_place2", { n: n - 2, c }) : t("sw_place2_wait", { p: pname });
  }
  return "";
}

/**
 * A computer's swap decision in words ("Opening: caro:5 takes white."),
 * once the colours are decided, or "".
 */
function swapDecision(v) {
  if (!v.opening || v.opening === "free" || v.result || !Array.isArray(v.seats)) return "";
  if (!v.seats.every((s) => s.color)) return "";
  // Three stones: the second seat chose; five: the first seat, after the
  // second placed two more.
  const seat = (v.opening_stones || 0) > 3 ? 0 : 1;
  const who = v.seats[seat];
  if (!who || who.name === "human" || v.online) return "";
  return t("sw_took", { p: who.name, c: sideName(who.color).toLowerCase() });
}

function renderSwap(v) {
  const note = swapDecision(v);
  $("swap-note").textContent = note;
  $("swap-note").hidden = !note;
  const box = $("swap"), choices = $("swap-choices");
  const turn = v.turn;
  const choosing = !v.result && page.viewPly === null && turn && turn.kind === "choose" && mySeat(v, turn.seat);
  box.hidden = !choosing;
  choices.innerHTML = "";
  if (!choosing) return;
  $("swap-text").textContent = t("sw_title");
  for (const option of turn.options || []) {
    const b = document.createElement("button");
    b.type = "button"; b.id = "choose-" + option; b.className = option === "place-two" ? "" : "primary";
    b.textContent = option.startsWith("offers-") ? t("offers_n", { n: option.slice(7) }) : t(option);
    b.addEventListener("click", () => intent("choose", { choice: option, ply: v.ply }));
    choices.appendChild(b);
  }
}

function clockText(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
}

function renderCards(v) {
  for (const color of ["black", "white"]) {
    const card = $("card-" + color);
    card.querySelector(".pname").textContent = displayName(v, color);
    let level = v.online ? lobbyRating(page.lobby && page.lobby[color]) : playerLevel(v[color]);
    // Before a swap opening decides the colours: who opens and who chooses.
    const undecided = v.opening && v.opening !== "free" && Array.isArray(v.seats) && v.seats.every((st) => !st.color) && !v.result;
    if (undecided) level = (level ? level + " · " : "") + t(color === "black" ? "sw_seat_first" : "sw_seat_second");
    card.querySelector(".plevel").textContent = level ? " · " + level : "";
    // While the opening's stones are placed, the seat placing them has
    // the turn, whatever the stone's colour.
    const placing = undecided && v.turn && v.turn.kind === "move" ? (v.turn.seat === "first") === (color === "black") : null;
    card.classList.toggle("to-move", !v.result && (v.turn && v.turn.kind === "choose" ? false : placing === null ? v.to_move === color : placing));
    card.classList.toggle("winner", !!(v.result && v.result.winner === color));
    card.setAttribute("aria-label", sideName(color) + ": " + displayName(v, color) + (level ? ", " + level : ""));
    const conn = card.querySelector(".conn");
    const presence = v.connected || v.presence || null;
    if (v.online && presence && typeof presence[color] === "boolean" && v.you !== color) {
      // Before the friend has opened the link: waiting, not "disconnected".
      const came = friendCame(v, color, presence);
      const waiting = !presence[color] && !came;
      conn.hidden = false;
      conn.classList.toggle("on", presence[color]);
      conn.classList.toggle("waiting", waiting);
      conn.textContent = presence[color] ? t("connected") : waiting ? t("waiting_friend") : t("disconnected");
    } else conn.hidden = true;
  }
  renderClocks();
}

/**
 * Whether the player of `color` has ever come to this online game: seen
 * connected by this page (remembered), or has played a stone.
 */
function friendCame(v, color, presence) {
  const key = "caro.came." + v.id + "." + color;
  if (presence[color]) { keep(key, "1"); return true; }
  if (read(key, "") === "1") return true;
  if (v.opening && v.opening !== "free") {
    // A swap opening: the friend has chosen a colour or placed two more.
    const seats = v.seats || [];
    return (seats.length && seats.every((s) => s.color)) || v.moves.length > 3;
  }
  return v.moves.length >= (color === v.first ? 1 : 2);
}

// The server keeps the time; the page only counts down between readings.
function renderClocks() {
  const c = page.current && page.current.online && page.current.clock;
  for (const color of ["black", "white"]) {
    const el = $("card-" + color).querySelector(".pclock");
    el.hidden = !c;
    if (!c) continue;
    const running = c.running === color && !page.current.result;
    const ms = c[color + "_ms"] - (running ? performance.now() - page.clockAt : 0);
    el.textContent = clockText(ms);
    el.classList.toggle("running", running);
    el.classList.toggle("low", ms < 20000);
  }
}
setInterval(() => { if (page.current && page.current.clock && page.current.clock.running && !page.current.result) renderClocks(); }, 250);

/** The match player (0 = A, 1 = B) the person at this page is, or null. */
function matchMe(v) {
  const m = v.match;
  if (!m) return null;
  if (v.online) {
    if (v.you !== "black" && v.you !== "white") return null;
    const first = mySeat(v, "first");
    // A opens the odd games, B the even ones.
    return (m.game % 2 === 1) === first ? 0 : 1;
  }
  const humans = (m.players || []).map((p, i) => (p === "human" ? i : -1)).filter((i) => i >= 0);
  return humans.length === 1 ? humans[0] : null;
}

/** The match's two players' names, the person's as "You". */
function matchNames(v) {
  const m = v.match;
  const me = matchMe(v);
  return (m.players || []).map((p, i) => {
    if (v.online) return me === null ? t("human") + " " + (i === 0 ? "A" : "B") : i === me ? t("you") : t("opponent");
    // Two people at one screen: "Player A" and "Player B", not "Player" twice.
    if (p === "human" && people(v) === 2) return t("human") + " " + (i === 0 ? "A" : "B");
    return playerName(p, people(v));
  });
}

/** A finished match in words: "You win the match 3–1", "Match drawn 2–2 after 5 games". */
function matchHeadline(v) {
  const m = v.match;
  const score = m.score || [0, 0];
  const hi = Math.max(score[0], score[1]), lo = Math.min(score[0], score[1]);
  if (m.winner === null || m.winner === undefined) {
    const g = (m.results || []).length || m.game;
    return t("m_drawn", { a: hi, b: lo, g });
  }
  const me = matchMe(v);
  if (me !== null) return t(me === m.winner ? "m_you_win" : "m_you_lose", { a: hi, b: lo });
  return t("m_wins", { p: matchNames(v)[m.winner] || "", a: hi, b: lo });
}

/** The match line: the score with this game counted once it is over. */
function matchText(v) {
  const m = v.match;
  const names = matchNames(v);
  const score = m.score || [0, 0];
  let text = m.over ? matchHeadline(v) : t("m_score", { n: m.first_to, g: m.game });
  text += " · " + (names[0] || "") + " " + score[0] + " – " + score[1] + " " + (names[1] || "");
  if (m.draws) text += " · " + t("m_draws", { d: m.draws });
  return text;
}

function renderMatch(v) {
  const m = v.match;
  const bar = $("match-bar");
  bar.hidden = !m;
  if (!m) return;
  bar.textContent = matchText(v);
  bar.dataset.score = (m.score || [0, 0]).join("-");
  bar.dataset.over = m.over ? "1" : "";
  bar.dataset.winner = m.over ? (m.winner === null || m.winner === undefined ? "draw" : String(m.winner)) : "";
}

/** Each game of a finished match in words ("Game 2: caro:2 won"). */
function matchGames(v) {
  const m = v.match;
  const names = matchNames(v);
  return (m.results || []).map((r, i) => ({
    text: r === null || r === undefined ? t("m_game_draw", { n: i + 1 }) : t("m_game_won", { n: i + 1, p: names[r] || "" }),
    won: r !== null && r !== undefined && r === matchMe(v),
  }));
}

/** The engine's words for a score from the thinker's side. */
function evaluation(th) {
  const s = String(th.score || "");
  let m;
  if ((m = s.match(/^\+W(\d*)$/))) {
    const n = m[1] ? Math.ceil(Number(m[1]) / 2) : null;
    return n ? t("e_wins_in", { c: sideName(th.color), n }) : t("e_wins", { c: sideName(th.color) });
  }
  if ((m = s.match(/^-L(\d*)$/))) {
    const n = m[1] ? Math.max(1, Math.ceil(Number(m[1]) / 2)) : null;
    return n ? t("e_wins_in", { c: sideName(other(th.color)), n }) : t("e_wins", { c: sideName(other(th.color)) });
  }
  if (!Number.isFinite(Number(s))) return s;
  // Black's win chance, as the server's view gives it (the engine's
  // caro_engine::analysis::win_chance).
  const black = th.win_chance;
  if (typeof black !== "number") return s;
  const side = black >= 0.5 ? "black" : "white";
  const p = Math.round((side === "black" ? black : 1 - black) * 100);
  return t("e_chance", { c: sideName(side), p });
}

/** The computer whose search `th` is: never a person's seat. */
function thinkerName(v, th) {
  const seats = Array.isArray(v.seats) ? v.seats.map((st) => st.name) : [v.black, v.white];
  const computers = seats.filter((n) => n !== "human");
  if (computers.length === 1) return computers[0];
  if (v.busy && v.turn && v.turn.seat && seatPlayer(v, v.turn.seat) !== "human") return seatPlayer(v, v.turn.seat);
  return v[th.color] !== "human" ? v[th.color] : computers[0] || "";
}

function renderEngine(v) {
  const box = $("engine");
  const anyComputer = isComputer(v, "black") || isComputer(v, "white");
  const th = page.lastThinking && page.lastThinking.thinking;
  // Browsing, the panel is for the position on the board: hidden unless
  // that is the position searched.
  const elsewhere = page.viewPly !== null && page.lastThinking && page.viewPly !== Math.min(page.lastThinking.ply + 1, v.moves.length);
  box.hidden = !anyComputer || !th || !!elsewhere;
  if (box.hidden) return;
  // Against the computer the game's evaluation and the engine's plan
  // would give the position away: shown only once the person opened the
  // analysis (or the game is over).
  const opened = !!(page.analysis && page.analysis.isOpen && page.analysis.isOpen());
  const secret = !v.online && people(v) === 1 && !v.result && !opened;
  const after = !v.thinking || !v.busy;
  const undecided = Array.isArray(v.seats) && v.opening && v.opening !== "free" && !v.seats.every((st) => st.color);
  const thinker = thinkerName(v, th);
  $("engine-side").textContent = (undecided ? thinker : t("e_side", { p: thinker, c: sideName(th.color) })) +
    (after ? " · " + t("e_after", { n: Math.min(page.lastThinking.ply + 1, v.moves.length) }) : "");
  // Depth and speed are the analysis panel's; the play view has words.
  $("engine-eval").textContent = secret ? "" : t("e_eval") + ": " + evaluation(th);
  $("engine-eval").hidden = secret;
  $("engine-line").textContent = !secret && th.pv && th.pv.length ? t("e_line", { l: th.pv.slice(0, 12).join(" ") }) : "";
  box.classList.toggle("live", !after);
}

function renderMoves(v) {
  const list = $("move-list");
  const shown = shownPly();
  if (list.dataset.key !== v.id + ":" + v.moves.length + ":" + getLang()) {
    list.dataset.key = v.id + ":" + v.moves.length + ":" + getLang();
    list.innerHTML = "";
    if (!v.moves.length) {
      const li = document.createElement("li");
      li.className = "empty"; li.textContent = t("no_moves");
      list.appendChild(li);
    }
    v.moves.forEach(([x, y], i) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "mv " + (i % 2 === 0 ? v.first : other(v.first));
      b.dataset.ply = String(i + 1);
      const name = pointName(x, y, v.height);
      b.innerHTML = "";
      const num = document.createElement("span");
      num.className = "n"; num.textContent = String(i + 1);
      b.append(num, " " + name);
      b.setAttribute("aria-label", t("move_n", { n: i + 1, c: sideName(i % 2 === 0 ? v.first : other(v.first)), m: name }));
      li.appendChild(b);
      list.appendChild(li);
    });
  }
  list.querySelectorAll("button.mv").forEach((b) => {
    const on = Number(b.dataset.ply) === shown;
    b.classList.toggle("current", on);
    if (on) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current");
  });
  // A game opens with its list at the top; new moves played here, and the
  // move browsed to, are scrolled into the list's view (the list only,
  // never the page).
  const fresh = list.dataset.game !== String(v.id);
  const grew = !fresh && Number(list.dataset.count || 0) < v.moves.length;
  list.dataset.game = String(v.id);
  list.dataset.count = String(v.moves.length);
  if (fresh) { list.scrollTop = 0; return; }
  const cur = list.querySelector("button.current");
  if (cur && page.viewPly !== null) keepInList(list, cur);
  else if (page.viewPly === null && grew) list.scrollTop = list.scrollHeight;
}

/** Scrolls `list` (not the page) so that `item` is in view. */
function keepInList(list, item) {
  const top = item.offsetTop, bottom = top + item.offsetHeight; // the list is the offset parent
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}

function renderOnline(v) {
  const online = !!v.online;
  $("online").hidden = !online;
  const seated = online && (v.you === "black" || v.you === "white");
  if (online) {
    $("seat-info").textContent = seated ? t("online_you", { c: sideName(v.you) }) : t("online_watch");
    let links = null;
    try { links = JSON.parse(read("caro.links." + v.id, "null")); } catch (_) { links = null; }
    $("invite").hidden = !(links && seated && !v.result && v.moves.length < 2);
    if (links) { $("link-white").value = links.white; $("link-black").value = links.black; $("link-watch").value = links.watch; }
  }
  $("takeback").hidden = !seated || !!v.result;
  $("takeback").disabled = v.moves.length <= (v.opening_stones || 0);
  $("draw").hidden = !seated || !!v.result;
  const o = (online && v.offers) || {};
  let text = "", yes = null, no = null;
  if (o.takeback && seated) {
    if (o.takeback.by === v.you) text = t("asked_takeback");
    else { text = t("asks_takeback"); yes = { t: "takeback-accept", ply: o.takeback.ply }; no = { t: "takeback-decline" }; }
  } else if (o.draw && seated && !v.result) {
    if (o.draw === v.you) text = t("offered_draw");
    else { text = t("offers_draw"); yes = { t: "draw-accept" }; no = { t: "draw-decline" }; }
  } else if (o.rematch && o.rematch.length && seated && v.result) {
    const nextGame = v.match && !v.match.over;
    if (o.rematch.includes(v.you)) text = t(nextGame ? "asked_next" : "asked_rematch");
    else { text = t(nextGame ? "wants_next" : "wants_rematch"); yes = { t: "rematch" }; }
  }
  $("offer").hidden = !text;
  $("offer-text").textContent = text;
  // The result dialog covers the side column: a rematch offer shows in it
  // too, and its Rematch button answers it.
  const inDialog = !!(o.rematch && o.rematch.length && seated && v.result) ? text : "";
  $("result-offer").textContent = inDialog;
  $("result-offer").hidden = !inDialog;
  $("offer-yes").hidden = !yes;
  $("offer-no").hidden = !no;
  page.offerAnswers = { yes, no };
}

function title(v) {
  const name = (c) => displayName(v, c);
  return gameName(v) + " " + v.width + "×" + v.height + " · " + name("black") + " " + t("vs") + " " + name("white");
}

function render() {
  const v = page.current;
  if (!v) return;
  $("status").textContent = statusText(v);
  $("status").dataset.result = v.result ? v.result.winner || "draw" : "";
  $("game-title").textContent = title(v);
  setTitle(title(v));
  const cc = isComputer(v, "black") && isComputer(v, "white");
  const over = !!v.result;
  const online = !!v.online;
  const match = v.match || null;
  $("cc-controls").hidden = !cc;
  $("pause").textContent = v.paused ? t("resume") : t("pause");
  $("pause").disabled = over;
  $("step").disabled = over || !v.paused;
  if (document.activeElement !== $("speed")) $("speed").value = v.delay_ms;
  $("speed-value").textContent = t("delay_value", { s: (Number($("speed").value) / 1000).toFixed(1) });
  $("stop").hidden = !(v.busy && !over && !online);
  const seated = online && (v.you === "black" || v.you === "white");
  $("resign").hidden = cc || (online && !seated) || over;
  $("undo").hidden = online;
  $("redo").hidden = online;
  // A finished game stays finished: its result is not taken back.
  $("undo").disabled = over || !v.can_undo || cc;
  $("redo").disabled = !v.redo || v.redo.length === 0;
  $("next-game").hidden = !(over && match && !match.over);
  $("new-match").hidden = !(over && match && match.over && !online);
  $("rematch").hidden = !over || (online && !seated) || !!(match && !match.over) || !!(match && !online);
  $("new").hidden = online;
  $("psq-link").href = "/api/games/" + v.id + "/psq";
  $("psq-link").setAttribute("download", "caro-" + v.id + ".psq");
  const n = v.moves.length, shown = shownPly();
  $("nav-first").disabled = shown === 0;
  $("nav-prev").disabled = shown === 0;
  $("nav-next").disabled = shown >= n;
  $("nav-last").disabled = shown >= n;
  $("live").hidden = page.viewPly === null;
  renderCards(v);
  renderMatch(v);
  renderSwap(v);
  renderEngine(v);
  renderMoves(v);
  renderOnline(v);
  drawBoard();
  if (page.analysis) { try { page.analysis.update(); } catch (e) { console.warn("analysis", e); } }
}

// ---------------------------------------------------------------- browsing

/** Shows the position after `ply` moves, or the live game for null. */
function browse(ply) {
  if (!page.current) return;
  const n = page.current.moves.length;
  page.viewPly = ply === null || ply >= n ? null : Math.max(0, ply);
  render();
}

// ---------------------------------------------------------------- the result, match and rematch

function openResult() {
  const v = page.current;
  if (!v || !v.result) return;
  const m = v.match;
  const matchOver = !!(m && m.over);
  resultDialog({
    titleKey: matchOver ? "match_title" : "result_title",
    text: resultText(v),
    match: m ? (matchOver ? matchHeadline(v) : matchText(v)) : "",
    games: matchOver ? matchGames(v) : null,
    gamesLabel: t("m_games"),
    next: !!(m && !m.over),
    newMatch: matchOver && !v.online,
    rematch: !(m && !m.over) && !(m && !v.online) && (!v.online || v.you === "black" || v.you === "white"),
    analyse: !!page.analysis,
    onNext: () => nextGame(),
    onNewMatch: () => newMatch(),
    onRematch: () => rematch(),
    onAnalyse: () => { if (page.analysis) page.analysis.analyseGame(); },
  });
}

async function nextGame() {
  const v = page.current;
  if (!v) return;
  if (v.online) { send({ t: "rematch" }); return; }
  if (v.match && v.match.next) { go("/game/" + v.match.next); return; }
  try {
    const next = await api("POST", "/api/games/" + v.id + "/next", {});
    go("/game/" + next.id);
  } catch (e) { message(() => errorText(e)); }
}

/** A new match with the same players and settings (player A opens game 1). */
async function newMatch() {
  const v = page.current;
  if (!v || !v.match) return;
  const m = v.match;
  const body = {
    black: m.players[0], white: m.players[1], width: v.width, height: v.height, k: v.k, rule: v.rule,
    opening: v.opening || "free", first: v.first, time_ms: v.time_ms, first_to: m.first_to,
  };
  try { const r = await api("POST", "/api/games", body); go("/game/" + r.id); }
  catch (e) { message(() => errorText(e)); }
}

async function rematch() {
  const v = page.current;
  if (!v) return;
  if (v.online) { send({ t: "rematch" }); return; }
  try { const r = await api("POST", "/api/games/" + v.id + "/rematch", { swap: true }); go("/game/" + r.id); }
  catch (e) { message(() => errorText(e)); }
}

// ---------------------------------------------------------------- wiring

function wire() {
  page.wired = true;
  $("undo").addEventListener("click", () => { page.viewPly = null; intent("undo", { ply: page.current.ply }); });
  $("redo").addEventListener("click", () => { page.viewPly = null; intent("redo", { ply: page.current.ply }); });
  $("resign").addEventListener("click", () => {
    if (!page.current || page.current.result) return;
    confirmDialog(t("confirm_resign"), () => intent("resign", {}));
  });
  $("stop").addEventListener("click", () => intent("stop"));
  $("pause").addEventListener("click", () => intent("pause", { paused: !page.current.paused }));
  $("step").addEventListener("click", () => intent("step"));
  $("speed").addEventListener("input", () => {
    $("speed-value").textContent = t("delay_value", { s: (Number($("speed").value) / 1000).toFixed(1) });
  });
  $("speed").addEventListener("change", () => intent("speed", { delay_ms: Number($("speed").value) }));
  $("new").addEventListener("click", () => go("/"));
  $("rematch").addEventListener("click", () => rematch());
  $("next-game").addEventListener("click", () => nextGame());
  $("new-match").addEventListener("click", () => newMatch());
  $("takeback").addEventListener("click", () => { if (page.current) send({ t: "takeback", ply: page.current.ply }); });
  $("draw").addEventListener("click", () => send({ t: "draw-offer" }));
  $("offer-yes").addEventListener("click", () => { if (page.offerAnswers.yes) send(page.offerAnswers.yes); });
  $("offer-no").addEventListener("click", () => { if (page.offerAnswers.no) send(page.offerAnswers.no); });
  document.querySelectorAll("button.copy").forEach((b) => b.addEventListener("click", async () => {
    const input = $(b.dataset.for);
    try { await navigator.clipboard.writeText(input.value); } catch (_) { input.select(); }
    message(() => t("copied_plain"));
  }));
  $("code-link").addEventListener("click", async () => {
    if (!page.current || !page.current.code) return;
    const url = location.origin + "/p/" + page.current.code;
    try { await navigator.clipboard.writeText(url); } catch (_) { /* shown anyway */ }
    message(() => t("copied", { u: url }));
  });
  $("move-list").addEventListener("click", (ev) => {
    const b = ev.target.closest("button.mv");
    if (b) browse(Number(b.dataset.ply));
  });
  $("nav-first").addEventListener("click", () => browse(0));
  $("nav-prev").addEventListener("click", () => browse(shownPly() - 1));
  $("nav-next").addEventListener("click", () => browse(shownPly() + 1));
  $("nav-last").addEventListener("click", () => browse(null));
  $("live").addEventListener("click", () => browse(null));
  $("reset-view").addEventListener("click", () => { if (page.board && page.board.resetView) page.board.resetView(); });
  $("board-style").value = prefs.style || "wood";
  $("board-style").addEventListener("change", () => { prefs.style = $("board-style").value; keep("caro.style", prefs.style); drawBoard(); });
  $("numbers").value = prefs.numbers;
  $("numbers").addEventListener("change", () => { prefs.numbers = $("numbers").value; keep("caro.numbers", prefs.numbers); drawBoard(); });
  $("sound").checked = prefs.sound;
  $("sound").addEventListener("change", () => { prefs.sound = $("sound").checked; keep("caro.sound", prefs.sound ? "on" : "off"); });
  onLang((l) => {
    if (page.current) render();
    // An open result dialog is worded again, not only its title.
    if (page.current && page.current.result && $("result-dialog").open) openResult();
    if (page.analysis && page.analysis.setLang) page.analysis.setLang(l);
  });
  // Opening or closing the analysis shows or hides the engine's evaluation.
  $("analysis-panel").addEventListener("click", () => setTimeout(() => { if (page.current) renderEngine(page.current); }, 0));
  onTheme(() => drawBoard());
  document.addEventListener("keydown", onKey);
}

function onKey(ev) {
  if ($("game-page").hidden || !page.current) return;
  if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const target = ev.target;
  if (target && (/INPUT|SELECT|TEXTAREA|BUTTON/.test(target.tagName) || target.closest("#board") || target.closest("dialog"))) {
    // The board's own keys (cursor, Enter) and the controls' keys.
    // A button (a step button just clicked) lets the arrows step through the moves.
    if (!(target.tagName === "BUTTON" && !target.closest("dialog") && /^(ArrowLeft|ArrowRight|Home|End|u|r|\?)$/.test(ev.key))) return;
  }
  const n = page.current.moves.length;
  const shown = shownPly();
  switch (ev.key) {
    case "ArrowLeft": browse(shown - 1); break;
    case "ArrowRight": browse(shown + 1); break;
    case "Home": browse(0); break;
    case "End": browse(null); break;
    case "u":
      // Online, undo is a takeback request to the opponent.
      if (page.current.online) { if (!$("takeback").hidden) $("takeback").click(); }
      else if (!$("undo").disabled) $("undo").click();
      break;
    case "r": if (!page.current.online && !$("redo").disabled) $("redo").click(); break;
    case "?": { const d = document.querySelector("details.options"); d.open = !d.open; break; }
    default: return;
  }
  void n;
  ev.preventDefault();
}
