// analysis-review.js: a whole game's review, the server's job: starting it
// (POST /api/games/ID/analysis), following it until it is done (GET, every
// 400 ms while it runs) and its latest answer.
//
//   const review = gameReview({ get, onChange, onError });
//   review.follow(view);    // a new game: its review, if it has one
//   review.start(id);       // review game `id` (again)
//   review.job;             // the latest answer, or null
//   review.stale(view);     // a finished review of fewer (or other) moves than the game has
//   review.marked();        // the plies to step through: the blunders and mistakes
//   review.stop();          // no more polling
//   canReview(view);        // whether the game can be reviewed now
//
// get() returns { view, gameId, destroyed } (analysis.js's state): an
// answer for another game than gameId is dropped. onChange() comes after
// each answer, onError(e) with a failed request's error.

import { api } from "/api.js";

/** An online game is reviewed once it is over (for spectators too). */
export function canReview(v) {
  return !!v && v.moves.length > 0 && !(v.online && !v.result);
}

/** A game's review (see the top of this file). */
export function gameReview({ get, onChange, onError }) {
  let job = null;           // the latest GET /analysis answer
  let pollTimer = null;

  function stop() { if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; } }
  async function poll(id) {
    stop();
    let s;
    try { s = await api("GET", "/api/games/" + id + "/analysis"); } catch (e) {
      const { gameId, destroyed } = get();
      if (gameId === id && !destroyed) { onError(e); if (e.code !== "not_found") pollTimer = setTimeout(() => poll(id), 2000); }
      return;
    }
    const { gameId, destroyed } = get();
    if (gameId !== id || destroyed) return;
    job = s;
    if (s.state === "running") pollTimer = setTimeout(() => poll(id), 400);
    onChange();
  }
  async function start(id) {
    try {
      const s = await api("POST", "/api/games/" + id + "/analysis", {});
      const { gameId, view } = get();
      if (gameId !== id) return;
      if (s && s.state) job = s;
      else job = { state: "running", done: 0, total: view.moves.length + 1, points: [], moves: [] };
      onChange();
      poll(id);
    } catch (e) { if (get().gameId === id) { onError(e); onChange(); } }
  }
  function follow(v) {
    job = null;
    stop();
    if (v.moves.length) poll(v.id);
  }
  // A finished review of fewer (or other) moves than the game has now.
  function stale(v) {
    return !!job && job.state === "done" && !!v &&
      (job.points || []).length !== v.moves.length + 1;
  }
  // The moves marked blunder or mistake (or inaccuracy when there are none).
  function marked() {
    const moves = job && job.state === "done" && Array.isArray(job.moves) ? job.moves : [];
    const bad = moves.filter((m) => m.mark === "blunder" || m.mark === "mistake");
    return (bad.length ? bad : moves.filter((m) => m.mark)).map((m) => m.ply);
  }

  return { get job() { return job; }, follow, start, stop, stale, marked };
}
