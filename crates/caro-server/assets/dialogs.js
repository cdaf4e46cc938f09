// dialogs.js: the game page's two dialogs (native <dialog>, modal, Escape
// closes): the confirmation before resigning, and the result with Next
// game, Rematch and Analyse.

const $ = (id) => document.getElementById(id);
let handlers = {};
let wired = false;

function wire() {
  wired = true;
  $("confirm-yes").addEventListener("click", () => { const f = handlers.confirm; close("confirm-dialog"); if (f) f(); });
  $("confirm-no").addEventListener("click", () => close("confirm-dialog"));
  $("result-close").addEventListener("click", () => close("result-dialog"));
  for (const [id, key] of [["result-next", "onNext"], ["result-rematch", "onRematch"], ["result-analyse", "onAnalyse"]]) {
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
 * Shows a game's result: `text`, the `match` line, and the buttons asked
 * for (`next`, `rematch`, `analyse`) with their `onNext`, `onRematch`,
 * `onAnalyse`.
 */
export function resultDialog(o) {
  if (!wired) wire();
  handlers = Object.assign({}, handlers, o);
  $("result-text").textContent = o.text;
  $("result-match").textContent = o.match || "";
  $("result-match").hidden = !o.match;
  $("result-next").hidden = !o.next;
  $("result-rematch").hidden = !o.rematch;
  $("result-analyse").hidden = !o.analyse;
  open("result-dialog");
  const first = [$("result-next"), $("result-rematch"), $("result-close")].find((b) => !b.hidden);
  if (first) first.focus();
}

/** Closes both dialogs (leaving the page). */
export function closeDialogs() {
  if (!wired) return;
  close("confirm-dialog");
  close("result-dialog");
}
