// analysis-marks.js: what the analysis draws on the board: the live
// analysis's candidates (lettered A, B, C…) or one line whole as small
// lettered ghost stones, a reviewed move's mark with the better move and its
// line, and a hint. Letters, never numbers beside the game's numbered stones.
//
//   board.set(boardOverlay({ view, shown, live, liveData, sentPly, preview, jobState, hint }));

import { other } from "/api.js";
import { letter, moverAt } from "/analysis-words.js";

/** The ghosts and marks for the position after `shown` moves of `view`. */
export function boardOverlay({ view, shown, live, liveData, sentPly, preview, jobState, hint }) {
  const ghosts = [];
  const marks = [];
  if (!view) return { ghosts, marks };
  const taken = new Set(view.moves.slice(0, shown).map(([x, y]) => y * view.width + x));
  // A line's moves as small lettered ghosts (a, b, c… in order), colours
  // alternating from `color`: letters, never numbers beside the game's
  // numbered stones.
  const lineGhosts = (pv, color, max) => {
    pv.slice(0, max).forEach((p, i) => {
      if (!p || taken.has(p[1] * view.width + p[0])) return;
      ghosts.push({ x: p[0], y: p[1], label: letter(i).toLowerCase(), color: i % 2 === 0 ? color : other(color) });
    });
  };
  if (live && liveData && Array.isArray(liveData.lines) && sentPly === shown) {
    const color = moverAt(view, shown);
    const line = preview !== null ? liveData.lines[preview] : null;
    if (line && Array.isArray(line.pv) && line.pv.length) lineGhosts(line.pv, color, 12);
    else {
      liveData.lines.slice(0, 5).forEach((l, i) => {
        if (l.move) ghosts.push({ x: l.move[0], y: l.move[1], label: letter(i), color });
      });
    }
  }
  const moves = jobState && Array.isArray(jobState.moves) ? jobState.moves : [];
  const m = moves.find((mv) => mv.ply === shown);
  if (m && m.mark && shown === Number(m.ply)) {
    marks.push({ x: m.move[0], y: m.move[1], kind: m.mark });
    if (m.best && !(m.best[0] === m.move[0] && m.best[1] === m.move[1])) {
      marks.push({ x: m.best[0], y: m.best[1], kind: "best" });
      // The better line, when the live lines are not on the board.
      if (!ghosts.length) lineGhosts(Array.isArray(m.best_line) && m.best_line.length ? m.best_line : [m.best], m.color, 6);
    }
  }
  if (hint && hint.ply === view.moves.length && shown === view.moves.length && hint.move) {
    marks.push({ x: hint.move[0], y: hint.move[1], kind: "hint" });
  }
  return { ghosts, marks };
}
