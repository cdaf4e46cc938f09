// caro's page. The server owns the game: this script draws what it is sent
// and posts intents (play here, undo, stop…) naming the ply they apply to.
"use strict";

// ---------------------------------------------------------------- text
const TEXT = {
  en: {
    nav_new: "New game", nav_games: "Games", home_title: "Five in a row: Caro, Gomoku, Renju, tic-tac-toe",
    mode: "Mode", mode_hh: "Human vs human", mode_hc: "Human vs computer", mode_ch: "Computer vs human",
    mode_cc: "Computer vs computer", board: "Board", size: "Size", custom: "custom", rows: "Rows", columns: "Columns",
    k: "In a row to win", rule: "Rule", opening: "Opening", free: "free", first: "First to move",
    black: "black (X)", white: "white (O)", computer: "Computer", black_player: "Black player",
    white_player: "White player", time: "Time per move", go: "Let's go", more: "Open a position code or a PSQ file",
    code: "Position code", open: "Open", import: "Import PSQ", undo: "Undo", redo: "Redo", resign: "Resign",
    stop: "Stop", new_game: "New game", rematch: "Rematch (swap colours)", pause: "Pause", resume: "Resume",
    step: "Step", speed: "Delay", theme: "Stones", theme_stones: "black and white", numbers: "Move numbers",
    off: "off", last10: "last 10", all: "all", coords: "Coordinates", sound: "Sound", export: "Export PSQ",
    link: "Position link", keys: "Keys: ← → step through the moves, Home / End first and last; u undo, r redo, ? this help.",
    saved_games: "Saved games", moves: "Moves", result: "Result", date: "Date", not_found: "No such page.",
    human: "human", to_move: "{c} to move", you_to_move: "Your move ({c})", thinking: "{p} ({c}) is thinking…",
    paused: "Paused. {c} to move.", wins_five: "{c} wins with {k} in a row!", draw: "Draw: the board is full.", draw_stuck: "Draw: black has no legal move left (every empty point is forbidden).",
    resigned: "{l} resigned: {c} wins.", foul: "Black played a forbidden point: white wins.",
    failed: "{c} wins: {r}", viewing: "Viewing move {n} of {m} (End returns to the game)",
    c_black: "Black", c_white: "White",
    e_occupied: "That point is already taken.", e_forbidden: "Forbidden point for black (renju): {r}",
    e_not_your_turn: "Not your turn: the computer is to move.", e_game_over: "The game is over.",
    e_stale: "The game had moved on; the board is up to date now.", e_nothing_to_undo: "Nothing to undo.",
    e_nothing_to_redo: "Nothing to redo.", e_busy: "The server is busy; try again in a moment.",
    e_network: "Cannot reach the server: {r}", e_nobody_to_resign: "Only a person can resign.",
    need_size: "Rows and columns must each be from 3 to 60.", need_k: "In a row to win must be from 3 to 10 and fit the board.",
    need_black: "Choose the black computer player.", need_white: "Choose the white computer player.",
    renju_first: "Under renju black moves first.", depth: "depth", score: "score", nodes: "nodes", nps: "nodes/s",
    line: "best line", copied: "Link copied: {u}", no_games: "No saved games yet.", ongoing: "unfinished",
    friend: "Play a friend online", online_you: "You play {c}.", online_watch: "You are watching.",
    link_white: "White's link: send it to your friend", link_black: "Black's link (yours)", link_watch: "Spectators' link",
    copy: "Copy", copied_plain: "Copied.", waiting: "Waiting for {c}…", takeback: "Ask to take back",
    offer_draw: "Offer a draw", online_rematch: "Rematch", accept: "Accept", decline: "Decline",
    asks_takeback: "Your opponent asks to take back a move.", asked_takeback: "Takeback asked: waiting for your opponent.",
    offers_draw: "Your opponent offers a draw.", offered_draw: "Draw offered: waiting for your opponent.",
    wants_rematch: "Your opponent wants a rematch.", asked_rematch: "Rematch asked: waiting for your opponent.",
    agreed: "Draw agreed.", e_not_a_player: "You are watching: only the two players can move.",
    e_no_offer: "There is no offer to answer.", e_online: "Not available in an online game.",
    e_too_many_games: "You have too many unfinished online games: finish some first.", e_wait: "Not your turn.",
    e_storage: "The server could not save that; nothing changed. Try again in a moment.",
    e_rate_limited: "Too many new games from here; wait a little and try again.",
    e_too_many_connections: "The server has too many connections; try again in a moment.",
    closed: "Connection closed: {r}", reconnecting: "Connection lost; reconnecting…",
    clock: "Clock (online)", no_clock: "none", timeout: "{l} ran out of time: {c} wins.",
  },
  vi: {
    nav_new: "Ván mới", nav_games: "Các ván đã lưu", home_title: "Cờ caro, Gomoku, Renju và tic-tac-toe",
    mode: "Chế độ", mode_hh: "Người với người", mode_hc: "Người với máy", mode_ch: "Máy với người",
    mode_cc: "Máy với máy", board: "Bàn cờ", size: "Kích thước", custom: "tùy chọn", rows: "Số hàng", columns: "Số cột",
    k: "Số quân liên tiếp để thắng", rule: "Luật", opening: "Khai cuộc", free: "tự do", first: "Đi trước",
    black: "đen (X)", white: "trắng (O)", computer: "Máy", black_player: "Máy cầm quân đen",
    white_player: "Máy cầm quân trắng", time: "Thời gian mỗi nước", go: "Bắt đầu", more: "Mở mã thế cờ hoặc tệp PSQ",
    code: "Mã thế cờ", open: "Mở", import: "Nhập PSQ", undo: "Đi lại", redo: "Đi tiếp", resign: "Chịu thua",
    stop: "Dừng", new_game: "Ván mới", rematch: "Đấu lại (đổi màu)", pause: "Tạm dừng", resume: "Tiếp tục",
    step: "Từng nước", speed: "Độ trễ", theme: "Quân cờ", theme_stones: "đen và trắng", numbers: "Số thứ tự nước đi",
    off: "tắt", last10: "10 nước cuối", all: "tất cả", coords: "Tọa độ", sound: "Âm thanh", export: "Xuất PSQ",
    link: "Liên kết thế cờ", keys: "Phím: ← → xem lại từng nước, Home / End về đầu và cuối; u đi lại, r đi tiếp, ? trợ giúp.",
    saved_games: "Các ván đã lưu", moves: "Số nước", result: "Kết quả", date: "Ngày", not_found: "Không có trang này.",
    human: "người", to_move: "Lượt của {c}", you_to_move: "Đến lượt bạn ({c})", thinking: "{p} ({c}) đang suy nghĩ…",
    paused: "Tạm dừng. Lượt của {c}.", wins_five: "{c} thắng với {k} quân liên tiếp!", draw: "Hòa: bàn cờ đã kín.", draw_stuck: "Hòa: quân Đen không còn nước đi hợp lệ (mọi điểm trống đều bị cấm).",
    resigned: "{l} chịu thua: {c} thắng.", foul: "Đen đi vào điểm cấm: trắng thắng.",
    failed: "{c} thắng: {r}", viewing: "Đang xem nước {n} / {m} (End để trở lại ván cờ)",
    c_black: "Đen", c_white: "Trắng",
    e_occupied: "Ô này đã có quân.", e_forbidden: "Điểm cấm của quân đen (luật renju): {r}",
    e_not_your_turn: "Chưa đến lượt bạn: máy đang đi.", e_game_over: "Ván cờ đã kết thúc.",
    e_stale: "Ván cờ đã thay đổi; bàn cờ vừa được cập nhật.", e_nothing_to_undo: "Không có nước nào để đi lại.",
    e_nothing_to_redo: "Không có nước nào để đi tiếp.", e_busy: "Máy chủ đang bận; hãy thử lại sau giây lát.",
    e_network: "Không kết nối được máy chủ: {r}", e_nobody_to_resign: "Chỉ người chơi mới có thể chịu thua.",
    need_size: "Số hàng và số cột phải từ 3 đến 60.", need_k: "Số quân để thắng phải từ 3 đến 10 và vừa bàn cờ.",
    need_black: "Hãy chọn máy cầm quân đen.", need_white: "Hãy chọn máy cầm quân trắng.",
    renju_first: "Theo luật renju, quân đen đi trước.", depth: "độ sâu", score: "điểm", nodes: "nút", nps: "nút/giây",
    line: "biến chính", copied: "Đã chép liên kết: {u}", no_games: "Chưa có ván nào được lưu.", ongoing: "chưa xong",
    friend: "Chơi với bạn qua mạng", online_you: "Bạn cầm quân {c}.", online_watch: "Bạn đang xem.",
    link_white: "Liên kết quân trắng: gửi cho bạn của bạn", link_black: "Liên kết quân đen (của bạn)", link_watch: "Liên kết cho người xem",
    copy: "Chép", copied_plain: "Đã chép.", waiting: "Đang chờ {c}…", takeback: "Xin đi lại",
    offer_draw: "Cầu hòa", online_rematch: "Đấu lại", accept: "Đồng ý", decline: "Từ chối",
    asks_takeback: "Đối thủ xin đi lại một nước.", asked_takeback: "Đã xin đi lại: đang chờ đối thủ.",
    offers_draw: "Đối thủ cầu hòa.", offered_draw: "Đã cầu hòa: đang chờ đối thủ.",
    wants_rematch: "Đối thủ muốn đấu lại.", asked_rematch: "Đã mời đấu lại: đang chờ đối thủ.",
    agreed: "Hòa theo thỏa thuận.", e_not_a_player: "Bạn đang xem: chỉ hai người chơi mới được đi.",
    e_no_offer: "Không có lời đề nghị nào để trả lời.", e_online: "Không dùng được trong ván chơi qua mạng.",
    e_too_many_games: "Bạn có quá nhiều ván qua mạng chưa xong: hãy chơi xong vài ván trước.", e_wait: "Chưa đến lượt bạn.",
    e_storage: "Máy chủ chưa lưu được; không có gì thay đổi. Hãy thử lại sau giây lát.",
    e_rate_limited: "Có quá nhiều ván mới từ đây; hãy đợi một chút rồi thử lại.",
    e_too_many_connections: "Máy chủ có quá nhiều kết nối; hãy thử lại sau giây lát.",
    closed: "Kết nối bị đóng: {r}", reconnecting: "Mất kết nối; đang kết nối lại…",
    clock: "Đồng hồ (qua mạng)", no_clock: "không", timeout: "{l} hết giờ: {c} thắng.",
  },
};
let lang = localStorage.getItem("caro.lang") || ((navigator.language || "en").startsWith("vi") ? "vi" : "en");
if (!TEXT[lang]) lang = "en";

function t(key, args) {
  let s = (TEXT[lang] && TEXT[lang][key]) || TEXT.en[key] || key;
  for (const [k, v] of Object.entries(args || {})) s = s.split("{" + k + "}").join(v);
  return s;
}
function applyText() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  $("lang").value = lang;
  if (current) render();
}
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- api
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw { code: "network", error: String(e) };
  }
  const data = await res.json().catch(() => ({ error: res.statusText, code: "bad_response" }));
  if (!res.ok) throw data;
  return data;
}
function errorText(e) {
  if (e.code === "not_your_turn" && current && current.online) return t("e_wait");
  const key = "e_" + (e.code || "");
  if (TEXT.en[key]) return t(key, { r: e.error || "" });
  return e.error || String(e);
}

// ---------------------------------------------------------------- router
function go(path) {
  history.pushState(null, "", path);
  route();
}
window.addEventListener("popstate", route);
// Leaving the page closes its live connection (a page kept in the
// back-forward cache would otherwise hold one of the browser's few
// connections to the server); coming back reopens it.
window.addEventListener("pagehide", closeEvents);
window.addEventListener("pageshow", (ev) => { if (ev.persisted) route(); });
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-link]");
  if (a && !ev.ctrlKey && !ev.metaKey) { ev.preventDefault(); go(a.getAttribute("href")); }
});
function show(page) {
  for (const id of ["home-page", "game-page", "games-page", "missing-page"]) $(id).hidden = id !== page;
}
async function route() {
  closeEvents();
  const path = location.pathname;
  let m;
  if (path === "/") { show("home-page"); setupHome(); }
  else if (path === "/games") { show("games-page"); loadGames(); }
  else if ((m = path.match(/^\/game\/(\d+)$/))) { show("game-page"); openGame(Number(m[1])); }
  else if ((m = path.match(/^\/p\/([A-Za-z0-9._-]+)$/))) { openCode(m[1]); }
  else show("missing-page");
}

// ---------------------------------------------------------------- home
let players = null;
async function setupHome() {
  if (!players) {
    try { players = await api("GET", "/api/players"); } catch (e) { $("setup-error").textContent = errorText(e); return; }
    for (const sel of [$("black-player"), $("white-player")]) {
      sel.innerHTML = "";
      for (const p of players) {
        const o = document.createElement("option");
        o.value = p.name; o.textContent = p.name;
        sel.appendChild(o);
      }
    }
    $("black-player").value = "caro:5";
    $("white-player").value = "caro:5";
  }
  homeVisibility();
}
function mode() { return document.querySelector("input[name=mode]:checked").value; }
function homeVisibility() {
  const m = mode();
  $("black-player-label").hidden = !(m === "ch" || m === "cc");
  $("white-player-label").hidden = !(m === "hc" || m === "cc");
  $("computers").hidden = m === "hh";
  $("custom-size").hidden = $("preset").value !== "custom";
}
document.querySelectorAll("input[name=mode]").forEach((r) => r.addEventListener("change", homeVisibility));
$("preset").addEventListener("change", homeVisibility);
$("rule").addEventListener("change", () => { if ($("rule").value === "renju") $("first").value = "black"; });

// The board settings of the home page, or null after showing what is wrong.
function boardSettings(problems) {
  let width, height;
  if ($("preset").value === "custom") { width = Number($("width").value); height = Number($("height").value); }
  else [width, height] = $("preset").value.split("x").map(Number);
  if (!(width >= 3 && width <= 60 && height >= 3 && height <= 60) || !Number.isInteger(width) || !Number.isInteger(height)) problems.push(t("need_size"));
  const kText = $("k").value.trim();
  const k = kText === "" ? 0 : Number(kText);
  if (kText !== "" && !(Number.isInteger(k) && k >= 3 && k <= 10 && k <= Math.max(width, height))) problems.push(t("need_k"));
  if ($("rule").value === "renju" && $("first").value !== "black") problems.push(t("renju_first"));
  const body = { width, height, rule: $("rule").value, opening: $("opening").value, first: $("first").value };
  if (k) body.k = k;
  return body;
}
// Play a friend: the creator sits in black's seat and is shown the links.
$("friend").addEventListener("click", async () => {
  const problems = [];
  const body = boardSettings(problems);
  const [clockSeconds, increment] = $("clock").value.split("+").map(Number);
  if (clockSeconds) { body.clock_seconds = clockSeconds; body.increment_seconds = increment; }
  if (problems.length) { $("setup-error").textContent = problems.join("\n"); return; }
  $("setup-error").textContent = "";
  try {
    const made = await api("POST", "/api/online", body);
    localStorage.setItem("caro.seat." + made.id, made.black.token);
    localStorage.setItem("caro.links." + made.id, JSON.stringify({
      black: location.origin + made.black.url, white: location.origin + made.white.url,
      watch: location.origin + made.spectator,
    }));
    go("/game/" + made.id);
  } catch (e) { $("setup-error").textContent = errorText(e); }
});

$("setup").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const problems = [];
  let width, height;
  if ($("preset").value === "custom") { width = Number($("width").value); height = Number($("height").value); }
  else [width, height] = $("preset").value.split("x").map(Number);
  if (!(width >= 3 && width <= 60 && height >= 3 && height <= 60) || !Number.isInteger(width) || !Number.isInteger(height)) problems.push(t("need_size"));
  const kText = $("k").value.trim();
  const k = kText === "" ? 0 : Number(kText);
  if (kText !== "" && !(Number.isInteger(k) && k >= 3 && k <= 10 && k <= Math.max(width, height))) problems.push(t("need_k"));
  const m = mode();
  const black = m === "ch" || m === "cc" ? $("black-player").value : "human";
  const white = m === "hc" || m === "cc" ? $("white-player").value : "human";
  if (!black) problems.push(t("need_black"));
  if (!white) problems.push(t("need_white"));
  if ($("rule").value === "renju" && $("first").value !== "black") problems.push(t("renju_first"));
  if (problems.length) { $("setup-error").textContent = problems.join("\n"); return; }
  $("setup-error").textContent = "";
  const body = { black, white, width, height, rule: $("rule").value, opening: $("opening").value,
    first: $("first").value, time_ms: Number($("time").value) };
  if (k) body.k = k;
  try {
    const view = await api("POST", "/api/games", body);
    go("/game/" + view.id);
  } catch (e) { $("setup-error").textContent = errorText(e); }
});
$("code-form").addEventListener("submit", (ev) => { ev.preventDefault(); openCode($("code").value.trim()); });
$("psq-file").addEventListener("change", async () => {
  const f = $("psq-file").files[0];
  if (!f) return;
  try {
    const text = await f.text();
    const res = await fetch("/api/import", { method: "POST", headers: { "Content-Type": "text/plain" }, body: text });
    const data = await res.json();
    if (!res.ok) throw data;
    go("/game/" + data.id);
  } catch (e) { $("setup-error").textContent = errorText(e); }
});
async function openCode(code) {
  try {
    const view = await api("POST", "/api/games", { code });
    history.replaceState(null, "", "/game/" + view.id);
    route();
  } catch (e) { show("home-page"); setupHome(); $("setup-error").textContent = errorText(e); }
}

// ---------------------------------------------------------------- games list
async function loadGames() {
  const body = $("games-table").querySelector("tbody");
  body.innerHTML = "";
  let list;
  try { list = await api("GET", "/api/games"); } catch (e) { body.textContent = errorText(e); return; }
  if (!list.length) { const tr = body.insertRow(); tr.insertCell().textContent = t("no_games"); return; }
  for (const g of list) {
    const tr = body.insertRow();
    const a = document.createElement("a");
    a.href = "/game/" + g.id; a.textContent = g.id; a.dataset.link = "";
    tr.insertCell().appendChild(a);
    tr.insertCell().textContent = g.black === "human" ? t("human") : g.black;
    tr.insertCell().textContent = g.white === "human" ? t("human") : g.white;
    tr.insertCell().textContent = g.rule + (g.k !== 5 ? " k=" + g.k : "");
    tr.insertCell().textContent = g.width + "×" + g.height;
    tr.insertCell().textContent = g.ply;
    tr.insertCell().textContent = g.result ? (g.result === "draw" ? "½–½" : t("c_" + g.result)) : t("ongoing");
    tr.insertCell().textContent = new Date(g.updated * 1000).toLocaleString(lang);
  }
}

// ---------------------------------------------------------------- game
let current = null;      // the latest view from the server
let viewPly = null;      // browsing history: number of moves shown, or null for live
let events = null;
let socket = null;       // an online game's WebSocket
let watching = false;    // opened with ?watch: never use a stored seat
let hover = null;
let lastSoundPly = -1;
let lastResult = null;
const prefs = {
  theme: localStorage.getItem("caro.theme") || "stones",
  numbers: localStorage.getItem("caro.numbers") || "last",
  coords: localStorage.getItem("caro.coords") !== "off",
  sound: localStorage.getItem("caro.sound") !== "off",
};

function closeEvents() {
  if (events) { events.close(); events = null; }
  if (socket) { const s = socket; socket = null; s.close(); }
  current = null;
}

async function openGame(id) {
  viewPly = null; lastSoundPly = -1; lastResult = null;
  message("");
  const query = new URLSearchParams(location.search);
  watching = query.has("watch");
  if (query.get("seat")) {
    // A seat link: keep the token here, out of the address bar.
    localStorage.setItem("caro.seat." + id, query.get("seat"));
    history.replaceState(null, "", "/game/" + id);
  }
  let view;
  try { view = await api("GET", "/api/games/" + id); } catch (e) { message(errorText(e)); return; }
  if (view.online) { view.you = "spectator"; accept(view, true); openSocket(id); return; }
  accept(view, true);
  events = new EventSource("/api/games/" + id + "/events");
  events.addEventListener("game", (ev) => { try { accept(JSON.parse(ev.data)); } catch (_) { /* ignore a bad frame */ } });
}

// An online game: one WebSocket carries the game both ways.
function openSocket(id) {
  const token = watching ? null : localStorage.getItem("caro.seat." + id);
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/games/" + id + "/ws" +
    (token ? "?seat=" + encodeURIComponent(token) : "");
  const ws = new WebSocket(url);
  socket = ws;
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch (_) { return; }
    if (m.t === "game") { accept(m); if (!current || !current.result) message(""); }
    else if (m.t === "error") message(errorText(m));
    else if (m.t === "rematch") {
      localStorage.setItem("caro.seat." + m.id, m.seat);
      go("/game/" + m.id);
    }
  };
  ws.onclose = (ev) => {
    if (socket !== ws) return; // closed on purpose
    socket = null;
    if (ev.code === 1007 || ev.code === 1008 || ev.code === 1009) { message(t("closed", { r: ev.reason })); return; }
    message(t("reconnecting"));
    setTimeout(() => { if (!socket && current && current.id === id && !$("game-page").hidden) openSocket(id); }, 1000);
  };
}
function send(command) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(command));
  else message(t("reconnecting"));
}
function isOnline() { return !!(current && current.online); }
function opponent(c) { return c === "black" ? "white" : "black"; }

let clockAt = 0;         // when the latest clock reading arrived
function accept(view, first) {
  if (current && view.id === current.id && view.version < current.version) return;
  clockAt = performance.now();
  const before = current;
  current = view;
  if (!first && before && before.id === view.id) {
    if (view.ply > before.ply) sound(view.result ? null : "move");
  }
  if (view.result && !lastResult && !first) {
    const humans = [view.black, view.white].filter((s) => s === "human").length;
    const humanWon = view.result.winner && view[view.result.winner] === "human";
    sound(humans === 1 && !humanWon && view.result.winner ? "loss" : "win");
  }
  lastResult = view.result;
  render();
}

function isComputer(color) { return current && current[color] !== "human"; }
function colorName(c) { return t("c_" + c); }

function statusText() {
  const v = current;
  if (viewPly !== null) return t("viewing", { n: viewPly, m: v.moves.length });
  const r = v.result;
  if (r) {
    const c = r.winner ? colorName(r.winner) : "";
    switch (r.reason) {
      case "five": return t("wins_five", { c, k: v.k });
      case "draw": return t(v.moves.length >= v.width * v.height ? "draw" : "draw_stuck");
      case "agreed": return t("agreed");
      case "time": return t("timeout", { c, l: colorName(r.winner === "black" ? "white" : "black") });
      case "resign": return t("resigned", { c, l: colorName(r.winner === "black" ? "white" : "black") });
      case "foul": return t("foul");
      default: return t("failed", { c, r: r.message });
    }
  }
  const c = colorName(v.to_move);
  if (v.online && (v.you === "black" || v.you === "white")) {
    return v.to_move === v.you ? t("you_to_move", { c }) : t("waiting", { c });
  }
  if (v.paused) return t("paused", { c });
  if (isComputer(v.to_move)) return t("thinking", { p: v[v.to_move], c });
  const humans = [v.black, v.white].filter((s) => s === "human").length;
  return humans === 1 ? t("you_to_move", { c }) : t("to_move", { c });
}

function render() {
  const v = current;
  if (!v) return;
  const status = statusText();
  $("status").textContent = status;
  $("status").dataset.result = v.result ? (v.result.winner || "draw") : "";
  $("players").textContent = colorName("black") + ": " + (v.black === "human" ? t("human") : v.black) + " · " +
    colorName("white") + ": " + (v.white === "human" ? t("human") : v.white) + " · " + v.width + "×" + v.height +
    " · " + v.rule + (v.k !== 5 ? " k=" + v.k : "");
  const cc = isComputer("black") && isComputer("white");
  $("cc-controls").hidden = !cc;
  $("pause").textContent = v.paused ? t("resume") : t("pause");
  $("speed").value = v.delay_ms;
  $("stop").hidden = !(v.busy && !v.result);
  $("resign").disabled = !!v.result || cc;
  $("undo").disabled = v.moves.length === 0;
  $("redo").disabled = v.redo.length === 0;
  $("psq-link").href = "/api/games/" + v.id + "/psq";
  renderOnline();
  const th = $("thinking");
  if (v.thinking && v.busy) {
    th.hidden = false;
    th.textContent = `${colorName(v.thinking.color)}: ${t("depth")} ${v.thinking.depth} · ${t("score")} ${v.thinking.score} · ` +
      `${t("nodes")} ${v.thinking.nodes} · ${t("nps")} ${v.thinking.nps}\n${t("line")}: ${v.thinking.pv.join(" ")}`;
  } else th.hidden = true;
  drawBoard();
}

function renderOnline() {
  const v = current;
  const online = !!v.online;
  $("online").hidden = !online;
  for (const id of ["undo", "redo", "new", "rematch"]) $(id).hidden = online;
  $("resign").hidden = false;
  if (!online) return;
  const seated = v.you === "black" || v.you === "white";
  $("seat-info").textContent = seated ? t("online_you", { c: colorName(v.you) }) : t("online_watch");
  let links = null;
  try { links = JSON.parse(localStorage.getItem("caro.links." + v.id) || "null"); } catch (_) { links = null; }
  $("invite").hidden = !(links && seated && !v.result);
  if (links) { $("link-white").value = links.white; $("link-black").value = links.black; $("link-watch").value = links.watch; }
  $("online-buttons").hidden = !seated;
  $("resign").hidden = !seated;
  $("takeback").hidden = !!v.result;
  $("draw").hidden = !!v.result;
  $("online-rematch").hidden = !v.result;
  renderClocks();
  const o = v.offers || {};
  let text = "", yes = null, no = null;
  if (o.takeback && seated) {
    if (o.takeback.by === v.you) text = t("asked_takeback");
    else { text = t("asks_takeback"); yes = { t: "takeback-accept", ply: o.takeback.ply }; no = { t: "takeback-decline" }; }
  } else if (o.draw && seated && !v.result) {
    if (o.draw === v.you) text = t("offered_draw");
    else { text = t("offers_draw"); yes = { t: "draw-accept" }; }
  } else if (o.rematch && o.rematch.length && seated && v.result) {
    if (o.rematch.includes(v.you)) text = t("asked_rematch");
    else { text = t("wants_rematch"); yes = { t: "rematch" }; }
  }
  $("offer").hidden = !text;
  $("offer-text").textContent = text + " ";
  $("offer-yes").hidden = !yes;
  $("offer-no").hidden = !no;
  offerAnswers = { yes, no };
}
let offerAnswers = { yes: null, no: null };
function clockText(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
}
// The server keeps the time; the page only counts down between readings.
function renderClocks() {
  const c = current && current.online && current.clock;
  $("clocks").hidden = !c;
  if (!c) return;
  const passed = performance.now() - clockAt;
  for (const color of ["black", "white"]) {
    const el = $("clock-" + color);
    const running = c.running === color;
    el.textContent = colorName(color) + " " + clockText(c[color + "_ms"] - (running ? passed : 0));
    el.classList.toggle("running", running);
  }
}
setInterval(() => { if (current && current.clock && current.clock.running) renderClocks(); }, 250);
$("offer-yes").addEventListener("click", () => { if (offerAnswers.yes) send(offerAnswers.yes); });
$("offer-no").addEventListener("click", () => { if (offerAnswers.no) send(offerAnswers.no); });
$("takeback").addEventListener("click", () => { if (current) send({ t: "takeback", ply: current.ply }); });
$("draw").addEventListener("click", () => send({ t: "draw-offer" }));
$("online-rematch").addEventListener("click", () => send({ t: "rematch" }));
document.querySelectorAll("button.copy").forEach((b) => b.addEventListener("click", async () => {
  const input = $(b.dataset.for);
  try { await navigator.clipboard.writeText(input.value); } catch (_) { input.select(); document.execCommand("copy"); }
  message(t("copied_plain"));
}));

function message(text) { $("message").textContent = text; }

async function intent(path, body) {
  if (!current) return;
  if (current.online) {
    if (path === "move") send({ t: "move", ply: body.ply, x: body.x, y: body.y });
    else if (path === "resign") send({ t: "resign" });
    return;
  }
  try {
    accept(await api("POST", "/api/games/" + current.id + "/" + path, body === undefined ? {} : body));
    message("");
  } catch (e) {
    message(errorText(e));
    if (e.code === "stale") openGameRefresh();
  }
}
async function openGameRefresh() {
  try { accept(await api("GET", "/api/games/" + current.id)); } catch (_) { /* keep what we have */ }
}

$("undo").addEventListener("click", () => { viewPly = null; intent("undo", { ply: current.ply }); });
$("redo").addEventListener("click", () => { viewPly = null; intent("redo", { ply: current.ply }); });
$("resign").addEventListener("click", () => intent("resign", {}));
$("stop").addEventListener("click", () => intent("stop"));
$("pause").addEventListener("click", () => intent("pause", { paused: !current.paused }));
$("step").addEventListener("click", () => intent("step"));
$("speed").addEventListener("change", () => intent("speed", { delay_ms: Number($("speed").value) }));
$("new").addEventListener("click", () => rematch(false));
$("rematch").addEventListener("click", () => rematch(true));
async function rematch(swap) {
  try { const v = await api("POST", "/api/games/" + current.id + "/rematch", { swap }); go("/game/" + v.id); }
  catch (e) { message(errorText(e)); }
}
$("code-link").addEventListener("click", async (ev) => {
  ev.preventDefault();
  if (!current || !current.code) return;
  const url = location.origin + "/p/" + current.code;
  try { await navigator.clipboard.writeText(url); } catch (_) { /* show it anyway */ }
  message(t("copied", { u: url }));
});
$("help-button").addEventListener("click", () => { $("help").hidden = !$("help").hidden; });
for (const id of ["theme", "numbers"]) {
  $(id).value = prefs[id];
  $(id).addEventListener("change", () => { prefs[id] = $(id).value; localStorage.setItem("caro." + id, prefs[id]); drawBoard(); });
}
for (const id of ["coords", "sound"]) {
  $(id).checked = prefs[id];
  $(id).addEventListener("change", () => { prefs[id] = $(id).checked; localStorage.setItem("caro." + id, prefs[id] ? "on" : "off"); drawBoard(); });
}
$("lang").addEventListener("change", () => { lang = $("lang").value; localStorage.setItem("caro.lang", lang); applyText(); });

document.addEventListener("keydown", (ev) => {
  if ($("game-page").hidden || !current) return;
  if (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName)) return;
  const n = current.moves.length;
  const shown = viewPly === null ? n : viewPly;
  let next = null;
  switch (ev.key) {
    case "ArrowLeft": next = Math.max(0, shown - 1); break;
    case "ArrowRight": next = Math.min(n, shown + 1); break;
    case "Home": next = 0; break;
    case "End": next = n; break;
    case "u":
      // Online, undo is a takeback request to the opponent.
      if (current.online) { if (!$("online-buttons").hidden && !$("takeback").hidden) $("takeback").click(); }
      else $("undo").click();
      return;
    case "r": $("redo").click(); return;
    case "?": $("help").hidden = !$("help").hidden; return;
    case "Escape": $("help").hidden = true; return;
    default: return;
  }
  ev.preventDefault();
  viewPly = next === n ? null : next;
  render();
});

// ---------------------------------------------------------------- board
const canvas = $("board");
let geom = null;

function columnName(x) {
  let s = "";
  x += 1;
  while (x > 0) { const r = (x - 1) % 26; s = String.fromCharCode(97 + r) + s; x = Math.floor((x - 1) / 26); }
  return s;
}

function drawBoard() {
  const v = current;
  if (!v || $("game-page").hidden) return;
  const wrap = $("board-wrap");
  const availW = Math.max(120, wrap.clientWidth);
  const availH = Math.max(120, window.innerHeight - wrap.getBoundingClientRect().top - 12);
  const margin = prefs.coords ? 1.2 : 0.6;
  const cell = Math.max(4, Math.min(availW / (v.width - 1 + 2 * margin), Math.max(availH, 300) / (v.height - 1 + 2 * margin)));
  const cssW = Math.floor(cell * (v.width - 1 + 2 * margin));
  const cssH = Math.floor(cell * (v.height - 1 + 2 * margin));
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = cssW + "px";
  canvas.style.height = cssH + "px";
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const ox = cell * margin, oy = cell * margin;
  geom = { cell, ox, oy };
  const px = (x) => ox + x * cell, py = (y) => oy + y * cell;
  const xo = prefs.theme === "xo";

  ctx.fillStyle = xo ? "#fdfdf8" : "#dcb35c";
  ctx.fillRect(0, 0, cssW, cssH);
  ctx.strokeStyle = xo ? "#9bb" : "#5a4320";
  ctx.lineWidth = 1;
  ctx.beginPath();
  if (xo) {
    for (let x = 0; x <= v.width; x++) { ctx.moveTo(px(x - 0.5), py(-0.5)); ctx.lineTo(px(x - 0.5), py(v.height - 0.5)); }
    for (let y = 0; y <= v.height; y++) { ctx.moveTo(px(-0.5), py(y - 0.5)); ctx.lineTo(px(v.width - 0.5), py(y - 0.5)); }
  } else {
    for (let x = 0; x < v.width; x++) { ctx.moveTo(px(x), py(0)); ctx.lineTo(px(x), py(v.height - 1)); }
    for (let y = 0; y < v.height; y++) { ctx.moveTo(px(0), py(y)); ctx.lineTo(px(v.width - 1), py(y)); }
  }
  ctx.stroke();
  if (prefs.coords && cell >= 9) {
    ctx.fillStyle = "#4a3a20";
    ctx.font = `${Math.max(8, Math.min(14, cell * 0.42))}px system-ui, sans-serif`;
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    const edge = xo ? 0.95 : 0.75;
    for (let x = 0; x < v.width; x++) ctx.fillText(columnName(x), px(x), py(-edge));
    for (let y = 0; y < v.height; y++) ctx.fillText(String(v.height - y), px(-edge), py(y));
  }

  const shown = viewPly === null ? v.moves.length : viewPly;
  const other = (c) => (c === "black" ? "white" : "black");
  const numbersFrom = prefs.numbers === "all" ? 0 : prefs.numbers === "last" ? shown - 10 : shown + 1;
  for (let i = 0; i < shown; i++) {
    const [x, y] = v.moves[i];
    const color = i % 2 === 0 ? v.first : other(v.first);
    const r = cell * 0.45;
    if (xo) {
      ctx.lineWidth = Math.max(1.5, cell * 0.1);
      ctx.strokeStyle = color === "black" ? "#c62828" : "#1565c0";
      ctx.beginPath();
      if (color === "black") {
        const d = r * 0.7;
        ctx.moveTo(px(x) - d, py(y) - d); ctx.lineTo(px(x) + d, py(y) + d);
        ctx.moveTo(px(x) + d, py(y) - d); ctx.lineTo(px(x) - d, py(y) + d);
      } else ctx.arc(px(x), py(y), r * 0.72, 0, 2 * Math.PI);
      ctx.stroke();
    } else {
      ctx.beginPath();
      ctx.arc(px(x), py(y), r, 0, 2 * Math.PI);
      ctx.fillStyle = color === "black" ? "#111" : "#f8f8f8";
      ctx.fill();
      ctx.strokeStyle = "#222"; ctx.lineWidth = 1; ctx.stroke();
    }
    if (i >= numbersFrom && cell >= 14) {
      ctx.fillStyle = xo ? "#333" : color === "black" ? "#fff" : "#111";
      ctx.font = `${Math.floor(cell * (i >= 99 ? 0.3 : 0.38))}px system-ui, sans-serif`;
      ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillText(String(i + 1), px(x), py(y) + (xo ? cell * 0.3 : 0));
    }
  }
  // The last move shown.
  if (shown > 0) {
    const [x, y] = v.moves[shown - 1];
    ctx.strokeStyle = "#e53935"; ctx.lineWidth = Math.max(1.5, cell * 0.07);
    const s = cell * 0.5;
    ctx.strokeRect(px(x) - s, py(y) - s, 2 * s, 2 * s);
  }
  // The winning line.
  if (viewPly === null && v.result && v.result.line.length) {
    const l = v.result.line;
    ctx.strokeStyle = "rgba(229,57,53,0.85)"; ctx.lineWidth = Math.max(3, cell * 0.18); ctx.lineCap = "round";
    ctx.beginPath();
    ctx.moveTo(px(l[0][0]), py(l[0][1])); ctx.lineTo(px(l[l.length - 1][0]), py(l[l.length - 1][1]));
    ctx.stroke();
    ctx.lineCap = "butt";
  }
  // Renju: points forbidden to black.
  if (viewPly === null && v.forbidden.length && !isComputer("black")) {
    ctx.strokeStyle = "#d32f2f"; ctx.lineWidth = Math.max(1.5, cell * 0.08);
    const d = cell * 0.18;
    ctx.beginPath();
    for (const [x, y] of v.forbidden) {
      ctx.moveTo(px(x) - d, py(y) - d); ctx.lineTo(px(x) + d, py(y) + d);
      ctx.moveTo(px(x) + d, py(y) - d); ctx.lineTo(px(x) - d, py(y) + d);
    }
    ctx.stroke();
  }
  // Where a click would land.
  if (hover && viewPly === null && !v.result && !isComputer(v.to_move) && !(v.online && v.you !== v.to_move)) {
    ctx.globalAlpha = 0.35;
    ctx.beginPath();
    ctx.arc(px(hover.x), py(hover.y), cell * 0.4, 0, 2 * Math.PI);
    ctx.fillStyle = v.to_move === "black" ? "#111" : "#fff";
    ctx.fill();
    ctx.globalAlpha = 1;
  }
  canvas.dataset.ply = String(v.ply);
  canvas.dataset.version = String(v.version);
}

function pointAt(ev) {
  if (!geom || !current) return null;
  const rect = canvas.getBoundingClientRect();
  const x = Math.round((ev.clientX - rect.left - geom.ox) / geom.cell);
  const y = Math.round((ev.clientY - rect.top - geom.oy) / geom.cell);
  if (x < 0 || y < 0 || x >= current.width || y >= current.height) return null;
  return { x, y };
}
// For tests and tools: where a point is on screen.
window.caroPointCenter = (x, y) => {
  const rect = canvas.getBoundingClientRect();
  return { x: rect.left + geom.ox + x * geom.cell, y: rect.top + geom.oy + y * geom.cell };
};

canvas.addEventListener("click", (ev) => {
  const p = pointAt(ev);
  if (!p || !current) return;
  if (viewPly !== null) { viewPly = null; render(); return; }
  if (isOnline() && current.you !== "black" && current.you !== "white") { message(t("e_not_a_player")); return; }
  intent("move", { ply: current.ply, x: p.x, y: p.y });
});
canvas.addEventListener("mousemove", (ev) => {
  const p = pointAt(ev);
  if ((p && hover && p.x === hover.x && p.y === hover.y) || (!p && !hover)) return;
  hover = p;
  requestAnimationFrame(drawBoard);
});
canvas.addEventListener("mouseleave", () => { hover = null; requestAnimationFrame(drawBoard); });
window.addEventListener("resize", () => requestAnimationFrame(drawBoard));

// ---------------------------------------------------------------- sound
let audio = null;
function sound(kind) {
  if (!prefs.sound || !kind) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const notes = kind === "move" ? [[660, 0.05]] : kind === "win" ? [[523, 0.12], [659, 0.12], [784, 0.25]] : [[392, 0.15], [330, 0.15], [262, 0.3]];
    let at = audio.currentTime;
    for (const [freq, len] of notes) {
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = freq; osc.type = kind === "move" ? "triangle" : "sine";
      gain.gain.setValueAtTime(0.15, at); gain.gain.exponentialRampToValueAtTime(0.001, at + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(at); osc.stop(at + len);
      at += len;
    }
  } catch (_) { /* no audio: play on silently */ }
}

applyText();
route();
