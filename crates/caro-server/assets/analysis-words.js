// analysis-words.js: the analysis's small words and figures: a win chance
// as a percentage, the letters of the engine's candidates and a score's
// words (analysis.js, analysis-graph.js and analysis-marks.js use them).

import { other } from "/api.js";

/** A win chance (0 to 1) as a whole percentage. */
export const pct = (f) => Math.round(Math.max(0, Math.min(1, Number(f) || 0)) * 100);

/** The engine's candidates are lettered A, B, C… on the board and in the panel. */
export const letter = (i) => String.fromCharCode(65 + i);

/** The side to move after `ply` moves of game `v`. */
export const moverAt = (v, ply) => (ply % 2 === 0 ? v.first : other(v.first));

// A score's words. The engine's score is the mover's: "+W7" (wins in 7
// plies, the winning move counted), "-L4", "+W" or a number (hundredths,
// shown from black's side as +0.4 / −1.2).
// A forced result names its winner from black's win chance when it is
// given (1 or 0 then), so the words hold whichever side the score is from.
// `t` gives a text and `colorName` a side's name (the panel's).
export function scoreWords(score, mover, chance, t, colorName) {
  const s = String(score ?? "");
  const c = Number(chance);
  if (/^[+-][WL]/.test(s) && Number.isFinite(c) && c !== 0.5) {
    const winner = c > 0.5 ? "black" : "white";
    mover = s[1] === "W" ? winner : other(winner);
  }
  let m;
  if ((m = s.match(/^\+W(\d*)$/))) {
    const plies = m[1] === "" ? null : Number(m[1]);
    if (plies === null) return t("an_wins", { c: colorName(mover) });
    const moves = Math.ceil(plies / 2);
    return moves <= 1 ? t("an_wins_now", { c: colorName(mover) }) : t("an_wins_in", { c: colorName(mover), n: moves });
  }
  if ((m = s.match(/^-L(\d*)$/))) {
    const plies = m[1] === "" ? null : Number(m[1]);
    if (plies === null) return t("an_wins", { c: colorName(other(mover)) });
    return t("an_wins_in", { c: colorName(other(mover)), n: Math.max(1, Math.ceil(plies / 2)) });
  }
  const n = Number(s);
  if (!Number.isFinite(n)) return s;
  const black = mover === "black" ? n : -n;
  const text = (Math.abs(black) / 100).toFixed(1);
  return (black > 0 ? "+" : black < 0 ? "−" : "") + text;
}
