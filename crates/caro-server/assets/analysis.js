// analysis.js: the game page's analysis: a live analysis panel (evaluation
// bar, the engine's best three moves and their lines, drawn on the board as
// small lettered ghosts, never numbered like the game's stones), a whole
// game's analysis (a win-chance graph with the mistakes marked and the
// better move at each), and hints in games against the computer.
//
//   import { mountAnalysis } from '/analysis.js';   // (it uses /api.js and /i18n.js's texts)
//   const analysis = mountAnalysis({ panel, graph, board, getPosition, onJump, lang });
//   analysis.update();        // after every change of the game or of the move shown
//   analysis.setLang('vi');   // after a language change
//   analysis.analyseGame();   // start the game's analysis (the result dialog's "Analyse")
//   analysis.overlay();       // { ghosts, marks } for the board, if the page sets the board whole
//   analysis.destroy();       // leaving the game page
//   analysis.isOpen();        // whether the person opened the analysis (live panel or graph)
//
// getPosition() returns { view, ply }: the game's latest view from the server
// (with `you` set in an online game) and the number of its moves shown (the
// move browsed to, or all of them). It may also return the view itself.
// onJump(ply) asks the page to show the position after `ply` moves; lang is
// the language ("en" or "vi") or a function that returns the one in use;
// sideName(color), optional, names a side as the page does (X and O on an
// X and O board; without it the module decides the same way).
// The module draws into `panel` and `graph` itself; the board gets the ghost
// stones and marks through board.set({ ghosts, marks }).
//
// This file holds the panel: its state, its rendering and its wiring. The
// requests each have their file, with their state: analysis-live.js the live
// analysis's WebSocket and its reconnecting, analysis-review.js the game's
// review (its job, polled until done), analysis-hint.js hints. Then
// analysis-graph.js draws the review's graph, analysis-marks.js what goes on
// the board, analysis-words.js the percentages, letters and a score's words.
// The texts are in i18n.js.

import { pointName } from "/api.js";
import { TEXT } from "/i18n.js";
import { boardStyle } from "/prefs.js";
import { pct, letter, moverAt, scoreWords as scoreText } from "/analysis-words.js";
import { mountGraph } from "/analysis-graph.js";
import { boardOverlay } from "/analysis-marks.js";
import { liveAnalysis } from "/analysis-live.js";
import { gameReview, canReview } from "/analysis-review.js";
import { hintRequests, offersHints, canAskHint, personVsComputer } from "/analysis-hint.js";

const STYLE_HREF = "/analysis.css";

/**
 * Puts the analysis into the page (see the top of this file).
 * @returns {{update: Function, setLang: Function, analyseGame: Function, overlay: Function, destroy: Function, isOpen: Function}}
 */
export function mountAnalysis({ panel, graph, board, getPosition, onJump, lang, sideName }) {
  let langNow = typeof lang === "function" ? null : lang || "en";
  const currentLang = () => (typeof lang === "function" ? lang() : langNow) || "en";
  const word = (key) => (TEXT[currentLang()] || TEXT.en)[key] || TEXT.en[key] || key;
  // A side's name: X and O on an X and O board (as the page names them),
  // Black and White otherwise.
  const colorName = (c) => {
    if (typeof sideName === "function") return sideName(c);
    if (view && boardStyle(view) === "xo") return c === "white" ? "O" : "X";
    return word(c === "black" ? "an_black" : "an_white");
  };
  // Every text may name black's side as {b}.
  const t = (key, args) => {
    let s = word(key);
    for (const [k, v] of Object.entries({ b: colorName("black"), ...(args || {}) })) s = s.split("{" + k + "}").join(String(v));
    return s;
  };

  ensureStyle();

  // ------------------------------------------------------------ the panel
  panel.classList.add("an-panel");
  panel.setAttribute("aria-labelledby", "an-title");
  panel.innerHTML = `
    <h2 id="an-title" class="an-title"></h2>
    <div class="an-row">
      <button type="button" id="an-toggle" class="an-toggle" aria-pressed="false"></button>
      <button type="button" id="an-hint" class="an-hint" hidden></button>
      <button type="button" id="an-game" class="an-game" hidden></button>
    </div>
    <p id="an-live-note" class="an-note" hidden></p>
    <div id="an-live" class="an-live" hidden>
      <div class="an-bar-labels" aria-hidden="true"><span class="an-bar-b"></span><span class="an-bar-w"></span></div>
      <div id="an-bar" class="an-bar" role="meter" aria-valuemin="0" aria-valuemax="100" aria-valuenow="50">
        <div class="an-bar-black"></div>
      </div>
      <p id="an-side" class="an-side"></p>
      <ol id="an-lines" class="an-lines"></ol>
      <p id="an-stats" class="an-stats"></p>
    </div>
    <p id="an-hint-text" class="an-hint-text" role="status" aria-live="polite"></p>
    <div id="an-job" class="an-job" hidden>
      <label id="an-progress-label" class="an-progress-label" for="an-progress"></label>
      <progress id="an-progress" class="an-progress" max="1" value="0"></progress>
    </div>
    <div id="an-summary" class="an-summary"></div>
    <div id="an-nav" class="an-row an-nav" hidden>
      <button type="button" id="an-prev"></button><button type="button" id="an-next"></button>
    </div>
    <div id="an-detail" class="an-detail" aria-live="polite"></div>
    <p id="an-message" class="an-message" role="alert"></p>`;
  const el = (id) => panel.querySelector("#" + id);
  const toggle = el("an-toggle"), hintButton = el("an-hint"), gameButton = el("an-game");
  const liveBox = el("an-live"), liveNote = el("an-live-note"), bar = el("an-bar");
  const linesBox = el("an-lines"), stats = el("an-stats"), hintText = el("an-hint-text");
  const job = el("an-job"), progress = el("an-progress"), progressLabel = el("an-progress-label");
  const summary = el("an-summary"), detail = el("an-detail"), messageBox = el("an-message");
  const nav = el("an-nav"), prevButton = el("an-prev"), nextButton = el("an-next");

  if (graph) {
    graph.classList.add("an-graph");
    graph.hidden = true;
  }

  // ------------------------------------------------------------ state
  let view = null;          // the latest view
  let shown = 0;            // moves shown
  let gameId = null;
  let lastOverlay = "";
  let destroyed = false;
  let errorCode = null;     // the last error's code, translated at each render
  let preview = null;       // the live line drawn whole on the board (hovered or focused)

  // The requests, each with its own state: the live analysis's connection
  // (analysis-live.js), the game's review (analysis-review.js) and hints
  // (analysis-hint.js). They read the panel's state through `state`, ask
  // for a render after each change and report an error (or null when one is
  // over) through `note`.
  const state = () => ({ view, shown, gameId, destroyed });
  const note = (e) => { if (e) showError(e); else errorCode = null; };
  const live = liveAnalysis({
    get: state, onChange: render, onError: note,
    onClosed: () => { messageBox.textContent = t("an_closed"); },
  });
  const review = gameReview({ get: state, onChange: render, onError: note });
  const hints = hintRequests({ get: state, onChange: render, onError: note });

  // The graph (analysis-graph.js). Its element outlives this panel (the
  // page mounts one a game): its listeners go with `listening`.
  const listening = new AbortController();
  const drawGraph = graph
    ? mountGraph(graph, {
      t, lang: currentLang, jumpTo, signal: listening.signal,
      get: () => ({ view, shown, jobState: review.job, destroyed }),
    })
    : () => {};

  function read() {
    let p = getPosition ? getPosition() : null;
    if (p && !("view" in p) && Array.isArray(p.moves)) p = { view: p, ply: p.moves.length };
    const v = p && p.view ? p.view : null;
    const ply = v ? Math.max(0, Math.min(v.moves.length, Number.isInteger(p.ply) ? p.ply : v.moves.length)) : 0;
    return { v, ply };
  }

  const seated = (v) => !!v && v.online && (v.you === "black" || v.you === "white");
  const liveAllowed = (v) => !!v && !(seated(v) && !v.result);
  const name = (m) => (view && m ? pointName(m[0], m[1], view.height) : "");
  const lineText = (pv, max = 12) => {
    const names = (pv || []).slice(0, max).map(name);
    return names.join(" ") + ((pv || []).length > max ? " …" : "");
  };
  // A score's words (analysis-words.js), with this panel's texts and names.
  const scoreWords = (score, mover, chance) => scoreText(score, mover, chance, t, colorName);

  // ------------------------------------------------------------ rendering
  function renderText() {
    el("an-title").textContent = t("an_title");
    toggle.textContent = t("an_live");
    hintButton.textContent = t("an_hint");
    gameButton.textContent = review.stale(view) ? t("an_again") : t("an_game");
    liveNote.textContent = t("an_live_players");
    prevButton.textContent = t("an_prev");
    nextButton.textContent = t("an_next");
    bar.setAttribute("aria-label", t("an_bar"));
    linesBox.setAttribute("aria-label", t("an_lines"));
    if (graph) graph.setAttribute("aria-label", t("an_graph"));
  }

  function renderLive() {
    liveBox.hidden = !live.on;
    toggle.setAttribute("aria-pressed", String(live.on));
    const d = live.data;
    const chance = d ? pct(d.win_chance) : 50;
    bar.setAttribute("aria-valuenow", String(chance));
    bar.setAttribute("aria-valuetext", t("an_pct", { c: colorName("black"), p: chance }));
    bar.querySelector(".an-bar-black").style.width = chance + "%";
    liveBox.querySelector(".an-bar-b").textContent = t("an_pct", { c: colorName("black"), p: chance });
    liveBox.querySelector(".an-bar-w").textContent = t("an_pct", { c: colorName("white"), p: 100 - chance });
    bar.dataset.state = d ? "ready" : "waiting";
    const mover = view ? moverAt(view, live.ply < 0 ? shown : live.ply) : "black";
    const lines = d && Array.isArray(d.lines) ? d.lines : [];
    el("an-side").textContent = lines.length ? t("an_to_move", { c: colorName(mover) }) : "";
    // The items are kept and rewritten, so one focused keeps its focus.
    while (linesBox.children.length > lines.length) linesBox.lastElementChild.remove();
    while (linesBox.children.length < lines.length) linesBox.appendChild(lineItem(linesBox.children.length));
    lines.forEach((line, i) => {
      const li = linesBox.children[i];
      li.dataset.move = name(line.move);
      const [rank, move, score, chanceText, pv] = li.children;
      rank.className = "an-rank an-rank-" + mover;
      move.textContent = name(line.move);
      const words = scoreWords(line.score, mover, line.win_chance);
      score.textContent = words;
      chanceText.textContent = t("an_chance", { p: pct(line.win_chance) });
      pv.textContent = lineText(line.pv);
      li.setAttribute("aria-label", t("an_line_label", {
        i: letter(i), m: name(line.move), s: words, p: pct(line.win_chance), l: lineText(line.pv),
      }));
    });
    if (preview !== null && preview >= lines.length) preview = null;
    linesBox.dataset.count = String(d && Array.isArray(d.lines) ? d.lines.length : 0);
    const parts = [];
    if (live.state === "over") parts.push(t("an_over"));
    else if (d) {
      parts.push(t("an_depth", { d: d.depth }));
      parts.push(t("an_speed", { k: Math.round((Number(d.nps) || 0) / 1000).toLocaleString(currentLang()) }));
      parts.push(t("an_nodes", { n: Number(d.nodes || 0).toLocaleString(currentLang()) }));
      if (live.state === "done") parts.push(t("an_stopped"));
    } else if (live.on && live.state === "thinking") parts.push(t("an_waiting"));
    stats.textContent = parts.join(" · ");
  }

  // A line's item: hovered or focused, its whole line is drawn on the board.
  function lineItem(i) {
    const li = document.createElement("li");
    li.className = "an-line";
    li.tabIndex = 0;
    const rank = document.createElement("span");
    rank.textContent = letter(i);
    rank.setAttribute("aria-hidden", "true");
    const move = document.createElement("b");
    move.className = "an-move";
    const score = document.createElement("span");
    score.className = "an-score";
    const chanceText = document.createElement("span");
    chanceText.className = "an-chance";
    const pv = document.createElement("span");
    pv.className = "an-pv";
    li.append(rank, move, score, chanceText, pv);
    const on = () => { preview = i; pushOverlay(); };
    const off = () => { if (preview === i) { preview = null; pushOverlay(); } };
    li.addEventListener("mouseenter", on);
    li.addEventListener("focus", on);
    li.addEventListener("mouseleave", () => { if (document.activeElement !== li) off(); });
    li.addEventListener("blur", off);
    return li;
  }

  function renderHint() {
    const v = view;
    const hint = hints.hint;
    hintButton.hidden = !offersHints(v);
    hintButton.disabled = !canAskHint(v, shown) || hints.busy;
    if (hints.busy) { hintText.textContent = t("an_hint_wait"); return; }
    if (hint && v && hint.ply === v.moves.length && shown === v.moves.length) {
      const count = Math.max(Number(v.hints) || 0, hint.hints);
      hintText.textContent = t("an_hint_is", { m: name(hint.move), s: scoreWords(hint.score, moverAt(v, hint.ply), hint.win_chance) }) +
        " " + t("an_hints", { n: count });
      hintText.dataset.hints = String(count);
      hintText.dataset.move = name(hint.move);
    } else {
      const used = v ? Number(v.hints) || 0 : 0;
      hintText.textContent = used && personVsComputer(v) ? t("an_hints", { n: used }) : "";
      hintText.dataset.hints = String(used);
      delete hintText.dataset.move;
    }
  }

  function renderJob() {
    const v = view;
    const s = review.job;
    gameButton.hidden = !canReview(v) || (!!s && s.state === "done" && !review.stale(v));
    const running = !!s && s.state === "running";
    gameButton.disabled = running;
    job.hidden = !running;
    if (running) {
      const total = Math.max(1, Number(s.total) || 1);
      progress.max = total;
      progress.value = Math.min(total, Number(s.done) || 0);
      progressLabel.textContent = t("an_progress", { d: Number(s.done) || 0, n: total });
    }
    const points = s && Array.isArray(s.points) ? s.points : [];
    const moves = s && Array.isArray(s.moves) ? s.moves : [];
    if (s && s.state === "done" && moves.length) {
      const count = (color, mark) => moves.filter((m) => m.color === color && m.mark === mark).length;
      summary.textContent = "";
      const marks = ["blunder", "mistake", "inaccuracy"];
      const legend = document.createElement("div");
      legend.className = "an-legend";
      for (const mark of marks) {
        const dot = document.createElement("span");
        dot.className = "an-sum-dot an-pt-" + mark;
        dot.setAttribute("aria-hidden", "true");
        legend.append(dot, t("an_" + mark));
      }
      summary.appendChild(legend);
      for (const c of ["black", "white"]) {
        const row = document.createElement("div");
        row.dataset.color = c;
        row.append(colorName(c) + ":");
        for (const mark of marks) {
          const dot = document.createElement("span");
          dot.className = "an-sum-dot an-pt-" + mark;
          dot.setAttribute("aria-hidden", "true");
          const n = document.createElement("span");
          n.textContent = String(count(c, mark));
          n.setAttribute("aria-hidden", "true");
          const said = document.createElement("span");
          said.className = "an-sr";
          said.textContent = t("an_count", { n: count(c, mark), w: t("an_n_" + mark) });
          row.append(dot, n, said);
        }
        summary.appendChild(row);
      }
    } else summary.textContent = "";
    const marked = review.marked();
    nav.hidden = !marked.length;
    prevButton.disabled = !marked.some((p) => p < shown);
    nextButton.disabled = !marked.some((p) => p > shown);
    drawGraph(points, moves, s);
    renderDetail(moves, s);
  }

  function renderDetail(moves, s) {
    detail.textContent = "";
    delete detail.dataset.ply;
    if (!s || !moves.length || !view) return;
    if (shown === 0) { detail.textContent = t("an_pick"); return; }
    const m = moves.find((mv) => mv.ply === shown);
    if (!m) { if (s.state === "done") detail.textContent = t("an_stale"); return; }
    const head = document.createElement("strong");
    head.textContent = t("an_move", { n: m.ply, c: colorName(m.color), m: name(m.move) });
    const mark = document.createElement("span");
    mark.className = "an-mark an-mark-" + (m.mark || "good");
    mark.textContent = m.mark ? t("an_" + m.mark) : t("an_good");
    detail.append(head, " ", mark);
    if (m.mark) {
      detail.append(" · " + t("an_lost", { p: pct(m.loss) }));
    }
    if (m.best && !(m.best[0] === m.move[0] && m.best[1] === m.move[1]) && m.mark) {
      const better = document.createElement("div");
      better.className = "an-better";
      better.textContent = t("an_better", { m: name(m.best) });
      detail.appendChild(better);
      if (m.best_line && m.best_line.length) {
        const line = document.createElement("div");
        line.className = "an-pv";
        line.textContent = t("an_line", { l: lineText(m.best_line) });
        detail.appendChild(line);
      }
    }
    detail.dataset.ply = String(m.ply);
  }

  // The previous and next blunder or mistake (or inaccuracy when there are none).
  prevButton.addEventListener("click", () => {
    const before = review.marked().filter((p) => p < shown);
    if (before.length) jumpTo(before[before.length - 1]);
  });
  nextButton.addEventListener("click", () => {
    const after = review.marked().find((p) => p > shown);
    if (after !== undefined) jumpTo(after);
  });

  function jumpTo(ply) {
    if (!view || !onJump) return;
    onJump(Math.max(0, Math.min(view.moves.length, ply)));
  }
  // ------------------------------------------------------------ the board's overlay
  // The ghosts and marks (analysis-marks.js) for the position shown.
  function overlay() {
    return boardOverlay({
      view, shown, preview, hint: hints.hint,
      live: live.on, liveData: live.data, sentPly: live.ply, jobState: review.job,
    });
  }
  function pushOverlay() {
    const o = overlay();
    const key = JSON.stringify(o);
    if (key === lastOverlay) return;
    lastOverlay = key;
    if (board && typeof board.set === "function") board.set(o);
    panel.dataset.ghosts = String(o.ghosts.length);
    panel.dataset.marks = o.marks.map((mk) => mk.kind).join(" ");
  }

  function render() {
    if (destroyed) return;
    renderText();
    const allowed = liveAllowed(view);
    toggle.hidden = !allowed;
    liveNote.hidden = allowed || !view;
    renderLive();
    renderHint();
    renderJob();
    messageBox.textContent = errorCode ? errorText(errorCode) : "";
    pushOverlay();
  }

  function errorText(code) {
    const key = "an_e_" + code;
    if (TEXT.en[key]) return t(key);
    return t("an_e_other", { c: code });
  }
  function showError(e) {
    errorCode = (e && e.code) || "network";
    messageBox.textContent = errorText(errorCode);
  }

  // ------------------------------------------------------------ the buttons
  // The live analysis on and off, the game's review, a hint.
  toggle.addEventListener("click", () => {
    if (live.on) live.stop();
    else live.start();
    render();
  });
  async function analyseGame() {
    if (!view || !canReview(view)) return;
    errorCode = null;
    gameButton.disabled = true;
    await review.start(view.id);
  }
  gameButton.addEventListener("click", analyseGame);
  hintButton.addEventListener("click", hints.ask);

  // ------------------------------------------------------------ the page's calls
  function update() {
    if (destroyed) return;
    const { v, ply } = read();
    if (!v) return;
    const newGame = v.id !== gameId;
    view = v;
    shown = ply;
    if (newGame) {
      gameId = v.id;
      hints.forget();
      errorCode = null;
      // The panel stays on from game to game; the new position is sent below.
      live.forget();
      review.follow(v);
    }
    hints.moved(v.moves.length);
    if (live.on && !liveAllowed(v)) live.stop();
    if (live.on) live.send();
    render();
  }
  function setLang(l) {
    langNow = l;
    render();
  }
  function destroy() {
    destroyed = true;
    listening.abort();
    review.stop();
    live.stop();
    panel.innerHTML = "";
    if (graph) { graph.innerHTML = ""; graph.hidden = true; delete graph._an; }
    if (board && typeof board.set === "function") board.set({ ghosts: [], marks: [] });
  }

  update();
  // Whether the person opened the analysis: the live panel on, or a
  // game's analysis shown.
  const isOpen = () => live.on || !!(graph && !graph.hidden);
  return { update, setLang, analyseGame, overlay, destroy, isOpen };
}

function ensureStyle() {
  if (document.querySelector(`link[href="${STYLE_HREF}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = STYLE_HREF;
  document.head.appendChild(link);
}
