// dom.js: the page's small DOM helpers, one copy for every module.
//
//   import { $ } from "/dom.js";
//   $("status").textContent = "…";

/** The page's element with id `id` (or null). */
export const $ = (id) => document.getElementById(id);
