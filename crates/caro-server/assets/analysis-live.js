// analysis-live.js: the live analysis's connection: one WebSocket to
// /api/analysis/ws while the live panel is on, opened again when it drops,
// the position the engine works on and the engine's latest report on it.
//
//   const live = liveAnalysis({ get, onChange, onError, onClosed });
//   live.start();    live.stop();   // the panel's toggle on and off
//   live.send();     // after a change of the position shown (sent if it changed)
//   live.forget();   // a new game: the last report is not about it
//   live.on;         // whether it is on
//   live.data;       // the latest "analysis" message for the position sent, or null
//   live.state;      // idle | thinking | done | over | error
//   live.ply;        // the moves of the position sent (-1: none)
//
// get() returns { view, shown, destroyed } (analysis.js's state). onChange()
// comes after each message and each position sent, onError(e) with the
// server's error, or onError(null) when a report or a new position ends
// one, and onClosed() when the connection drops while on (it opens again).

/** The live analysis's connection (see the top of this file). */
export function liveAnalysis({ get, onChange, onError, onClosed }) {
  let on = false;           // the live panel is on
  let socket = null;
  let reconnect = null;     // timer
  let sentKey = null;       // the position the engine works on
  let sentPly = -1;
  let data = null;          // the latest "analysis" message for sentKey
  let state = "idle";       // idle | thinking | done | over | error
  let sendTimer = null;

  function positionKey() {
    const { view, shown } = get();
    if (!view) return null;
    return JSON.stringify([view.id, view.width, view.height, view.k, view.rule, view.first, view.moves.slice(0, shown)]);
  }
  function openSocket() {
    if (socket || get().destroyed) return;
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/analysis/ws";
    let ws;
    try { ws = new WebSocket(url); } catch (_) { scheduleReconnect(); return; }
    socket = ws;
    ws.onopen = () => { sentKey = null; send(); };
    ws.onmessage = (ev) => {
      if (socket !== ws) return;
      let m;
      try { m = JSON.parse(ev.data); } catch (_) { return; }
      if (m.type === "analysis") {
        // A report on the position before (a new one was sent since) is dropped.
        if (m.ply !== sentPly || !fitsShown(m)) return;
        data = m;
        state = "thinking";
        onError(null);
      } else if (m.type === "done") {
        if (state === "thinking") state = "done";
      } else if (m.type === "error") {
        state = "error";
        onError(m);
        // The server runs a few analyses at once: ask again a little later.
        if (m.code === "busy") {
          const key = sentKey;
          setTimeout(() => { if (on && socket === ws && sentKey === key) { sentKey = null; send(); } }, 3000);
        }
      }
      onChange();
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      if (on && !get().destroyed) {
        onClosed();
        scheduleReconnect();
      }
    };
  }
  function scheduleReconnect() {
    if (reconnect) return;
    reconnect = setTimeout(() => { reconnect = null; if (on && !get().destroyed) openSocket(); }, 1500);
  }
  function closeSocket() {
    if (reconnect) { clearTimeout(reconnect); reconnect = null; }
    if (sendTimer) { clearTimeout(sendTimer); sendTimer = null; }
    if (socket) {
      const ws = socket;
      socket = null;
      try { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "stop" })); } catch (_) { /* closing anyway */ }
      ws.close();
    }
    sentKey = null;
    sentPly = -1;
    data = null;
    state = "idle";
  }
  // Whether a report's moves are all on empty points of the position sent.
  function fitsShown(m) {
    const { view, shown } = get();
    if (!view || sentPly !== shown) return false;
    const taken = new Set(view.moves.slice(0, shown).map(([x, y]) => y * view.width + x));
    return (m.lines || []).every((l) => !l.move || !taken.has(l.move[1] * view.width + l.move[0]));
  }
  // Sends the shown position if it changed (a burst of changes, such as
  // holding an arrow key, sends only the last).
  function send() {
    if (!on || !get().view) return;
    const key = positionKey();
    if (key === sentKey) return;
    if (sendTimer) clearTimeout(sendTimer);
    sendTimer = setTimeout(() => {
      sendTimer = null;
      const { view, shown } = get();
      if (!on || !view || !socket || socket.readyState !== WebSocket.OPEN) return;
      const k2 = positionKey();
      if (k2 === sentKey) return;
      sentKey = k2;
      sentPly = shown;
      data = null;
      onError(null);
      if (view.result && shown === view.moves.length) {
        state = "over";
        socket.send(JSON.stringify({ type: "stop" }));
      } else {
        state = "thinking";
        socket.send(JSON.stringify({
          type: "analyse", width: view.width, height: view.height, k: view.k, rule: view.rule,
          first: view.first, moves: view.moves.slice(0, shown), lines: 3,
        }));
      }
      onChange();
    }, 80);
  }

  return {
    get on() { return on; },
    get data() { return data; },
    get state() { return state; },
    get ply() { return sentPly; },
    start() { on = true; state = "thinking"; openSocket(); send(); },
    stop() { on = false; closeSocket(); },
    send,
    forget() { data = null; },
  };
}
