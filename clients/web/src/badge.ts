// Fair dealing in one badge (docs/fairness.md): "mazzo verificato ✓" once a revealed pack checks out in this
// browser, the mismatch in red, "sigillato" before any reveal. A click opens what stands behind it: what the
// check is, every draw's commitment, who added their chance to it and its seed, and the fairness lines of the
// log (commitments, contributions, reveals), which the log itself leaves out.

import { el } from "./dom";
import type { Verdict } from "./fairness";
import { t } from "./i18n";
import type { Ui } from "./screen";
import type { Session } from "./session";
import { seatName, shortHex } from "./words";

/** The badge's words and state for a verdict (none yet: sealed). */
function verdictWords(verdict: Verdict | undefined): { text: string; state: string } {
  if (!verdict) return { text: t.fairness.sealed, state: "sealed" };
  if (verdict.ok === false) return { text: verdict.packs ? t.fairness.mismatch : t.fairness.drawMismatch, state: "bad" };
  if (verdict.ok === null) return { text: t.fairness.unverifiable, state: "unknown" };
  return { text: verdict.packs ? t.fairness.verified : t.fairness.drawVerified, state: "ok" };
}

/** The verdict in one line, as it is read out when it changes. */
export function verdictText(verdict: Verdict): string {
  return verdictWords(verdict).text;
}

function detail(verdict: Verdict | undefined): string {
  if (!verdict) return "";
  if (verdict.ok === false) return t.fairness.failed(verdict.error);
  if (verdict.ok === null) return t.fairness.notHere(verdict.draws.join(", "));
  return t.fairness.checked(verdict.checked.join(", "), verdict.cards);
}

/** A hex value, short, with the whole of it selectable and on hover. */
const hex = (data: string) => el("code", { title: data }, shortHex(data));

export function fairnessBadge(s: Session, ui: Ui, lines: string[]): HTMLElement {
  const { commitment, verdict } = s.fairness;
  const { text, state } = verdictWords(verdict);
  const names = s.names;
  const draws = s.fairness.draws().map((d) => {
    const parts: (Node | string)[] = [el("strong", {}, t.fairness.draw(String(d.draw)))];
    if (d.commitment) parts.push(` · ${t.fairness.commitment} `, hex(d.commitment));
    if (d.seats.length) parts.push(` · ${t.fairness.contributions} ${d.seats.map((seat) => seatName(names, seat)).join(", ")}`);
    if (d.seed) parts.push(` · ${t.fairness.seed} `, hex(d.seed));
    return el("li", {}, ...parts);
  });
  const badge = el(
    "details",
    {
      class: "fairness",
      "data-draw": commitment ? String(commitment.draw) : "",
      "data-commitment": commitment?.data ?? "",
      "data-verified": verdict ? String(verdict.ok) : "",
    },
    el("summary", { "data-key": "fairness" }, el("span", { class: `verdict ${state}` }, text)),
    el("p", {}, t.fairness.what),
    detail(verdict) ? el("p", { class: `verdict-detail ${state}` }, detail(verdict)) : "",
    commitment ? el("p", {}, `${t.fairness.next(String(commitment.draw))} · ${t.fairness.commitment} `, hex(commitment.data)) : "",
    draws.length ? el("ul", { class: "draws" }, ...draws) : "",
    lines.length ? el("h4", {}, t.fairness.history) : "",
    lines.length ? el("ol", { class: "fair-log" }, ...lines.map((line) => el("li", {}, line))) : "",
  ) as HTMLDetailsElement;
  badge.open = ui.fairnessOpen;
  badge.addEventListener("toggle", () => (ui.fairnessOpen = badge.open));
  return badge;
}
