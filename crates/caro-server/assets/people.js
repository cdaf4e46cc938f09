// people.js: the account this page is logged in as (or a guest), the
// header's link to it, and the log-in page (log in or sign up). Names are
// always shown as text.

import { t, onLang } from "/i18n.js";
import { api, errorText } from "/api.js";
import { go } from "/app.js";
import { $ } from "/dom.js";

let me = null;
let known = false;
const listeners = [];

/** The account logged in (`{name, created}`), or null for a guest. */
export function getMe() { return me; }

/** Calls `f(me)` after every log-in and log-out. */
export function onMe(f) { listeners.push(f); }

function setMe(account) {
  me = account;
  known = true;
  const link = $("account-link");
  if (me) {
    link.textContent = me.name;
    link.href = "/@/" + encodeURIComponent(me.name);
    link.removeAttribute("data-i18n");
    link.setAttribute("aria-label", t("nav_profile", { name: me.name }));
  } else {
    link.textContent = t("nav_login");
    link.href = "/login";
    link.setAttribute("data-i18n", "nav_login");
    link.removeAttribute("aria-label");
  }
  for (const f of listeners) f(me);
}

/** Asks the server who is logged in (once, then on demand). */
export async function loadMe(again = false) {
  if (known && !again) return me;
  try { setMe(await api("GET", "/api/me")); } catch (_) { setMe(null); }
  return me;
}

/** Logs out here and on the server. */
export async function logOut() {
  try { await api("DELETE", "/api/session"); } catch (_) { /* gone anyway */ }
  setMe(null);
}

/** Marks the account as logged out without asking (it was deleted). */
export function forget() { setMe(null); }

/** Marks a session the server just started (a changed password). */
export function remember(account) { setMe(account); }

let wired = false;

/** The log-in page: log in or sign up, then back to the lobby. */
export function showLogin() {
  $("login-error").textContent = "";
  if (wired) return;
  wired = true;
  onLang(() => { if (!me) $("account-link").textContent = t("nav_login"); });
  const submit = (form, path, name, password) => form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("login-error").textContent = "";
    try {
      setMe(await api("POST", path, { name: $(name).value.trim(), password: $(password).value }));
      $(password).value = "";
      go("/lobby");
    } catch (e) { $("login-error").textContent = errorText(e); }
  });
  submit($("login-form"), "/api/session", "login-name", "login-password");
  submit($("signup-form"), "/api/account", "signup-name", "signup-password");
}
