// sound.js: short tones for a move, a win and a loss (Web Audio, no files).

let audio = null;

/** Plays `kind` ("move", "win" or "loss") when `on`. */
export function sound(kind, on) {
  if (!on || !kind) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const notes = kind === "move" ? [[660, 0.05]] : kind === "win" ? [[523, 0.12], [659, 0.12], [784, 0.25]] : [[392, 0.15], [330, 0.15], [262, 0.3]];
    let at = audio.currentTime;
    for (const [freq, len] of notes) {
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = freq; osc.type = kind === "move" ? "triangle" : "sine";
      gain.gain.setValueAtTime(0.15, at); gain.gain.exponentialRampToValueAtTime(0.001, at + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(at); osc.stop(at + len);
      at += len;
    }
  } catch (_) { /* no audio: play on silently */ }
}
