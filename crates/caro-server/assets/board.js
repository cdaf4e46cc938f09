// board.js: caro's game board, one <canvas> that fills its container.
//
// A plain ES module with no dependencies:
//
//   import { Board, columnName, pointName } from "/board.js";
//   const board = new Board(container, {
//     onPlay(x, y) {},    // a click, a tap or Enter/Space on an empty point of an interactive board
//     onOccupied(x, y) {},// Enter/Space on a taken point of an interactive board
//     onCursor(x, y) {},  // the keyboard cursor moved
//     onView(zoom) {},    // the zoom changed (by wheel, pinch, keys or a method): e.g. show
//                         // a reset-view button while zoom > 1
//   });
//   board.set({ ... });   // any subset of the state below; the rest is kept
//
// State (board.set) and its defaults:
//   width: 15, height: 15, k: 5          board size and the row length that wins
//   cells: "intersections" | "cells"     "cells" draws X and O in squares (tic-tac-toe);
//                                        style "xo" always draws cells
//   moves: [[x, y], ...]                 stones in order, 0-based, y down from the top;
//                                        colours alternate from `first`
//   first: "black" | "white"             colour of moves[0] (black is X in cells)
//   toMove: null | "black" | "white"     colour of the hover preview (null: by parity)
//   showNumbers: false | true | n        numbers on no stone, every stone, or the last n
//   lastMove: true                       mark the last move
//   winLine: [[x, y], ...] | null        drawn under the move numbers
//   forbidden: [[x, y], ...]             renju fouls for black, small red crosses
//   ghosts: [{x, y, label, color}]       small faint stones in a dashed ring, lettered (analysis lines)
//   marks: [{x, y, kind, label?}]        kind "hint" | "best" | "mistake" (also "blunder",
//                                        "inaccuracy"); label replaces the badge text
//   interactive: false                   clicks, taps and Enter/Space call onPlay
//   preview: null | bool                 the mouse's translucent stone (null: when interactive);
//                                        false keeps clicks for a board where this person
//                                        cannot move now (the page then says why)
//   theme: "light" | "dark", style: "wood" | "flat" | "xo"
//   coordinates: null | bool             letters a… and numbers 1… (rows from the bottom,
//                                        like caro's notation); null: on unless both sides < 5
//   touch: null | bool                   touch screen (null: matchMedia "(pointer: coarse)");
//                                        on touch the first view makes cells >= 24 CSS px
//   label: ""                            the board's accessible name (aria-label); empty:
//                                        an English one built from `name` and the size
//   name: "Board"                        the game's name for the default label ("Gomoku")
//   words: {black, white, empty}         words for the screen-reader cursor announcement
//
// Methods:
//   board.focus()                 focus the board (arrows move a visible cursor, Enter or
//                                 Space play at it, + and - zoom, 0 resets the view)
//   board.resize()                re-measure the container (also done by a ResizeObserver)
//   board.pointToPixel(x, y)      {left, top}: client coordinates of a point's centre
//   board.pointAt(clientX, clientY) -> {x, y} | null: the point under client coordinates
//   board.reveal(x, y)            pan (when zoomed) so that the point is in view
//   board.zoom                    the zoom factor (1 = the whole board fits)
//   board.setZoom(f)              zoom about the centre of the view
//   board.resetView()             back to the first view (whole board, or 24 px cells on touch)
//   board.cursor                  {x, y} of the keyboard cursor
//   board.canvas                  the <canvas> (focusable, role "application")
//   board.destroy()               remove the canvas and every listener
//
// Pointer: a wheel zooms about the pointer, a drag pans (a press that did not move
// plays), two fingers pinch and pan, one finger pans. The page never scrolls sideways:
// the canvas is absolutely placed inside the container, which is clipped. A mouse
// shows a translucent preview of the stone to be placed. onPlay is not called for an
// occupied point, nor twice for the same point within a second (a double click plays
// once). A move added to the same game grows in over 120 ms (not under
// prefers-reduced-motion); a zoomed board pans to show it.
//
// For tests the container carries data-ply (moves drawn), data-zoom and data-cell-px
// (a cell's size in CSS px); the canvas carries the tabindex and aria-label.
//
// The container should be sized by the page (the board fills it, centred, square
// cells). A container with no height gets the board's aspect ratio.

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';
const MIN_TOUCH_CELL = 24;
const MAX_CELL = 80;
const ANIMATION_MS = 120;

/** Column name as in caro's notation: a … z, then aa, ab, … (0-based x). */
export function columnName(x) {
  let s = "";
  let n = x + 1;
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(97 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/** A point's name for people: column letter and row counted from the bottom ("h8"). */
export function pointName(x, y, height) {
  return columnName(x) + String(height - y);
}

// Colours of each style and theme.
const PALETTES = {
  wood: {
    light: {
      board: ["#e8c680", "#d8ab58"], grain: "rgba(110,70,20,0.07)", line: "#5a4120", star: "#3d2b0f",
      coord: "#4a3515", coordBg: "rgba(226,189,115,0.92)", shadow: "rgba(60,40,10,0.35)",
      black: ["#707070", "#1c1c1c", "#000000"], white: ["#ffffff", "#ecebe6", "#bdbab0"],
      blackEdge: null, whiteEdge: "rgba(60,45,20,0.45)", stoneShadow: "rgba(40,25,5,0.45)",
      numOnBlack: "#ffffff", numOnWhite: "#1a1a1a", x: "#b3261e", o: "#0d47a1",
      accent: "#e8291c", winCells: "rgba(27,127,42,0.8)", win: "rgba(220,32,20,0.82)", lastCell: "rgba(255,230,120,0.55)",
      cellNum: "#5a4120", cursor: "#0b57d0", cursorHalo: "rgba(255,255,255,0.85)", forbidden: "#c62828",
      hint: "#1565c0", best: "#1b7f2a", mistake: "#ef6c00", blunder: "#c62828", inaccuracy: "#b58900",
    },
    dark: {
      board: ["#b98f52", "#a47a3f"], grain: "rgba(60,35,5,0.09)", line: "#3a2810", star: "#2a1c08",
      coord: "#2e1f08", coordBg: "rgba(178,136,76,0.92)", shadow: "rgba(0,0,0,0.6)",
      black: ["#6a6a6a", "#1a1a1a", "#000000"], white: ["#f4f4f2", "#dcdbd6", "#a9a69c"],
      blackEdge: null, whiteEdge: "rgba(40,28,10,0.5)", stoneShadow: "rgba(20,10,0,0.5)",
      numOnBlack: "#ffffff", numOnWhite: "#1a1a1a", x: "#9e1c14", o: "#0b3d8c",
      accent: "#ff3b2f", winCells: "rgba(102,214,125,0.82)", win: "rgba(230,30,20,0.85)", lastCell: "rgba(255,225,110,0.5)",
      cellNum: "#2e1f08", cursor: "#0842a0", cursorHalo: "rgba(255,255,255,0.85)", forbidden: "#b71c1c",
      hint: "#0d47a1", best: "#145c20", mistake: "#e65100", blunder: "#b71c1c", inaccuracy: "#8a6a00",
    },
  },
  flat: {
    light: {
      board: ["#eef1f5", "#eef1f5"], grain: null, line: "#a7b0bc", star: "#6b7785",
      coord: "#56606d", coordBg: "rgba(238,241,245,0.94)", shadow: "rgba(20,30,50,0.18)",
      black: ["#22262c", "#22262c", "#22262c"], white: ["#ffffff", "#ffffff", "#ffffff"],
      blackEdge: null, whiteEdge: "#4b5563", stoneShadow: null,
      numOnBlack: "#ffffff", numOnWhite: "#1f2328", x: "#d32f2f", o: "#1565c0",
      accent: "#e53935", winCells: "rgba(27,127,42,0.8)", win: "rgba(229,57,53,0.8)", lastCell: "rgba(255,213,79,0.45)",
      cellNum: "#6b7785", cursor: "#1a73e8", cursorHalo: "rgba(255,255,255,0.9)", forbidden: "#d32f2f",
      hint: "#1a73e8", best: "#188038", mistake: "#e8710a", blunder: "#d93025", inaccuracy: "#b58900",
    },
    dark: {
      board: ["#262b33", "#262b33"], grain: null, line: "#4c5563", star: "#8793a3",
      coord: "#a3aebd", coordBg: "rgba(38,43,51,0.94)", shadow: "rgba(0,0,0,0.5)",
      black: ["#0b0d10", "#0b0d10", "#0b0d10"], white: ["#e9eef3", "#e9eef3", "#e9eef3"],
      blackEdge: "#8b97a6", whiteEdge: null, stoneShadow: null,
      numOnBlack: "#f2f5f8", numOnWhite: "#111418", x: "#ff6b6b", o: "#5eb1ff",
      accent: "#ff5a52", winCells: "rgba(102,214,125,0.82)", win: "rgba(255,90,82,0.85)", lastCell: "rgba(255,213,79,0.28)",
      cellNum: "#9aa6b5", cursor: "#8ab4f8", cursorHalo: "rgba(0,0,0,0.8)", forbidden: "#ff6b6b",
      hint: "#8ab4f8", best: "#5bd27a", mistake: "#fbad50", blunder: "#ff6b6b", inaccuracy: "#f2cc60",
    },
  },
  xo: {
    light: {
      board: ["#fffdf6", "#fffdf6"], grain: null, line: "#bfd0e0", star: "#8aa2b8",
      coord: "#5f7080", coordBg: "rgba(255,253,246,0.94)", shadow: "rgba(20,30,50,0.16)",
      black: ["#22262c", "#22262c", "#22262c"], white: ["#ffffff", "#ffffff", "#ffffff"],
      blackEdge: null, whiteEdge: "#4b5563", stoneShadow: null,
      numOnBlack: "#ffffff", numOnWhite: "#1f2328", x: "#d32f2f", o: "#1565c0",
      accent: "#e53935", winCells: "rgba(27,127,42,0.8)", win: "rgba(27,127,42,0.78)", lastCell: "rgba(255,204,64,0.38)",
      cellNum: "#59636e", cursor: "#1a73e8", cursorHalo: "rgba(255,255,255,0.9)", forbidden: "#d32f2f",
      hint: "#1a73e8", best: "#188038", mistake: "#e8710a", blunder: "#d93025", inaccuracy: "#b58900",
    },
    dark: {
      board: ["#1d2127", "#1d2127"], grain: null, line: "#3a434e", star: "#6c7886",
      coord: "#9aa6b5", coordBg: "rgba(29,33,39,0.94)", shadow: "rgba(0,0,0,0.5)",
      black: ["#0b0d10", "#0b0d10", "#0b0d10"], white: ["#e9eef3", "#e9eef3", "#e9eef3"],
      blackEdge: "#8b97a6", whiteEdge: null, stoneShadow: null,
      numOnBlack: "#f2f5f8", numOnWhite: "#111418", x: "#ff6b6b", o: "#5eb1ff",
      accent: "#ff5a52", winCells: "rgba(102,214,125,0.82)", win: "rgba(102,214,125,0.8)", lastCell: "rgba(255,204,64,0.3)",
      cellNum: "#a3aebd", cursor: "#8ab4f8", cursorHalo: "rgba(0,0,0,0.8)", forbidden: "#ff6b6b",
      hint: "#8ab4f8", best: "#5bd27a", mistake: "#fbad50", blunder: "#ff6b6b", inaccuracy: "#f2cc60",
    },
  },
};

const BADGES = { mistake: "?", blunder: "??", inaccuracy: "?!", best: "", hint: "" };

const DEFAULTS = {
  width: 15, height: 15, k: 5, cells: "intersections", moves: [], first: "black", toMove: null,
  showNumbers: false, lastMove: true, winLine: null, forbidden: [], ghosts: [], marks: [],
  interactive: false, preview: null, theme: "light", style: "wood", coordinates: null, touch: null,
  label: "", name: "Board", words: null,
};

const other = (c) => (c === "black" ? "white" : "black");
const same = (a, b) => a === b || (typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b));
const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

// A small deterministic random generator for the wood grain.
function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

// Star points along one side of n lines (0-based).
function starLines(n) {
  if (n > 21) {
    const out = [];
    for (let i = 9; i < n; i += 10) out.push(i);
    return out;
  }
  if (n < 5) return [];
  const mid = n % 2 === 1 ? [(n - 1) / 2] : [];
  if (n < 9) return mid;
  const edge = n >= 13 ? 3 : 2;
  return [edge, ...mid, n - 1 - edge];
}

function starPoints(w, h) {
  if (w > 21 || h > 21) {
    // Big boards: a landmark at every tenth column and row (as the coordinates count).
    const xs = [];
    for (let x = 9; x < w; x += 10) xs.push(x);
    const ys = [];
    for (let r = 10; r <= h; r += 10) ys.push(h - r);
    const out = [];
    for (const x of xs) for (const y of ys) out.push([x, y]);
    return out;
  }
  const xs = starLines(w);
  const ys = starLines(h);
  if (xs.length === 3 && ys.length === 3 && Math.min(w, h) < 19) {
    // 13×13 to 17×17 (renju's 15×15): the four corner points and the centre.
    return [[xs[0], ys[0]], [xs[2], ys[0]], [xs[1], ys[1]], [xs[0], ys[2]], [xs[2], ys[2]]];
  }
  const out = [];
  for (const x of xs) for (const y of ys) out.push([x, y]);
  return out;
}

export class Board {
  /**
   * @param {HTMLElement} container the element the board fills
   * @param {{onPlay?: (x:number, y:number) => void, onCursor?: (x:number, y:number) => void, onView?: (zoom:number) => void}} callbacks
   */
  constructor(container, callbacks = {}) {
    this.container = container;
    this.onPlay = callbacks.onPlay || (() => {});
    this.onOccupied = callbacks.onOccupied || (() => {});
    this.onCursor = callbacks.onCursor || (() => {});
    this.onView = callbacks.onView || (() => {});
    this._reportedZoom = 1;
    this.state = { ...DEFAULTS };
    this._occ = new Map();
    this._zoom = 1;
    this._cu = 0;
    this._cv = 0;
    this._userView = false;
    this._initialView = true;
    this._geom = null;
    this._sprites = null;
    this._hover = null;
    this._cursor = null;
    this._keyboard = false;
    this._focused = false;
    this._pointers = new Map();
    this._gesture = null;
    this._anim = null;
    this._pending = null;
    this._frame = 0;
    this._aspectSet = false;
    this._reduceMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
    this._coarse = window.matchMedia ? window.matchMedia("(pointer: coarse)") : null;

    if (getComputedStyle(container).position === "static") container.style.position = "relative";
    container.style.overflow = "hidden";

    const canvas = document.createElement("canvas");
    canvas.tabIndex = 0;
    canvas.setAttribute("role", "application");
    const cs = canvas.style;
    cs.position = "absolute";
    cs.left = "0";
    cs.top = "0";
    cs.width = "100%";
    cs.height = "100%";
    cs.display = "block";
    cs.touchAction = "none";
    cs.userSelect = "none";
    cs.webkitUserSelect = "none";
    cs.webkitTapHighlightColor = "transparent";
    cs.outlineOffset = "-3px"; // a focus ring inside the clipped container
    container.appendChild(canvas);
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");

    // Screen readers hear the cursor's point when it moves.
    const live = document.createElement("div");
    live.setAttribute("aria-live", "polite");
    const ls = live.style;
    ls.position = "absolute";
    ls.width = "1px";
    ls.height = "1px";
    ls.overflow = "hidden";
    ls.clipPath = "inset(50%)";
    ls.whiteSpace = "nowrap";
    container.appendChild(live);
    this._live = live;

    this._listeners = [];
    const on = (target, type, fn, opts) => {
      target.addEventListener(type, fn, opts);
      this._listeners.push([target, type, fn, opts]);
    };
    on(canvas, "pointerdown", (e) => this._pointerDown(e));
    on(canvas, "pointermove", (e) => this._pointerMove(e));
    on(canvas, "pointerup", (e) => this._pointerUp(e));
    on(canvas, "pointercancel", (e) => this._pointerCancel(e));
    on(canvas, "pointerleave", (e) => {
      if (e.pointerType !== "touch" && this._hover) {
        this._hover = null;
        this._schedule();
      }
    });
    on(canvas, "wheel", (e) => this._wheel(e), { passive: false });
    on(canvas, "keydown", (e) => this._key(e));
    on(canvas, "focus", () => {
      this._focused = true;
      // Focus from a press shows no cursor; focus by Tab (or after keys) does.
      if (!this._pointers.size) this._keyboard = this._keyboard || canvas.matches(":focus-visible");
      this._schedule();
    });
    on(canvas, "blur", () => {
      this._focused = false;
      this._schedule();
    });
    on(canvas, "contextmenu", (e) => {
      if (this._gesture && this._gesture.moved) e.preventDefault();
    });
    on(window, "resize", () => this.resize());

    if (typeof ResizeObserver === "function") {
      this._observer = new ResizeObserver(() => this.resize());
      this._observer.observe(container);
    }
    this._updateLabel();
    this.resize();
  }

  // ------------------------------------------------------------ public

  /** Merges `state` into the board's state and redraws. */
  set(state = {}) {
    const old = this.state;
    const next = { ...old, ...state };
    // Points off the board or malformed are left out rather than break the drawing.
    const W = Number(next.width) || 0;
    const H = Number(next.height) || 0;
    const onBoard = (x, y) => Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < W && y < H;
    const list = (v) => (Array.isArray(v) ? v : []);
    next.moves = list(next.moves).filter((p) => Array.isArray(p) && onBoard(p[0], p[1]));
    next.forbidden = list(next.forbidden).filter((p) => Array.isArray(p) && onBoard(p[0], p[1]));
    next.winLine = Array.isArray(next.winLine) ? next.winLine.filter((p) => Array.isArray(p) && onBoard(p[0], p[1])) : null;
    next.ghosts = list(next.ghosts).filter((g) => g && onBoard(g.x, g.y));
    next.marks = list(next.marks).filter((m) => m && onBoard(m.x, m.y));
    // The same picture again (a page re-rendering for its clock): nothing to do.
    if (this._geom && Object.keys(next).every((key) => same(old[key], next[key]))) return this;
    const shape = (s) => [s.width, s.height, this._cellsOf(s), this._coordsOf(s)].join();
    const reshaped = shape(old) !== shape(next);
    this.state = next;

    this._occ = new Map();
    next.moves.forEach(([x, y], i) => this._occ.set(y * next.width + x, i));

    // A stone added to the same game appears with a short animation.
    const om = old.moves;
    const nm = next.moves;
    const added =
      !reshaped &&
      nm.length === om.length + 1 &&
      (om.length === 0 || (om[om.length - 1][0] === nm[om.length - 1][0] && om[om.length - 1][1] === nm[om.length - 1][1]));
    if (added && !(this._reduceMotion && this._reduceMotion.matches)) {
      this._anim = { index: nm.length - 1, start: performance.now() };
    } else if (nm.length !== om.length) {
      this._anim = null;
    }
    if (this._pending && this._pending.n !== nm.length) this._pending = null;

    if (reshaped) {
      this._userView = false;
      this._initialView = true;
      this._cursor = null;
      this._hover = null;
    }
    if (this._cursor) {
      this._cursor.x = clamp(this._cursor.x, 0, next.width - 1);
      this._cursor.y = clamp(this._cursor.y, 0, next.height - 1);
    }
    this._updateLabel();
    this._layout();
    if (added && this._geom && !this._gesture) this._reveal(nm[nm.length - 1][0], nm[nm.length - 1][1]);
    this._schedule();
    return this;
  }

  /** Focuses the board for keyboard play. */
  focus() {
    this.canvas.focus({ preventScroll: true });
  }

  /** Re-measures the container and redraws. */
  resize() {
    this._layout();
    this._schedule();
  }

  /** The zoom factor: 1 shows the whole board. */
  get zoom() {
    return this._zoom;
  }

  /** Zooms to `f` about the centre of the view. */
  setZoom(f) {
    const g = this._geom;
    if (!g) return;
    this._zoomTo(f, g.availW / 2, g.availH / 2);
  }

  /** Back to the first view: the whole board, or cells of 24 CSS px on a touch screen. */
  resetView() {
    this._userView = false;
    this._initialView = true;
    this._layout();
    this._schedule();
  }

  /** The keyboard cursor. */
  get cursor() {
    return this._cursor ? { ...this._cursor } : this._defaultCursor();
  }

  /** Client coordinates of the centre of point (x, y). */
  pointToPixel(x, y) {
    const g = this._geom;
    const rect = this.canvas.getBoundingClientRect();
    if (!g) return { left: rect.left, top: rect.top };
    return { left: rect.left + this._sx(x), top: rect.top + this._sy(y) };
  }

  /** Pans (when zoomed) so that point (x, y) is in view. */
  reveal(x, y) {
    this._reveal(x, y);
    this._updateData();
  }

  /** The point under client coordinates, or null off the board. */
  pointAt(clientX, clientY) {
    const g = this._geom;
    if (!g) return null;
    const rect = this.canvas.getBoundingClientRect();
    const u = (clientX - rect.left - g.gx) / g.cell;
    const v = (clientY - rect.top - g.gy) / g.cell;
    const x = g.cellsMode ? Math.floor(u) : Math.round(u);
    const y = g.cellsMode ? Math.floor(v) : Math.round(v);
    if (x < 0 || y < 0 || x >= this.state.width || y >= this.state.height) return null;
    return { x, y };
  }

  /** Removes the canvas and every listener. */
  destroy() {
    if (this._observer) this._observer.disconnect();
    for (const [target, type, fn, opts] of this._listeners) target.removeEventListener(type, fn, opts);
    if (this._frame) cancelAnimationFrame(this._frame);
    this.canvas.remove();
    this._live.remove();
  }

  // ------------------------------------------------------------ geometry

  _cellsOf(s) {
    return s.cells === "cells" || s.style === "xo";
  }

  _coordsOf(s) {
    if (s.coordinates === true || s.coordinates === false) return s.coordinates;
    return s.width >= 5 || s.height >= 5;
  }

  _isTouch() {
    const t = this.state.touch;
    if (t === true || t === false) return t;
    return !!(this._coarse && this._coarse.matches);
  }

  // Margins in CSS px around the grid for a cell size.
  _margins(cell, cellsMode, coords) {
    const s = this.state;
    const stone = cellsMode ? 1.5 : cell * 0.5;
    if (!coords) return { font: 0, left: stone, right: stone, top: stone, bottom: stone, coordW: 0, coordH: 0 };
    const font = clamp(cell * 0.36, 9, 14);
    const digits = String(s.height).length;
    const coordW = font * (0.62 * digits + 0.7);
    const coordH = font * 1.5;
    const inner = cellsMode ? 0 : cell * 0.12;
    return {
      font, coordW, coordH,
      left: stone + inner + coordW, right: stone, top: stone, bottom: stone + inner + coordH,
    };
  }

  // Computes the cell size, zoom and placement for the container's size.
  _layout() {
    const s = this.state;
    const c = this.container;
    const availW = c.clientWidth;
    let availH = c.clientHeight;
    const cellsMode = this._cellsOf(s);
    const coords = this._coordsOf(s);
    const spanW = cellsMode ? s.width : s.width - 1;
    const spanH = cellsMode ? s.height : s.height - 1;
    if (availW < 8) {
      this._geom = null;
      this._updateData();
      return;
    }
    const fitFor = (W, H) => {
      let cell = Math.min(W / (spanW + 1), H > 0 ? H / (spanH + 1) : Infinity);
      for (let i = 0; i < 4; i++) {
        const m = this._margins(cell, cellsMode, coords);
        const cw = (W - m.left - m.right) / spanW;
        const ch = H > 0 ? (H - m.top - m.bottom) / spanH : Infinity;
        cell = Math.max(2, Math.min(cw, ch));
      }
      return cell;
    };
    if (availH < 8 || this._aspectSet) {
      // No height from the page: take the board's own proportions.
      const cell = fitFor(availW, 0);
      const m = this._margins(cell, cellsMode, coords);
      const bw = m.left + m.right + spanW * cell;
      const bh = m.top + m.bottom + spanH * cell;
      c.style.aspectRatio = `${bw.toFixed(1)} / ${bh.toFixed(1)}`;
      this._aspectSet = true;
      availH = c.clientHeight || Math.round((availW * bh) / bw);
    }
    const fit = fitFor(availW, availH);
    const initZoom = this._isTouch() && fit < MIN_TOUCH_CELL ? MIN_TOUCH_CELL / fit : 1;
    const maxZoom = Math.max(1, MAX_CELL / fit, initZoom);
    if (this._initialView || !this._geom) {
      // The first view of a board: whole, or on touch zoomed to the last move.
      this._initialView = false;
      this._zoom = initZoom;
      const last = s.moves[s.moves.length - 1];
      if (initZoom > 1 && last) {
        this._cu = last[0] + (cellsMode ? 0.5 : 0);
        this._cv = last[1] + (cellsMode ? 0.5 : 0);
      } else {
        this._cu = spanW / 2;
        this._cv = spanH / 2;
      }
    } else if (!this._userView) {
      // Not touched by the person yet: follow the container's size.
      this._zoom = initZoom;
    }
    this._zoom = clamp(this._zoom, 1, maxZoom);
    const cell = fit * this._zoom;
    const m = this._margins(cell, cellsMode, coords);
    this._geom = {
      availW, availH, fit, maxZoom, initZoom, cell, cellsMode, coords, spanW, spanH, m,
      boardW: m.left + m.right + spanW * cell, boardH: m.top + m.bottom + spanH * cell,
      gx: 0, gy: 0,
    };
    this._clampView();

    const dpr = window.devicePixelRatio || 1;
    const bw = Math.max(1, Math.round(availW * dpr));
    const bh = Math.max(1, Math.round(availH * dpr));
    if (this.canvas.width !== bw || this.canvas.height !== bh) {
      this.canvas.width = bw;
      this.canvas.height = bh;
    }
    this._dpr = dpr;
    this._updateData();
  }

  // Keeps the board covering the view when zoomed and centred where it fits.
  _clampView() {
    const g = this._geom;
    const { m, cell } = g;
    g.cell = cell;
    const axis = (avail, board, before, centre) => {
      let g0 = avail / 2 - centre * cell;
      if (board <= avail) g0 = (avail - board) / 2 + before;
      else g0 = clamp(g0, avail - board + before, before);
      return g0;
    };
    g.gx = axis(g.availW, g.boardW, m.left, this._cu);
    g.gy = axis(g.availH, g.boardH, m.top, this._cv);
    this._cu = (g.availW / 2 - g.gx) / cell;
    this._cv = (g.availH / 2 - g.gy) / cell;
  }

  _setCell(zoom) {
    const g = this._geom;
    this._zoom = clamp(zoom, 1, g.maxZoom);
    g.cell = g.fit * this._zoom;
    g.m = this._margins(g.cell, g.cellsMode, g.coords);
    g.boardW = g.m.left + g.m.right + g.spanW * g.cell;
    g.boardH = g.m.top + g.m.bottom + g.spanH * g.cell;
  }

  // Zooms to `zoom` keeping the board point under view coordinates (lx, ly) in place.
  _zoomTo(zoom, lx, ly) {
    const g = this._geom;
    if (!g) return;
    const u = (lx - g.gx) / g.cell;
    const v = (ly - g.gy) / g.cell;
    this._setCell(zoom);
    this._cu = u - (lx - g.availW / 2) / g.cell;
    this._cv = v - (ly - g.availH / 2) / g.cell;
    this._userView = true;
    this._clampView();
    this._updateData();
    this._schedule();
  }

  // Pans so that point (x, y) is inside the view with a cell to spare.
  _reveal(x, y) {
    const g = this._geom;
    if (!g || this._zoom <= 1) return;
    const off = g.cellsMode ? 0.5 : 0;
    const px = g.gx + (x + off) * g.cell;
    const py = g.gy + (y + off) * g.cell;
    const pad = Math.min(g.cell * 1.5, g.availW / 3, g.availH / 3);
    let dx = 0;
    let dy = 0;
    if (px < pad) dx = pad - px;
    else if (px > g.availW - pad) dx = g.availW - pad - px;
    if (py < pad) dy = pad - py;
    else if (py > g.availH - pad) dy = g.availH - pad - py;
    if (!dx && !dy) return;
    this._cu -= dx / g.cell;
    this._cv -= dy / g.cell;
    this._clampView();
    this._schedule();
  }

  _sx(x) {
    const g = this._geom;
    return g.gx + (x + (g.cellsMode ? 0.5 : 0)) * g.cell;
  }

  _sy(y) {
    const g = this._geom;
    return g.gy + (y + (g.cellsMode ? 0.5 : 0)) * g.cell;
  }

  _updateData() {
    const d = this.container.dataset;
    d.ply = String(this.state.moves.length);
    d.zoom = this._zoom.toFixed(3);
    d.cellPx = this._geom ? this._geom.cell.toFixed(2) : "0";
    if (Math.abs(this._zoom - this._reportedZoom) > 0.0005) {
      this._reportedZoom = this._zoom;
      this.onView(this._zoom);
    }
  }

  _updateLabel() {
    const s = this.state;
    let label = s.label;
    if (!label) {
      const what = this._cellsOf(s) ? "a mark" : "a stone";
      label = `${s.name} board, ${s.width}×${s.height}. Arrow keys move the cursor, Enter or Space places ${what}, plus and minus zoom.`;
    }
    if (this.canvas.getAttribute("aria-label") !== label) this.canvas.setAttribute("aria-label", label);
  }

  _defaultCursor() {
    const s = this.state;
    const last = s.moves[s.moves.length - 1];
    if (last) return { x: last[0], y: last[1] };
    return { x: Math.floor((s.width - 1) / 2), y: Math.floor((s.height - 1) / 2) };
  }

  _colorAt(i) {
    return i % 2 === 0 ? this.state.first : other(this.state.first);
  }

  _toMove() {
    const s = this.state;
    return s.toMove || this._colorAt(s.moves.length);
  }

  _occupied(x, y) {
    return this._occ.has(y * this.state.width + x);
  }

  // ------------------------------------------------------------ input

  _play(x, y) {
    const s = this.state;
    if (!s.interactive || this._occupied(x, y)) return;
    const now = performance.now();
    const p = this._pending;
    // A double click or a key held down plays once.
    if (p && p.x === x && p.y === y && now - p.t < 1000) return;
    this._pending = { x, y, t: now, n: s.moves.length };
    this.onPlay(x, y);
  }

  _local(e) {
    const rect = this.canvas.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  }

  _pointerDown(e) {
    if (e.pointerType === "mouse" && e.button !== 0) return;
    if (!this._geom) return;
    this._keyboard = false;
    try {
      this.canvas.setPointerCapture(e.pointerId);
    } catch (_) {
      /* capture is a comfort, not a need */
    }
    const p = this._local(e);
    this._pointers.set(e.pointerId, p);
    if (document.activeElement !== this.canvas) this.canvas.focus({ preventScroll: true });
    if (this._pointers.size === 1) {
      this._gesture = { kind: "press", id: e.pointerId, type: e.pointerType, start: p, cu: this._cu, cv: this._cv, moved: false };
    } else if (this._pointers.size === 2) {
      this._startPinch();
    }
    if (e.pointerType !== "mouse") this._hover = null;
    e.preventDefault();
  }

  _startPinch() {
    const g = this._geom;
    const [a, b] = [...this._pointers.values()];
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    this._gesture = {
      kind: "pinch", moved: true,
      dist: Math.max(10, Math.hypot(a.x - b.x, a.y - b.y)),
      zoom: this._zoom,
      u: (mid.x - g.gx) / g.cell,
      v: (mid.y - g.gy) / g.cell,
    };
  }

  _pointerMove(e) {
    if (!this._geom) return;
    const p = this._local(e);
    if (this._pointers.has(e.pointerId)) {
      this._pointers.set(e.pointerId, p);
      const gst = this._gesture;
      if (!gst) return;
      const g = this._geom;
      if (gst.kind === "pinch" && this._pointers.size >= 2) {
        const [a, b] = [...this._pointers.values()];
        const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
        const dist = Math.max(10, Math.hypot(a.x - b.x, a.y - b.y));
        this._setCell((gst.zoom * dist) / gst.dist);
        this._cu = gst.u - (mid.x - g.availW / 2) / g.cell;
        this._cv = gst.v - (mid.y - g.availH / 2) / g.cell;
        this._userView = true;
        this._clampView();
        this._updateData();
        this._schedule();
      } else if (gst.kind === "press" && gst.id === e.pointerId) {
        const dx = p.x - gst.start.x;
        const dy = p.y - gst.start.y;
        const slop = gst.type === "mouse" ? 4 : 8;
        if (!gst.moved && Math.hypot(dx, dy) > slop) {
          gst.moved = true;
          this._hover = null;
        }
        if (gst.moved && this._zoom > 1) {
          this._cu = gst.cu - dx / g.cell;
          this._cv = gst.cv - dy / g.cell;
          this._userView = true;
          this._clampView();
          this._schedule();
        }
      }
      return;
    }
    if (e.pointerType === "mouse" || e.pointerType === "pen") {
      const pt = this.pointAt(e.clientX, e.clientY);
      const h = this._hover;
      if ((pt && h && pt.x === h.x && pt.y === h.y) || (!pt && !h)) return;
      this._hover = pt;
      this._schedule();
    }
  }

  _pointerUp(e) {
    if (!this._pointers.has(e.pointerId)) return;
    const gst = this._gesture;
    this._pointers.delete(e.pointerId);
    if (gst && gst.kind === "press" && gst.id === e.pointerId && !gst.moved) {
      const pt = this.pointAt(e.clientX, e.clientY);
      if (pt) {
        this._cursor = pt;
        this._play(pt.x, pt.y);
      }
    }
    if (this._pointers.size === 1 && gst && gst.kind === "pinch") {
      // The finger left on the glass pans on.
      const [id, p] = [...this._pointers.entries()][0];
      this._gesture = { kind: "press", id, type: "touch", start: p, cu: this._cu, cv: this._cv, moved: true };
    } else if (this._pointers.size === 0) {
      this._gesture = null;
      if (e.pointerType === "mouse") {
        this._hover = this.pointAt(e.clientX, e.clientY);
        this._schedule();
      }
    }
  }

  _pointerCancel(e) {
    this._pointers.delete(e.pointerId);
    if (this._pointers.size === 0) this._gesture = null;
  }

  _wheel(e) {
    const g = this._geom;
    if (!g) return;
    let dy = e.deltaY;
    if (e.deltaMode === 1) dy *= 16;
    else if (e.deltaMode === 2) dy *= g.availH;
    if (!dy) return;
    const zoomIn = dy < 0;
    // Zoomed all the way out, a wheel down scrolls the page as usual.
    if (!zoomIn && this._zoom <= 1.0001) return;
    if (zoomIn && this._zoom >= g.maxZoom - 0.0001 && g.maxZoom <= 1.0001) return;
    e.preventDefault();
    const factor = Math.exp(-clamp(dy, -300, 300) * (e.ctrlKey ? 0.01 : 0.002));
    const p = this._local(e);
    this._hover = this.pointAt(e.clientX, e.clientY);
    this._zoomTo(this._zoom * factor, p.x, p.y);
  }

  _key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const s = this.state;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const c = this._cursor || this._defaultCursor();
      const wasShown = this._keyboard && this._focused;
      this._keyboard = true;
      const [dx, dy] = wasShown ? moves[e.key] : [0, 0];
      this._cursor = { x: clamp(c.x + dx, 0, s.width - 1), y: clamp(c.y + dy, 0, s.height - 1) };
      this._reveal(this._cursor.x, this._cursor.y);
      this._announce();
      this.onCursor(this._cursor.x, this._cursor.y);
      this._schedule();
    } else if (e.key === "Enter" || e.key === " " || e.key === "Spacebar") {
      e.preventDefault();
      if (e.repeat) return;
      this._keyboard = true;
      const c = this._cursor || this._defaultCursor();
      this._cursor = c;
      // A key on a taken point says so (a click there stays silent).
      if (s.interactive && this._occupied(c.x, c.y)) this.onOccupied(c.x, c.y);
      else this._play(c.x, c.y);
      this._schedule();
    } else if (e.key === "+" || e.key === "=" || e.key === "-" || e.key === "_") {
      const g = this._geom;
      if (!g) return;
      e.preventDefault();
      const c = this._cursor || this._defaultCursor();
      const f = e.key === "+" || e.key === "=" ? 1.25 : 0.8;
      this._zoomTo(this._zoom * f, this._sx(c.x), this._sy(c.y));
    } else if (e.key === "0") {
      e.preventDefault();
      this.resetView();
    }
  }

  _announce() {
    const s = this.state;
    const c = this._cursor;
    const words = { black: "black", white: "white", empty: "", ...(s.words || {}) };
    const i = this._occ.get(c.y * s.width + c.x);
    const what = i === undefined ? words.empty : `${words[this._colorAt(i)]} ${i + 1}`;
    this._live.textContent = `${pointName(c.x, c.y, s.height)} ${what}`.trim();
  }

  // ------------------------------------------------------------ drawing

  _schedule() {
    if (this._frame) return;
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      this._draw();
    });
  }

  _palette() {
    const s = this.state;
    const style = PALETTES[s.style] || PALETTES.wood;
    return style[s.theme === "dark" ? "dark" : "light"];
  }

  // Stone images for the current size, drawn once per size and palette.
  _stone(color) {
    const g = this._geom;
    const s = this.state;
    const dpr = this._dpr;
    const wood = s.style === "wood";
    const r = g.cell * (wood ? 0.47 : 0.45);
    const key = [s.style, s.theme, r.toFixed(2), dpr].join();
    if (!this._sprites || this._sprites.key !== key) this._sprites = { key };
    if (this._sprites[color]) return this._sprites[color];
    const pal = this._palette();
    const pad = Math.ceil(r * 0.25) + 2;
    const size = Math.ceil((2 * r + 2 * pad) * dpr);
    const cv = document.createElement("canvas");
    cv.width = size;
    cv.height = size;
    const ctx = cv.getContext("2d");
    ctx.scale(dpr, dpr);
    const c = size / dpr / 2;
    const stops = color === "black" ? pal.black : pal.white;
    if (pal.stoneShadow) {
      ctx.save();
      ctx.shadowColor = pal.stoneShadow;
      ctx.shadowBlur = r * 0.18 * dpr;
      ctx.shadowOffsetX = r * 0.06 * dpr;
      ctx.shadowOffsetY = r * 0.1 * dpr;
      ctx.beginPath();
      ctx.arc(c, c, r, 0, 2 * Math.PI);
      ctx.fillStyle = stops[1];
      ctx.fill();
      ctx.restore();
    }
    ctx.beginPath();
    ctx.arc(c, c, r, 0, 2 * Math.PI);
    if (wood) {
      const grad = ctx.createRadialGradient(c - r * 0.35, c - r * 0.38, r * 0.08, c, c, r * 1.05);
      grad.addColorStop(0, stops[0]);
      grad.addColorStop(0.55, stops[1]);
      grad.addColorStop(1, stops[2]);
      ctx.fillStyle = grad;
    } else {
      ctx.fillStyle = stops[1];
    }
    ctx.fill();
    const edge = color === "black" ? pal.blackEdge : pal.whiteEdge;
    if (edge) {
      ctx.lineWidth = Math.max(1, r * 0.07);
      ctx.strokeStyle = edge;
      ctx.beginPath();
      ctx.arc(c, c, r - ctx.lineWidth / 2, 0, 2 * Math.PI);
      ctx.stroke();
    }
    const sprite = { canvas: cv, half: c };
    this._sprites[color] = sprite;
    return sprite;
  }

  _draw() {
    const g = this._geom;
    const ctx = this.ctx;
    if (!g) return;
    const dpr = this._dpr;
    if (Math.abs((window.devicePixelRatio || 1) - dpr) > 0.001) {
      this._layout();
      this._schedule();
      return;
    }
    const s = this.state;
    const pal = this._palette();
    const { cell, cellsMode, m } = g;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.availW, g.availH);

    // The visible range of points.
    const off = cellsMode ? 0.5 : 0;
    const x0 = clamp(Math.floor(-g.gx / cell - off) - 1, 0, s.width - 1);
    const x1 = clamp(Math.ceil((g.availW - g.gx) / cell - off) + 1, 0, s.width - 1);
    const y0 = clamp(Math.floor(-g.gy / cell - off) - 1, 0, s.height - 1);
    const y1 = clamp(Math.ceil((g.availH - g.gy) / cell - off) + 1, 0, s.height - 1);
    const visible = (x, y) => x >= x0 && x <= x1 && y >= y0 && y <= y1;
    const X = (x) => this._sx(x);
    const Y = (y) => this._sy(y);

    // Move numbers: on which moves, and whether they are readable at this size.
    const n = s.moves.length;
    const shown = s.showNumbers === true ? n : typeof s.showNumbers === "number" ? clamp(Math.floor(s.showNumbers), 0, n) : 0;
    const longest = String(n).length;
    const numberSize = (len) => cell * (len >= 4 ? 0.27 : len === 3 ? 0.33 : 0.42);
    const cellFont = clamp(cell * 0.22, 8, 13);
    const numbered = shown > 0 && (cellsMode ? cell >= 22 : numberSize(longest) >= 8.5);
    // In cells the numbers sit in the top-left corner: marks move down-right (and on
    // small cells shrink) as far as the longest number needs, so the two never touch.
    this._markR = 0.3;
    this._markShift = 0;
    if (cellsMode && numbered) {
      const corner = 0.05 + Math.min(0.62 * longest * cellFont, cellFont) / cell;
      this._markShift = Math.max(0, corner - 0.15);
      if (this._markShift > 0.12) {
        this._markR = 0.24;
        this._markShift = Math.min(0.16, Math.max(0, corner - 0.21));
      }
    }

    this._drawBackground(ctx, g, pal);
    if (cellsMode && s.lastMove && s.moves.length) {
      const [lx, ly] = s.moves[s.moves.length - 1];
      ctx.fillStyle = pal.lastCell;
      ctx.fillRect(g.gx + lx * cell, g.gy + ly * cell, cell, cell);
    }
    this._drawGrid(ctx, g, pal, x0, x1, y0, y1);

    // Renju fouls.
    if (s.forbidden.length) {
      ctx.strokeStyle = pal.forbidden;
      ctx.lineWidth = Math.max(1.5, cell * 0.07);
      ctx.lineCap = "round";
      const d = cell * (cellsMode ? 0.09 : 0.14);
      if (cellsMode) ctx.lineWidth = Math.max(1.5, cell * 0.035);
      ctx.beginPath();
      for (const [x, y] of s.forbidden) {
        if (!visible(x, y) || this._occupied(x, y)) continue;
        ctx.moveTo(X(x) - d, Y(y) - d);
        ctx.lineTo(X(x) + d, Y(y) + d);
        ctx.moveTo(X(x) + d, Y(y) - d);
        ctx.lineTo(X(x) - d, Y(y) + d);
      }
      ctx.stroke();
      ctx.lineCap = "butt";
    }

    // Stones or marks, the newest one growing in.
    const now = performance.now();
    let anim = this._anim;
    let t = 1;
    if (anim) {
      t = (now - anim.start) / ANIMATION_MS;
      if (t >= 1) {
        this._anim = anim = null;
        t = 1;
      }
    }
    for (let i = 0; i < s.moves.length; i++) {
      const [x, y] = s.moves[i];
      if (!visible(x, y)) continue;
      const color = this._colorAt(i);
      if (anim && anim.index === i) {
        const e = 1 - (1 - t) * (1 - t);
        this._piece(ctx, x, y, color, 0.35 + 0.65 * e, 0.6 + 0.4 * e, true);
      } else {
        this._piece(ctx, x, y, color, 1, 1, true);
      }
    }

    // Analysis: ghost stones.
    for (const gh of s.ghosts) {
      if (!visible(gh.x, gh.y) || this._occupied(gh.x, gh.y)) continue;
      const color = gh.color === "white" ? "white" : "black";
      // Smaller and fainter than a stone, in a dashed ring of the analysis
      // colour: a suggestion, never mistaken for a stone of the game.
      this._piece(ctx, gh.x, gh.y, color, cellsMode ? 0.3 : 0.4, 0.7);
      ctx.strokeStyle = pal.hint;
      ctx.lineWidth = Math.max(1.5, cell * 0.05);
      ctx.setLineDash([Math.max(2, cell * 0.1), Math.max(2, cell * 0.07)]);
      ctx.beginPath();
      ctx.arc(X(gh.x), Y(gh.y), cell * 0.42, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.setLineDash([]);
    }

    // The winning row, under the numbers.
    if (s.winLine && s.winLine.length) {
      const pts = [...s.winLine].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const [ax, ay] = pts[0];
      const [bx, by] = pts[pts.length - 1];
      const shift = cellsMode ? this._markShift * cell : 0;
      const sx0 = X(ax) + shift;
      const sy0 = Y(ay) + shift;
      const sx1 = X(bx) + shift;
      const sy1 = Y(by) + shift;
      const len = Math.hypot(sx1 - sx0, sy1 - sy0) || 1;
      const ext = cell * (cellsMode ? 0.38 : 0.3);
      const ux = ((sx1 - sx0) / len) * ext;
      const uy = ((sy1 - sy0) / len) * ext;
      ctx.strokeStyle = cellsMode ? pal.winCells : pal.win;
      ctx.lineWidth = clamp(cell * (cellsMode ? 0.09 : 0.13), 3, 12);
      ctx.lineCap = "round";
      ctx.beginPath();
      ctx.moveTo(sx0 - ux, sy0 - uy);
      ctx.lineTo(sx1 + ux, sy1 + uy);
      ctx.stroke();
      ctx.lineCap = "butt";
    }

    // Analysis marks: rings with a badge.
    for (const mk of s.marks) {
      if (!visible(mk.x, mk.y)) continue;
      this._mark(ctx, mk, pal);
    }

    // Move numbers (only where the longest one is readable).
    if (numbered) {
      const inWin = new Set((s.winLine || []).map(([x, y]) => y * s.width + x));
      ctx.textAlign = cellsMode ? "left" : "center";
      ctx.textBaseline = cellsMode ? "top" : "middle";
      ctx.lineJoin = "round";
      for (let i = n - shown; i < n; i++) {
        const [x, y] = s.moves[i];
        if (!visible(x, y)) continue;
        const label = String(i + 1);
        const color = this._colorAt(i);
        if (cellsMode) {
          ctx.font = `600 ${cellFont}px ${FONT}`;
          const halo = inWin.has(y * s.width + x) ? pal.board[0] : null;
          this._text(ctx, label, g.gx + x * cell + cell * 0.05, g.gy + y * cell + cell * 0.05, pal.cellNum, halo, cellFont);
        } else {
          const size = numberSize(label.length);
          ctx.font = `600 ${size}px ${FONT}`;
          const fg = color === "black" ? pal.numOnBlack : pal.numOnWhite;
          const halo = color === "black" ? pal.black[1] : pal.white[1];
          this._text(ctx, label, X(x), Y(y) + size * 0.04, fg, halo, size);
        }
      }
    }

    // Ghost labels.
    if (s.ghosts.length) {
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      for (const gh of s.ghosts) {
        if (!visible(gh.x, gh.y) || this._occupied(gh.x, gh.y) || gh.label === undefined || gh.label === "") continue;
        const label = String(gh.label);
        const color = gh.color === "white" ? "white" : "black";
        const size = Math.max(9, cell * (label.length > 1 ? 0.3 : 0.38));
        ctx.font = `italic 700 ${size}px ${FONT}`;
        if (cellsMode) {
          this._text(ctx, label, X(gh.x), Y(gh.y), color === "black" ? pal.x : pal.o, pal.board[0], size);
        } else {
          const fg = color === "black" ? pal.numOnBlack : pal.numOnWhite;
          const halo = color === "black" ? pal.black[1] : pal.white[1];
          this._text(ctx, label, X(gh.x), Y(gh.y) + size * 0.04, fg, halo, size);
        }
      }
    }

    // The last move.
    if (!cellsMode && s.lastMove && n) {
      const [x, y] = s.moves[n - 1];
      ctx.strokeStyle = pal.accent;
      ctx.fillStyle = pal.accent;
      if (numbered) {
        ctx.lineWidth = Math.max(1.5, cell * 0.055);
        ctx.beginPath();
        ctx.arc(X(x), Y(y), cell * 0.37, 0, 2 * Math.PI);
        ctx.stroke();
      } else {
        ctx.beginPath();
        ctx.arc(X(x), Y(y), Math.max(2.5, cell * 0.13), 0, 2 * Math.PI);
        ctx.fill();
      }
      if (cell < 24) {
        // Small cells: a ring around the stone as well, to be found at a glance.
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(X(x), Y(y), cell * 0.5 + 2, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }

    // Where a click would play.
    const h = this._hover;
    const preview = s.preview === null || s.preview === undefined ? s.interactive : s.preview;
    if (h && preview && !this._gesture && !this._occupied(h.x, h.y) && visible(h.x, h.y)) {
      this._piece(ctx, h.x, h.y, this._toMove(), cellsMode ? 0.35 : 0.45, 1, true);
    }

    // The keyboard cursor.
    if (this._focused && this._keyboard) {
      const c = this._cursor || this._defaultCursor();
      const half = cell * 0.5;
      const r = Math.min(6, cell * 0.15);
      for (const [color, w] of [[pal.cursorHalo, 5], [pal.cursor, 2.5]]) {
        ctx.strokeStyle = color;
        ctx.lineWidth = w;
        ctx.beginPath();
        ctx.roundRect(X(c.x) - half + 1.5, Y(c.y) - half + 1.5, cell - 3, cell - 3, r);
        ctx.stroke();
      }
    }

    this._drawCoords(ctx, g, pal, x0, x1, y0, y1);
    const gst = this._gesture;
    const pointer = gst && gst.moved && this._zoom > 1 ? "grabbing" : s.interactive && preview ? "pointer" : this._zoom > 1 ? "grab" : "default";
    if (this.canvas.style.cursor !== pointer) this.canvas.style.cursor = pointer;
    if (this._anim) this._schedule();
  }

  // Text with a halo so that lines under it never hide it.
  _text(ctx, text, x, y, fg, halo, size) {
    if (halo) {
      ctx.lineWidth = Math.max(2, size * 0.22);
      ctx.strokeStyle = halo;
      ctx.strokeText(text, x, y);
    }
    ctx.fillStyle = fg;
    ctx.fillText(text, x, y);
  }

  // A stone (intersections) or an X / O (cells) at alpha and scale.
  // `placed`: a move's mark in cells, which makes room for its number.
  _piece(ctx, x, y, color, alpha, scale, placed = false) {
    const g = this._geom;
    const shift = placed && g.cellsMode ? this._markShift * g.cell : 0;
    const cx = this._sx(x) + shift;
    const cy = this._sy(y) + shift;
    ctx.save();
    ctx.globalAlpha = alpha;
    if (g.cellsMode) {
      const pal = this._palette();
      const r = g.cell * (placed ? this._markR : 0.3) * scale;
      ctx.lineWidth = clamp(g.cell * 0.1, 2, 14) * Math.max(0.6, scale);
      ctx.lineCap = "round";
      ctx.beginPath();
      if (color === "black") {
        ctx.strokeStyle = pal.x;
        ctx.moveTo(cx - r, cy - r);
        ctx.lineTo(cx + r, cy + r);
        ctx.moveTo(cx + r, cy - r);
        ctx.lineTo(cx - r, cy + r);
      } else {
        ctx.strokeStyle = pal.o;
        ctx.arc(cx, cy, r * 1.05, 0, 2 * Math.PI);
      }
      ctx.stroke();
    } else {
      const sp = this._stone(color);
      const size = sp.half * 2 * scale;
      ctx.drawImage(sp.canvas, cx - sp.half * scale, cy - sp.half * scale, size, size);
    }
    ctx.restore();
  }

  _mark(ctx, mk, pal) {
    const g = this._geom;
    const cell = g.cell;
    const color = pal[mk.kind] || pal.hint;
    const cx = this._sx(mk.x);
    const cy = this._sy(mk.y);
    ctx.save();
    ctx.strokeStyle = color;
    ctx.lineWidth = Math.max(2, cell * 0.08);
    if (mk.kind === "hint") ctx.setLineDash([cell * 0.14, cell * 0.09]);
    ctx.beginPath();
    if (g.cellsMode) ctx.roundRect(cx - cell * 0.44, cy - cell * 0.44, cell * 0.88, cell * 0.88, cell * 0.1);
    else ctx.arc(cx, cy, cell * 0.5 - ctx.lineWidth / 2, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
    const badge = mk.label !== undefined ? String(mk.label) : BADGES[mk.kind] || "";
    if (badge && cell >= 12) {
      const br = Math.max(6, cell * 0.2);
      const bx = cx + cell * 0.36;
      const by = cy - cell * 0.36;
      ctx.beginPath();
      ctx.arc(bx, by, br, 0, 2 * Math.PI);
      ctx.fillStyle = color;
      ctx.fill();
      ctx.lineWidth = 1.5;
      ctx.strokeStyle = pal.board[0];
      ctx.stroke();
      ctx.fillStyle = "#ffffff";
      const size = br * (badge.length > 1 ? 1.05 : 1.4);
      ctx.font = `700 ${size}px ${FONT}`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(badge, bx, by + size * 0.05);
    }
    ctx.restore();
  }

  _drawBackground(ctx, g, pal) {
    const s = this.state;
    const bx = g.gx - g.m.left;
    const by = g.gy - g.m.top;
    const radius = s.style === "xo" ? 2 : 4;
    ctx.save();
    if (g.boardW < g.availW - 4 || g.boardH < g.availH - 4) {
      ctx.shadowColor = pal.shadow;
      ctx.shadowBlur = 10;
      ctx.shadowOffsetY = 2;
    }
    const grad = ctx.createLinearGradient(bx, by, bx + g.boardW * 0.4, by + g.boardH);
    grad.addColorStop(0, pal.board[0]);
    grad.addColorStop(1, pal.board[1]);
    ctx.fillStyle = grad;
    ctx.beginPath();
    ctx.roundRect(bx, by, g.boardW, g.boardH, radius);
    ctx.fill();
    ctx.restore();
    if (pal.grain) {
      // Wood grain: soft waving lines fixed to the board.
      ctx.save();
      ctx.beginPath();
      ctx.rect(Math.max(0, bx), Math.max(0, by), Math.min(g.availW, g.boardW), Math.min(g.availH, g.boardH));
      ctx.clip();
      const rnd = seeded(s.width * 131 + s.height);
      ctx.strokeStyle = pal.grain;
      const lines = 46;
      for (let i = 0; i < lines; i++) {
        const y = by + ((i + rnd() * 0.8) / lines) * g.boardH;
        const amp = (0.004 + rnd() * 0.012) * g.boardH;
        const phase = rnd() * Math.PI * 2;
        const freq = 1.5 + rnd() * 2.5;
        ctx.lineWidth = (0.5 + rnd() * 1.4) * clamp(g.boardH / 700, 1, 1.6);
        ctx.beginPath();
        for (let k = 0; k <= 24; k++) {
          const fx = k / 24;
          const yy = y + Math.sin(phase + fx * freq * Math.PI) * amp;
          if (k === 0) ctx.moveTo(bx + fx * g.boardW, yy);
          else ctx.lineTo(bx + fx * g.boardW, yy);
        }
        ctx.stroke();
      }
      ctx.restore();
    }
  }

  _drawGrid(ctx, g, pal, x0, x1, y0, y1) {
    const s = this.state;
    const dpr = this._dpr;
    const { cell, cellsMode } = g;
    const thin = Math.max(1, Math.round(Math.min(2, cell * 0.028) * dpr));
    const snap = (v, w) => (w % 2 ? Math.floor(v * dpr) + 0.5 : Math.round(v * dpr)) / dpr;
    ctx.strokeStyle = pal.line;
    ctx.lineWidth = thin / dpr;
    ctx.beginPath();
    const top = g.gy;
    const bottom = g.gy + g.spanH * cell;
    const left = g.gx;
    const right = g.gx + g.spanW * cell;
    // Cells have a line on each side (one more than points); intersections draw
    // their outer lines apart, heavier.
    const xb = cellsMode ? x1 + 1 : x1;
    const yb = cellsMode ? y1 + 1 : y1;
    for (let x = x0; x <= xb; x++) {
      if (!cellsMode && (x === 0 || x === s.width - 1)) continue;
      const sx = snap(g.gx + x * cell, thin);
      ctx.moveTo(sx, top);
      ctx.lineTo(sx, bottom);
    }
    for (let y = y0; y <= yb; y++) {
      if (!cellsMode && (y === 0 || y === s.height - 1)) continue;
      const sy = snap(g.gy + y * cell, thin);
      ctx.moveTo(left, sy);
      ctx.lineTo(right, sy);
    }
    ctx.stroke();
    if (!cellsMode) {
      // The outer line, a little heavier, as on a go board.
      const thick = Math.max(thin + 1, Math.round(Math.min(3, cell * 0.05) * dpr));
      ctx.lineWidth = thick / dpr;
      ctx.beginPath();
      const l = snap(left, thick);
      const r = snap(right, thick);
      const t = snap(top, thick);
      const b = snap(bottom, thick);
      ctx.rect(l, t, r - l, b - t);
      ctx.stroke();
      // Star points.
      ctx.fillStyle = pal.star;
      const sr = Math.max(1.8, cell * 0.1);
      ctx.beginPath();
      for (const [x, y] of starPoints(s.width, s.height)) {
        if (this._occupied(x, y)) continue;
        ctx.moveTo(this._sx(x) + sr, this._sy(y));
        ctx.arc(this._sx(x), this._sy(y), sr, 0, 2 * Math.PI);
      }
      ctx.fill();
    }
  }

  // Letters along the bottom, numbers (from the bottom) along the left; when the
  // board is zoomed past its margins they stay at the edge of the view.
  _drawCoords(ctx, g, pal, x0, x1, y0, y1) {
    if (!g.coords) return;
    const s = this.state;
    const { cell, m } = g;
    const font = m.font;
    ctx.font = `500 ${font}px ${FONT}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    const stone = g.cellsMode ? 1.5 : cell * 0.5;
    const inner = g.cellsMode ? 0 : cell * 0.12;
    // Natural places: in the margins.
    let colY = g.gy + g.spanH * cell + stone + inner + m.coordH / 2;
    let rowX = g.gx - stone - inner - m.coordW / 2;
    const stickyBottom = colY > g.availH - m.coordH / 2 + 1;
    const stickyLeft = rowX < m.coordW / 2 - 1;
    if (stickyBottom) colY = g.availH - m.coordH / 2;
    if (stickyLeft) rowX = m.coordW / 2;
    ctx.fillStyle = pal.coordBg;
    const bx0 = Math.max(0, g.gx - m.left);
    const bx1 = Math.min(g.availW, g.gx - m.left + g.boardW);
    const by0 = Math.max(0, g.gy - m.top);
    const by1 = Math.min(g.availH, g.gy - m.top + g.boardH);
    if (stickyBottom) ctx.fillRect(bx0, g.availH - m.coordH, bx1 - bx0, m.coordH);
    if (stickyLeft) ctx.fillRect(0, by0, m.coordW, by1 - by0);
    ctx.fillStyle = pal.coord;
    const colStep = cell >= font * (String(columnName(s.width - 1)).length * 0.6 + 0.5) ? 1 : 2;
    const rowStep = cell >= font * 1.05 ? 1 : 2;
    for (let x = x0; x <= x1; x++) {
      if (x % colStep) continue;
      const sx = this._sx(x);
      if (stickyLeft && sx < m.coordW + 2) continue;
      ctx.fillText(columnName(x), sx, colY);
    }
    for (let y = y0; y <= y1; y++) {
      if ((s.height - y) % rowStep && rowStep > 1) continue;
      const sy = this._sy(y);
      if (stickyBottom && sy > g.availH - m.coordH - 2) continue;
      ctx.fillText(String(s.height - y), rowX, sy);
    }
  }
}
