// dialogs.js: the game page's two dialogs (native <dialog>, modal, Escape
// closes): the confirmation before resigning, and the result with Next
// game, Rematch and Analyse.

import { t } from "/i18n.js";
import { $ } from "/dom.js";

let handlers = {};
let wired = false;

function wire() {
  wired = true;
  $("confirm-yes").addEventListener("click", () => { const f = handlers.confirm; close("confirm-dialog"); if (f) f(); });
  $("confirm-no").addEventListener("click", () => close("confirm-dialog"));
  $("result-close").addEventListener("click", () => close("result-dialog"));
  for (const [id, key] of [["result-next", "onNext"], ["result-new-match", "onNewMatch"], ["result-rematch", "onRematch"], ["result-analyse", "onAnalyse"]]) {
    $(id).addEventListener("click", () => { const f = handlers[key]; close("result-dialog"); if (f) f(); });
  }
}

function open(id) {
  const d = $(id);
  if (d.open) return;
  if (typeof d.showModal === "function") d.showModal(); else d.setAttribute("open", "");
}

function close(id) {
  const d = $(id);
  if (!d.open) return;
  if (typeof d.close === "function") d.close(); else d.removeAttribute("open");
}

/** Asks `question`; calls `onYes` if the person confirms. */
export function confirmDialog(question, onYes) {
  if (!wired) wire();
  handlers.confirm = onYes;
  $("confirm-text").textContent = question;
  open("confirm-dialog");
  $("confirm-no").focus();
}

/**
 * Shows a game's result: the title (the text key `titleKey`), `text`, the `match` line, a finished
 * match's `games` ({text, won} each, under `gamesLabel`), and the buttons
 * asked for (`next`, `newMatch`, `rematch`, `analyse`) with their `onNext`,
 * `onNewMatch`, `onRematch`, `onAnalyse`. Every text is set as text.
 */
export function resultDialog(o) {
  if (!wired) wire();
  handlers = Object.assign({}, handlers, o);
  if (o.titleKey) { $("result-title").dataset.i18n = o.titleKey; $("result-title").textContent = t(o.titleKey); }
  $("result-text").textContent = o.text;
  $("result-match").textContent = o.match || "";
  $("result-match").hidden = !o.match;
  const games = $("result-games");
  games.replaceChildren();
  for (const g of o.games || []) {
    const li = document.createElement("li");
    li.textContent = g.text;
    if (g.won) li.className = "won";
    games.appendChild(li);
  }
  games.hidden = !(o.games && o.games.length);
  if (o.gamesLabel) games.setAttribute("aria-label", o.gamesLabel);
  $("result-new-match").hidden = !o.newMatch;
  $("result-next").hidden = !o.next;
  $("result-rematch").hidden = !o.rematch;
  $("result-analyse").hidden = !o.analyse;
  const again = $("result-dialog").open;
  open("result-dialog");
  // Worded again (a language change): the focus stays where it is.
  const first = [$("result-next"), $("result-new-match"), $("result-rematch"), $("result-close")].find((b) => !b.hidden);
  if (first && !again) first.focus();
}

/** Closes both dialogs (leaving the page). */
export function closeDialogs() {
  if (!wired) return;
  close("confirm-dialog");
  close("result-dialog");
}
