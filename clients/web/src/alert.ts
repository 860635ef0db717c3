// The optional alert when a person's turn comes: a short tone (Web Audio, made here: no sound file) and a
// vibration where the device has one. Off until the person turns it on; the choice is remembered (localStorage).

const KEPT = "mazziere.alert";
let context: AudioContext | null = null;

export function alertOn(): boolean {
  try {
    return localStorage.getItem(KEPT) === "on";
  } catch {
    return false;
  }
}

/** Turns the alert on or off (a click: the browser lets a page start its sound only after one). */
export function setAlert(on: boolean): void {
  try {
    if (on) localStorage.setItem(KEPT, "on");
    else localStorage.removeItem(KEPT);
  } catch {
    // not kept: it holds for this page
  }
  if (on) {
    context ??= typeof AudioContext === "function" ? new AudioContext() : null;
    void context?.resume();
  }
}

/** A page reloaded with the alert on gets its sound back at the person's first click or key. */
export function wakeOnGesture(): void {
  const wake = () => {
    if (alertOn()) setAlert(true);
  };
  window.addEventListener("pointerdown", wake, { once: true });
  window.addEventListener("keydown", wake, { once: true });
}

/** Your turn: two short notes and a short buzz, if the person turned the alert on. */
export function yourTurn(): void {
  if (!alertOn()) return;
  navigator.vibrate?.(150);
  if (!context || context.state !== "running") return;
  const now = context.currentTime;
  for (const [index, frequency] of [660, 880].entries()) {
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, now + index * 0.15);
    gain.gain.exponentialRampToValueAtTime(0.2, now + index * 0.15 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + index * 0.15 + 0.14);
    tone.connect(gain).connect(context.destination);
    tone.start(now + index * 0.15);
    tone.stop(now + index * 0.15 + 0.15);
  }
}
