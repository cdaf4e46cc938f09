// api.js: the server's JSON API and the words shared by the pages (colour,
// player and game names, results, errors from their codes).

import { t, has, getLang } from "/i18n.js";

/**
 * Calls the API; resolves with the JSON answer, rejects with the server's
 * `{error, code}` (or `{code: "network"}` when the server cannot be reached).
 */
export async function api(method, path, body, contentType = "application/json") {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = contentType;
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw { code: "network", error: String(e) };
  }
  const data = await res.json().catch(() => ({ error: res.statusText, code: "bad_response" }));
  if (!res.ok) throw Object.assign({ status: res.status }, data);
  return data;
}

/** An error's words, from its code; the server's English only in English. */
export function errorText(e, online) {
  const code = (e && e.code) || "network";
  if (code === "not_your_turn" && online) return t("e_wait");
  if (has("e_" + code)) return t("e_" + code);
  if (getLang() === "en" && e && e.error) return e.error;
  return t("e_other", { c: code });
}

/** "Black" or "White". */
export function colorName(c) { return t(c === "white" ? "c_white" : "c_black"); }

/** The other colour. */
export function other(c) { return c === "black" ? "white" : "black"; }

/** A column letter and a row from the bottom, as in renju books: `h8`. */
export function pointName(x, y, height) {
  let s = "";
  let n = x + 1;
  while (n > 0) { const r = (n - 1) % 26; s = String.fromCharCode(97 + r) + s; n = Math.floor((n - 1) / 26); }
  return s + String(height - y);
}

/** The kind of game: Tic-tac-toe, Gomoku, Renju or Caro. */
export function gameName(g) {
  if (g.width === 3 && g.height === 3) return t("g_tictactoe");
  if (g.rule === "renju") return t("g_renju");
  if (g.rule === "caro" || g.rule === "caro-standard") return t("g_caro");
  return t("g_gomoku");
}

/** A player's short name: `caro:5`, or "You" / "Player" for a person. */
export function playerName(name, people) {
  if (name === "human") return people === 1 ? t("you") : t("human");
  return name;
}

/** A computer's strength in words ("level 5"), or "". */
export function playerLevel(name) {
  let m;
  if ((m = /^caro:(\d+)$/.exec(name))) return t("level", { n: m[1] });
  if ((m = /^minimax:(\d+)$/.exec(name))) return t("strength", { n: m[1] });
  if (name === "human") return "";
  return t("computer_player");
}

/** Why a game ended, in a word: "five", "resignation", "time"… */
export function reasonWord(reason) {
  const r = String(reason || "").split(":")[0].trim();
  return has("why_" + r) ? t("why_" + r) : r;
}

/** A result in a few words: "Black won (five)", "draw". */
export function resultShort(winner, reason) {
  if (!winner) return t("ongoing");
  if (winner === "draw") return t("draw_short") + (reason && reason !== "draw" ? " (" + reasonWord(reason) + ")" : "");
  return t("won_by", { c: colorName(winner), w: reasonWord(reason) });
}
