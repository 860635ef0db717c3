// The first screen: the game, its preset and options (from ListGames: each option with its doc, choices and
// default), the seats (each a person or a bot with a policy; the one you sit at), the chips and the turn time.
// "Solo" fills the other seats with bots, "with friends" with people.

import { fromJson, toJson, type JsonObject, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { GameInfo, OptionInfo } from "./api";
import { el } from "./dom";
import { t } from "./i18n";
import type { OpenTableRequestSchema } from "./gen/mazziere/v1/host_pb";
import { RulesSchema } from "./gen/mazziere/v1/table_pb";
import { choiceName, gameTitle, optionWords, POLICY_IDS, policyName, presetName } from "./words";

export interface SetupChoice {
  request: MessageInitShape<typeof OpenTableRequestSchema>;
  /** The seat the person opening the table sits at. */
  mySeat: number;
  title: string;
}

type Mode = "solo" | "friends";

/** Options a table that follows presence sets itself (services/host/sitting.py). */
const TABLE_DECIDES = new Set(["sit_out"]);

/** The Rules field of a game: "sette_e_mezzo" -> "setteEMezzo"; options likewise: "min_stake" -> "minStake". */
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const TURN_SECONDS: Record<Mode, number> = { solo: 300, friends: 60 };
const MOST_SEATS = 12;

/** A preset's profile in the JSON form of the game's Rules message (enum values by full name). */
function presetProfile(game: GameInfo, preset: string): JsonObject {
  const found = game.presets.find((p) => p.name === preset) ?? game.presets[0];
  if (!found?.rules) return {};
  const json = toJson(RulesSchema, found.rules) as JsonObject;
  const profile = json[camel(game.id)];
  return profile && typeof profile === "object" && !Array.isArray(profile) ? profile : {};
}

function defaultOf(option: OptionInfo): JsonValue {
  return option.defaultValue ? toJson(ValueSchema, option.defaultValue) : null;
}

/** The enum's full proto name for a choice, from the preset's value (e.g. SETTE_E_MEZZO_PACK_ + FRENCH). */
function enumName(presetValue: JsonValue | undefined, option: OptionInfo, choice: string): string {
  const value = String(presetValue ?? "");
  const matched = option.choices.filter((c) => value.endsWith(`_${c}`)).sort((a, b) => b.length - a.length)[0];
  return matched ? value.slice(0, value.length - matched.length) + choice : choice;
}

function optionInput(option: OptionInfo, value: JsonValue | undefined): HTMLElement {
  const id = `opt-${option.name}`;
  const fallback = defaultOf(option);
  let input: HTMLInputElement | HTMLSelectElement;
  if (option.type === "bool") {
    input = el("input", { type: "checkbox", id }) as HTMLInputElement;
    input.checked = value === true;
  } else if (option.type === "enum") {
    input = el("select", { id }) as HTMLSelectElement;
    for (const choice of option.choices) input.append(el("option", { value: choice }, choiceName(choice)));
    input.value = option.choices.find((c) => String(value ?? "").endsWith(`_${c}`)) ?? String(fallback);
  } else if (option.type === "int") {
    input = el("input", { type: "number", id, step: "1", inputmode: "numeric" }) as HTMLInputElement;
    input.value = String(value ?? fallback ?? 0);
  } else {
    // "card | null" (a card in notation, empty for none) and "list[int]" (comma-separated ranks)
    input = el("input", { type: "text", id }) as HTMLInputElement;
    const list = (value as { values?: number[] } | undefined)?.values;
    input.value = option.type.startsWith("list") ? (list ?? []).join(", ") : String(value ?? "");
  }
  input.dataset.option = option.name;
  const [label, doc] = optionWords(option.name, option.doc);
  return el("div", { class: "option" }, el("label", { for: id }, label), input, el("small", {}, `${doc} ${t.setup.defaultIs(defaultText(option, fallback))}`));
}

/** An option's default in words: a choice by its name, yes or no, a list, or "none". */
function defaultText(option: OptionInfo, value: JsonValue): string {
  if (value === null || value === "" || (Array.isArray(value) && !value.length)) return t.setup.none;
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "boolean") return value ? t.setup.yes : t.setup.no;
  if (option.type === "enum") return choiceName(String(value));
  return String(value);
}

/** The option's value as the form holds it, in the JSON form of the game's Rules message. */
function optionValue(option: OptionInfo, input: HTMLInputElement | HTMLSelectElement, presetValue: JsonValue | undefined): JsonValue {
  if (option.type === "bool") return (input as HTMLInputElement).checked;
  if (option.type === "enum") return enumName(presetValue, option, input.value);
  if (option.type === "int") return typeof presetValue === "string" ? String(Number(input.value)) : Number(input.value);
  if (option.type.startsWith("list")) {
    const values = input.value
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    return { values };
  }
  return input.value.trim();
}

function normalized(value: JsonValue | undefined): string {
  if (value && typeof value === "object" && !Array.isArray(value) && "values" in value) return JSON.stringify(value.values);
  return JSON.stringify(value ?? null);
}

export function setupScreen(games: GameInfo[], start: (choice: SetupChoice) => void, say: (text: string) => void): HTMLElement {
  let mode: Mode = "solo";
  const gameSelect = el("select", { id: "game" }) as HTMLSelectElement;
  for (const g of games) gameSelect.append(el("option", { value: g.id }, gameTitle(g.id)));
  const presetSelect = el("select", { id: "preset" }) as HTMLSelectElement;
  const options = el("div", { class: "options" });
  const seats = el("div", { class: "seats-setup", role: "list", "aria-label": t.setup.seats });
  const chips = el("input", { id: "chips", type: "number", min: "1", step: "1", value: "50" }) as HTMLInputElement;
  const turn = el("input", { id: "turn", type: "number", min: "10", max: "3600", step: "5", value: String(TURN_SECONDS.solo) }) as HTMLInputElement;
  let turnTouched = false;
  turn.addEventListener("input", () => (turnTouched = true));

  const game = () => games.find((g) => g.id === gameSelect.value) ?? games[0];
  const fillPresets = () => {
    presetSelect.replaceChildren(...game().presets.map((p) => el("option", { value: p.name }, presetName(p.name))));
  };
  const fillOptions = () => {
    const profile = presetProfile(game(), presetSelect.value);
    // Sitting out is the table's to decide, by who is there (docs/host.md): the form does not offer it.
    const offered = game().options.filter((o) => !TABLE_DECIDES.has(o.name));
    options.replaceChildren(...offered.map((o) => optionInput(o, profile[camel(o.name)])));
  };

  const rows = () => [...seats.querySelectorAll<HTMLElement>(".seat-row")];
  const kindOf = (row: HTMLElement) => (row.querySelector(".seat-kind") as HTMLSelectElement).value;
  /** Names the rows left at their default after their kind: people by name, bots by number. */
  const renumber = () => {
    let people = 0;
    let bots = 0;
    rows().forEach((row, i) => {
      const name = row.querySelector(".seat-name") as HTMLInputElement;
      const bot = kindOf(row) !== "";
      const fallback = bot ? t.setup.bot(++bots) : (t.setup.people[people++] ?? t.setup.player(i + 1));
      if (!name.dataset.typed) name.value = fallback;
      row.querySelector(".seat-number")!.textContent = `${i + 1}.`;
      name.setAttribute("aria-label", t.setup.nameOf(i + 1));
      row.querySelector(".seat-kind")!.setAttribute("aria-label", t.setup.kindOf(i + 1));
      row.querySelector(".me")!.setAttribute("aria-label", t.setup.meAt(i + 1));
    });
  };
  /** "You" sit at a person's seat: the first one if yours became a bot's. */
  const fixMe = () => {
    const all = rows();
    for (const row of all) (row.querySelector(".me") as HTMLInputElement).disabled = kindOf(row) !== "";
    if (!all.some((row) => (row.querySelector(".me") as HTMLInputElement).checked && kindOf(row) === "")) {
      const first = all.find((row) => kindOf(row) === "");
      if (first) (first.querySelector(".me") as HTMLInputElement).checked = true;
    }
  };
  const seatRow = (kind: string): HTMLElement => {
    const me = el("input", { type: "radio", name: "me", class: "me" }) as HTMLInputElement;
    const name = el("input", { type: "text", class: "seat-name", maxlength: "40" }) as HTMLInputElement;
    name.addEventListener("input", () => (name.dataset.typed = name.value ? "1" : ""));
    const select = el("select", { class: "seat-kind" }) as HTMLSelectElement;
    select.append(el("option", { value: "" }, t.setup.person), ...POLICY_IDS.map((id) => el("option", { value: id }, policyName(id))));
    select.value = kind;
    select.addEventListener("change", () => {
      renumber();
      fixMe();
    });
    const remove = el("button", { type: "button", class: "remove", "aria-label": t.setup.removeSeat }, "✕");
    const row = el("div", { class: "seat-row", role: "listitem" }, el("span", { class: "seat-number" }), me, name, select, remove);
    remove.addEventListener("click", () => {
      if (rows().length <= 2) return say(t.setup.twoSeats);
      row.remove();
      renumber();
      fixMe();
    });
    return row;
  };
  const addSeat = (kind: string) => {
    if (rows().length >= MOST_SEATS) return say(t.setup.mostSeats(MOST_SEATS));
    seats.append(seatRow(kind));
    renumber();
    fixMe();
  };
  const setMode = (next: Mode) => {
    mode = next;
    rows().forEach((row, i) => {
      const me = row.querySelector(".me") as HTMLInputElement;
      if (i === 0 || me.checked) return;
      (row.querySelector(".seat-kind") as HTMLSelectElement).value = next === "solo" ? "cautious" : "";
    });
    if (!turnTouched) turn.value = String(TURN_SECONDS[next]);
    renumber();
    fixMe();
  };
  addSeat("");
  addSeat("cautious");
  addSeat("cautious");
  (rows()[0].querySelector(".me") as HTMLInputElement).checked = true;

  const addButton = el("button", { type: "button", id: "add-seat" }, t.setup.addSeat);
  addButton.addEventListener("click", () => addSeat(mode === "solo" ? "cautious" : ""));
  const modeChoice = (value: Mode, label: string) => {
    const input = el("input", { type: "radio", name: "mode", id: `mode-${value}`, value }) as HTMLInputElement;
    input.checked = value === mode;
    input.addEventListener("change", () => setMode(value));
    return el("label", { class: "mode", for: `mode-${value}` }, input, label);
  };

  gameSelect.addEventListener("change", () => {
    fillPresets();
    fillOptions();
  });
  presetSelect.addEventListener("change", fillOptions);
  fillPresets();
  fillOptions();

  const form = el(
    "form",
    { id: "setup", "aria-labelledby": "setup-title" },
    el("h2", { id: "setup-title" }, t.setup.form),
    el("fieldset", { class: "modes" }, el("legend", {}, t.setup.who), modeChoice("solo", t.setup.solo), modeChoice("friends", t.setup.friends)),
    el("div", { class: "row" }, el("label", { for: "game" }, t.setup.game), gameSelect),
    el("div", { class: "row" }, el("label", { for: "preset" }, t.setup.rules), presetSelect),
    el("details", {}, el("summary", {}, t.setup.options), options),
    el("h3", {}, t.setup.seats),
    el("p", { class: "hint" }, t.setup.seatsHint),
    seats,
    addButton,
    el("div", { class: "row" }, el("label", { for: "chips" }, t.setup.chips), chips),
    el("div", { class: "row" }, el("label", { for: "turn" }, t.setup.turn), turn),
    el("p", { class: "hint" }, t.setup.turnHint),
    el("button", { type: "submit", id: "start", class: "primary" }, t.setup.open),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const g = game();
    const profile = presetProfile(g, presetSelect.value);
    const overrides: JsonObject = {};
    for (const option of g.options) {
      const input = options.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-option="${option.name}"]`);
      if (!input) continue;
      const before = profile[camel(option.name)];
      const value = optionValue(option, input, before);
      if (normalized(value) !== normalized(before)) overrides[camel(option.name)] = value;
    }
    const all = rows();
    const mySeat = all.findIndex((row) => (row.querySelector(".me") as HTMLInputElement).checked);
    if (mySeat < 0) return say(t.setup.onePerson);
    const each = BigInt(Math.max(0, Math.round(Number(chips.value) || 0)));
    const request: SetupChoice["request"] = {
      game: g.id,
      preset: presetSelect.value,
      seats: all.map((row, i) => ({
        name: (row.querySelector(".seat-name") as HTMLInputElement).value.trim() || t.setup.seatName(i + 1),
        chips: each,
        bot: kindOf(row),
      })),
      turnSeconds: Math.max(0, Math.round(Number(turn.value) || 0)),
      // The table waits for its people, pauses when nobody is there and plays for whoever is away.
      waitingRoom: true,
      followPresence: true,
    };
    if (Object.keys(overrides).length) {
      try {
        request.options = fromJson(RulesSchema, { [camel(g.id)]: overrides });
      } catch (error) {
        return say(t.setup.badOption(error instanceof Error ? error.message : String(error)));
      }
    }
    start({ request, mySeat, title: `${gameTitle(g.id)} · ${presetName(presetSelect.value)}` });
  });
  return form;
}
