// analysis-graph.js: a game's analysis as a graph: black's win chance over
// the game, its mistakes as coloured dots and the position shown as a
// vertical line; click, hover or arrow keys move through the game.
//
//   const draw = mountGraph(graph, { t, lang, get, jumpTo, signal });
//   draw(points, moves, job);   // after each change (skipped when nothing changed)
//
// get() returns { view, shown, jobState, destroyed } (analysis.js's state),
// jumpTo(ply) shows a position, and `signal` removes the listeners (the
// graph element outlives one game's panel).

import { pct } from "/analysis-words.js";

/** Wires `graph` and returns the function that draws it. */
export function mountGraph(graph, { t, lang, get, jumpTo, signal }) {
  // The graph: one point per position, black's chance upwards, the 50% line,
  // the marks as coloured dots and the position shown as a vertical line.
  const SVG_NS = "http://www.w3.org/2000/svg";
  const W = 600, H = 150, PAD = 6;
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }
  let graphKey = null;
  function drawGraph(points, moves, s) {
    const { shown } = get();
    const key = [s, shown, lang()];
    if (graphKey && key.every((k, i) => k === graphKey[i])) return;
    graphKey = key;
    if (!points.length || !s || s.state === "none") { graph.hidden = true; graph.innerHTML = ""; delete graph._an; return; }
    graph.hidden = false;
    const n = Math.max(1, (s.state === "done" ? points.length : Number(s.total) || points.length) - 1);
    const x = (ply) => PAD + (ply / n) * (W - 2 * PAD);
    const y = (f) => PAD + (1 - Math.max(0, Math.min(1, Number(f) || 0))) * (H - 2 * PAD);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "an-svg", "aria-hidden": "true" });
    root.appendChild(svg("rect", { x: 0, y: 0, width: W, height: H, class: "an-g-white" }));
    const sorted = points.slice().sort((a, b) => a.ply - b.ply);
    const path = sorted.map((p, i) => (i ? "L" : "M") + x(p.ply).toFixed(1) + " " + y(p.win_chance).toFixed(1)).join(" ");
    const last = sorted[sorted.length - 1];
    root.appendChild(svg("path", {
      d: `${path} L${x(last.ply).toFixed(1)} ${H} L${x(sorted[0].ply).toFixed(1)} ${H} Z`, class: "an-g-black",
    }));
    root.appendChild(svg("line", { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: "an-g-half" }));
    root.appendChild(svg("path", { d: path, class: "an-g-curve" }));
    if (shown <= n) {
      root.appendChild(svg("line", { x1: x(shown), x2: x(shown), y1: 0, y2: H, class: "an-g-now" }));
    }
    graph.innerHTML = "";
    graph.appendChild(root);
    // The dots are HTML over the SVG so they stay round when it stretches.
    const dots = document.createElement("div");
    dots.className = "an-dots";
    const byPly = new Map(moves.map((m) => [m.ply, m]));
    // On a long game only the marked points and the one shown get a dot.
    const dense = sorted.length > 300;
    for (const p of sorted) {
      const mark = byPly.get(p.ply) && byPly.get(p.ply).mark;
      if (dense && !mark && p.ply !== shown) continue;
      const dot = document.createElement("span");
      dot.className = "an-pt" + (mark ? " an-pt-" + mark : "") + (p.ply === shown ? " an-pt-now" : "");
      dot.dataset.ply = String(p.ply);
      dot.style.left = (x(p.ply) / W * 100) + "%";
      dot.style.top = (y(p.win_chance) / H * 100) + "%";
      dots.appendChild(dot);
    }
    graph.appendChild(dots);
    graph.dataset.points = String(sorted.length);
    graph.dataset.ply = String(shown);
    graph.tabIndex = 0;
    graph.setAttribute("role", "slider");
    graph.setAttribute("aria-valuemin", "0");
    graph.setAttribute("aria-valuemax", String(n));
    graph.setAttribute("aria-valuenow", String(Math.min(shown, n)));
    const at = sorted.find((p) => p.ply === shown);
    graph.setAttribute("aria-valuetext", at
      ? (shown === 0 ? t("an_graph_start", { p: pct(at.win_chance) }) : t("an_graph_at", { n: shown, p: pct(at.win_chance) }))
      : String(shown));
    graph._an = { n, count: sorted.length };
  }

  graph.addEventListener("click", (ev) => {
    const info = graph._an;
    if (!info || get().destroyed) return;
    const rect = graph.getBoundingClientRect();
    const f = (ev.clientX - rect.left) / Math.max(1, rect.width);
    const px = f * W;
    const ply = Math.round(((px - PAD) / (W - 2 * PAD)) * info.n);
    jumpTo(Math.max(0, Math.min(info.count - 1, ply)));
  }, { signal });
  graph.addEventListener("mousemove", (ev) => {
    const info = graph._an;
    const { jobState, destroyed } = get();
    if (!info || !jobState || destroyed) return;
    const rect = graph.getBoundingClientRect();
    const ply = Math.max(0, Math.min(info.count - 1,
      Math.round(((((ev.clientX - rect.left) / Math.max(1, rect.width)) * W - PAD) / (W - 2 * PAD)) * info.n)));
    const p = (jobState.points || []).find((q) => q.ply === ply);
    if (p) graph.title = ply === 0 ? t("an_graph_start", { p: pct(p.win_chance) }) : t("an_graph_at", { n: ply, p: pct(p.win_chance) });
  }, { signal });
  graph.addEventListener("keydown", (ev) => {
    const info = graph._an;
    const { view, shown, destroyed } = get();
    if (!info || !view || destroyed) return;
    let next = null;
    if (ev.key === "ArrowLeft" || ev.key === "ArrowDown") next = shown - 1;
    else if (ev.key === "ArrowRight" || ev.key === "ArrowUp") next = shown + 1;
    else if (ev.key === "Home") next = 0;
    else if (ev.key === "End") next = info.count - 1;
    else if (ev.key === "PageUp") next = shown + 10;
    else if (ev.key === "PageDown") next = shown - 10;
    if (next === null) return;
    ev.preventDefault();
    ev.stopPropagation();
    jumpTo(Math.max(0, Math.min(info.count - 1, next)));
  }, { signal });

  return drawGraph;
}
