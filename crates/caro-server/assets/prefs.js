// prefs.js: the game page's remembered choices (board style, move numbers,
// sound) and the board style a game is drawn in, for game.js and
// analysis.js alike.
//
//   import { prefs, keep, boardStyle } from "/prefs.js";
//   prefs.style = "xo"; keep("caro.style", prefs.style);
//   boardStyle(view);   // "xo", "flat" or "wood"

/** The stored value of `key`, or `fallback` (also when storage is off). */
export function read(key, fallback) {
  try { return localStorage.getItem(key) || fallback; } catch (_) { return fallback; }
}

/** Remembers `value` under `key` (nothing when storage is off). */
export function keep(key, value) {
  try { localStorage.setItem(key, value); } catch (_) { /* not remembered */ }
}

/** The choices in use; whoever changes one also keeps it. */
export const prefs = {
  style: read("caro.style", ""),
  numbers: read("caro.numbers", "last"),
  sound: read("caro.sound", "on") !== "off",
};

/**
 * The style game `v` is drawn in: X and O when chosen (or on a 3×3 board
 * unless another style was chosen), else flat or wood.
 */
export function boardStyle(v) {
  if (prefs.style === "xo" || (!prefs.style && v.width === 3 && v.height === 3)) return "xo";
  return prefs.style === "flat" ? "flat" : "wood";
}
