// analysis-hint.js: hints in a game against the computer: when one is
// offered, the request (POST /api/games/ID/hint) and the hint it brought.
//
//   const hints = hintRequests({ get, onChange, onError });
//   hints.ask();          // a hint for the game's latest position
//   hints.hint;           // { ply, move, score, win_chance, pv, hints }, or null
//   hints.busy;           // a request is under way
//   hints.moved(plies);   // the game now has `plies` moves: a hint for another position goes
//   hints.forget();       // a new game
//   offersHints(view);    // the game has a Hint button
//   canAskHint(view, shown);  // and it can be pressed now
//
// get() returns { view, gameId } (analysis.js's state): an answer for
// another game than gameId is dropped. onChange() comes when a request
// starts and when it ends, onError(e) with its error, or onError(null) as it
// starts (ending the error before).

import { api } from "/api.js";

/** A game between one person and the computer, on this device. */
export const personVsComputer = (v) => !!v && !v.online && [v.black, v.white].filter((s) => s === "human").length === 1;

/** Whether game `v` offers hints: one person against the computer, not over. */
export const offersHints = (v) => !!v && personVsComputer(v) && !v.result;

/** Whether a hint can be asked with `shown` moves of `v` shown: the person's move, in the latest position. */
export const canAskHint = (v, shown) => offersHints(v) && shown === v.moves.length &&
  v[v.to_move] === "human" && !(v.turn && v.turn.kind && v.turn.kind !== "move") && !v.busy;

/** Hint requests (see the top of this file). */
export function hintRequests({ get, onChange, onError }) {
  let hint = null;          // { ply, move, score, win_chance, pv, hints }
  let busy = false;

  async function ask() {
    const v = get().view;
    if (!v || busy) return;
    const id = v.id, ply = v.moves.length;
    busy = true;
    onError(null);
    onChange();
    try {
      const h = await api("POST", "/api/games/" + id + "/hint", { ply });
      if (get().gameId !== id) return;
      hint = { ply, move: h.move, score: h.score, win_chance: h.win_chance, pv: h.pv || [], hints: Number(h.hints) || (Number(v.hints) || 0) + 1 };
    } catch (e) {
      if (get().gameId === id) onError(e);
    } finally {
      busy = false;
      onChange();
    }
  }

  return {
    get hint() { return hint; },
    get busy() { return busy; },
    ask,
    moved(plies) { if (hint && hint.ply !== plies) hint = null; },
    forget() { hint = null; },
  };
}
