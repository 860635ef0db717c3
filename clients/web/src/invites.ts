// The owner's panel: each other person's invite link and the spectators', shown once, right after the table
// opens, each to copy, to show as a QR code (scanned from the phone next to you) and to send through the phone's
// share sheet where the browser has one. Once every link is copied or shared (or "done" is pressed, or the owner
// plays), the panel folds and moves below the log, so that a shared screen shows no link. Folded, it still makes
// a new invite for a seat (which revokes the old one) and closes the table for everyone.

import type * as api from "./api";
import { button, el } from "./dom";
import { t } from "./i18n";
import { qrSvg } from "./qr";
import type { Handlers, Ui } from "./screen";
import type { Session } from "./session";

/** The browser offers a share sheet (most phones; few desktop browsers). */
export function canShare(): boolean {
  return typeof navigator.share === "function";
}

/** One link sent: once all are, the panel folds. */
function sent(ui: Ui, key: string, h: Handlers): void {
  ui.sent.add(key);
  if ([...ui.invites.keys()].every((k) => ui.sent.has(k)) && !ui.invitesDone) {
    ui.invitesDone = true;
    ui.ownerOpen = false;
    ui.qr.clear();
  }
  h.redraw();
}

/** An invite link with its copy, share and QR buttons (the link is text: opening it here would take this page
 * to that seat). */
function inviteRow(ui: Ui, h: Handlers, label: string, key: string, invite: api.Invite, name: string): HTMLElement {
  const id = `invite-${key}`;
  const input = el("input", { type: "text", id, readonly: "", class: "invite-url", "data-invite": key, "data-key": id }) as HTMLInputElement;
  input.value = invite.url;
  input.addEventListener("focus", () => input.select());
  const copy = button({ class: "copy", "data-key": `copy-${key}` }, ui.sent.has(key) ? t.invites.copied : t.invites.copy, () => {
    navigator.clipboard.writeText(invite.url).then(
      () => sent(ui, key, h),
      () => {
        input.focus();
        input.select();
        copy.textContent = t.invites.selected;
      },
    );
  });
  const shown = ui.qr.has(key);
  const qr = button({ class: "qr", "data-key": `qr-${key}`, "aria-expanded": String(shown), "aria-controls": `qr-${key}` }, t.invites.qr, () => {
    if (shown) ui.qr.delete(key);
    else ui.qr.add(key);
    h.redraw();
  });
  const row = el("div", { class: "invite" }, el("label", { for: id }, label), input, copy);
  if (canShare()) {
    const text = key === "spectators" ? t.invites.shareSpectators : t.invites.shareText(name);
    row.append(
      button({ class: "share", "data-key": `share-${key}` }, t.invites.share, () => {
        navigator.share({ title: t.invites.shareTitle, text, url: invite.url }).then(
          () => sent(ui, key, h),
          () => undefined, // dismissed: nothing was sent
        );
      }),
    );
  }
  row.append(qr);
  if (shown) {
    const code = el("div", { class: "qr-code", id: `qr-${key}`, role: "img", "aria-label": t.invites.qrOf(name), "data-qr": key });
    code.innerHTML = qrSvg(invite.url);
    row.append(code);
  }
  return row;
}

export function invitesPanel(s: Session, ui: Ui, h: Handlers): HTMLElement | null {
  if (!s.owner || s.closed) return null;
  const names = s.names;
  const rows: HTMLElement[] = [];
  for (const p of s.presence) {
    if (p.bot || p.seat === s.seat) continue;
    const key = `seat-${p.seat}`;
    const name = names[p.seat] ?? p.name;
    const invite = ui.invites.get(key);
    const again = button({ class: "reissue", "data-key": `reissue-${key}` }, t.invites.reissue(name), () => h.reissue(p.seat));
    rows.push(el("div", { class: "owner-seat" }, invite ? inviteRow(ui, h, t.invites.of(name), key, invite, name) : "", again));
  }
  const watchers = ui.invites.get("spectators");
  const again = button({ class: "reissue", "data-key": "reissue-spectators" }, t.invites.reissueSpectators, () => h.reissue(undefined));
  rows.push(
    el(
      "div",
      { class: "owner-seat" },
      watchers ? inviteRow(ui, h, t.invites.spectators, "spectators", watchers, t.invites.spectators) : "",
      again,
    ),
  );
  const close = el("div", { class: "close-table" });
  if (ui.confirmClose) {
    const yes = button({ class: "danger", id: "close-yes", "data-key": "close-yes" }, t.invites.closeYes, () => h.close());
    const no = button({ "data-key": "close-no" }, t.invites.closeNo, () => {
      ui.confirmClose = false;
      h.redraw();
    });
    close.append(el("span", {}, `${t.invites.closeAsk} `), yes, no);
  } else {
    close.append(
      button({ id: "close-table", "data-key": "close-table" }, t.invites.close, () => {
        ui.confirmClose = true;
        h.redraw();
      }),
    );
  }
  const fresh = !ui.invitesDone;
  const done = fresh
    ? button({ id: "invites-done", class: "primary", "data-key": "invites-done" }, t.invites.done, () => {
        ui.invitesDone = true;
        ui.ownerOpen = false;
        ui.qr.clear();
        h.redraw();
      })
    : "";
  const details = el(
    "details",
    { class: `owner${fresh ? " fresh" : ""}`, id: "owner", "data-folded": String(!fresh) },
    el("summary", { "data-key": "owner" }, fresh ? t.invites.invite : t.invites.title),
    fresh ? el("p", { class: "hint" }, t.invites.hint) : "",
    ...rows,
    done,
    close,
  ) as HTMLDetailsElement;
  details.open = ui.ownerOpen;
  details.addEventListener("toggle", () => (ui.ownerOpen = details.open));
  return details;
}
