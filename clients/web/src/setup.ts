// The first screen: the game, its preset and options (from ListGames: each option with its doc, choices and
// default), the seats (each a person or a bot with a policy; the one you sit at), the chips and the turn time.
// "Solo" fills the other seats with bots, "with friends" with people.

import { fromJson, toJson, type JsonObject, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { GameInfo, OptionInfo } from "./api";
import { el } from "./dom";
import type { OpenTableRequestSchema } from "./gen/mazziere/v1/host_pb";
import { RulesSchema } from "./gen/mazziere/v1/table_pb";
import { POLICIES, presetName } from "./words";

export interface SetupChoice {
  request: MessageInitShape<typeof OpenTableRequestSchema>;
  /** The seat the person opening the table sits at. */
  mySeat: number;
  title: string;
}

type Mode = "solo" | "friends";

/** The Rules field of a game: "sette_e_mezzo" -> "setteEMezzo"; options likewise: "min_stake" -> "minStake". */
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const PEOPLE = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Franco", "Giulia", "Ivo", "Laura", "Marco", "Nina", "Oscar"];
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
    for (const choice of option.choices) input.append(el("option", { value: choice }, choice.toLowerCase().replace(/_/g, " ")));
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
  const shown = Array.isArray(fallback) ? fallback.join(", ") : String(fallback ?? "none");
  return el(
    "div",
    { class: "option" },
    el("label", { for: id }, el("code", {}, option.name.replace(/_/g, " "))),
    input,
    el("small", {}, `${option.doc} (default: ${shown.toLowerCase()})`),
  );
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
  for (const g of games) gameSelect.append(el("option", { value: g.id }, g.title));
  const presetSelect = el("select", { id: "preset" }) as HTMLSelectElement;
  const options = el("div", { class: "options" });
  const seats = el("div", { class: "seats-setup", role: "list", "aria-label": "Posti (seats)" });
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
    options.replaceChildren(...game().options.map((o) => optionInput(o, profile[camel(o.name)])));
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
      const fallback = bot ? `Bot ${++bots}` : (PEOPLE[people++] ?? `Giocatore ${i + 1}`);
      if (!name.dataset.typed) name.value = fallback;
      row.querySelector(".seat-number")!.textContent = `${i + 1}.`;
      name.setAttribute("aria-label", `Nome, posto ${i + 1} (name, seat ${i + 1})`);
      row.querySelector(".seat-kind")!.setAttribute("aria-label", `Chi gioca al posto ${i + 1} (who plays seat ${i + 1})`);
      row.querySelector(".me")!.setAttribute("aria-label", `Al posto ${i + 1} siedi tu (you sit at seat ${i + 1})`);
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
    select.append(el("option", { value: "" }, "persona (person)"), ...POLICIES.map((p) => el("option", { value: p.id }, p.name)));
    select.value = kind;
    select.addEventListener("change", () => {
      renumber();
      fixMe();
    });
    const remove = el("button", { type: "button", class: "remove", "aria-label": "Togli il posto (remove the seat)" }, "✕");
    const row = el("div", { class: "seat-row", role: "listitem" }, el("span", { class: "seat-number" }), me, name, select, remove);
    remove.addEventListener("click", () => {
      if (rows().length <= 2) return say("Servono almeno due posti (a table needs two seats at least)");
      row.remove();
      renumber();
      fixMe();
    });
    return row;
  };
  const addSeat = (kind: string) => {
    if (rows().length >= MOST_SEATS) return say(`Al più ${MOST_SEATS} posti (${MOST_SEATS} seats at most)`);
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

  const addButton = el("button", { type: "button", id: "add-seat" }, "+ posto (add a seat)");
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
    { id: "setup", "aria-label": "Nuovo tavolo (new table)" },
    el("h2", {}, "Nuovo tavolo (new table)"),
    el(
      "fieldset",
      { class: "modes" },
      el("legend", {}, "Con chi giochi? (who do you play with?)"),
      modeChoice("solo", "Da solo contro i bot (solo against bots)"),
      modeChoice("friends", "Con gli amici (with friends): ognuno dal suo telefono (each on their own device)"),
    ),
    el("div", { class: "row" }, el("label", { for: "game" }, "Gioco (game)"), gameSelect),
    el("div", { class: "row" }, el("label", { for: "preset" }, "Regole (rules)"), presetSelect),
    el("details", {}, el("summary", {}, "Opzioni (options)"), options),
    el("h3", {}, "Posti (seats)"),
    el(
      "p",
      { class: "hint" },
      "Per ogni posto: una persona o un bot; il pallino dice dove siedi tu. (Each seat: a person or a bot; the dot marks yours.)",
    ),
    seats,
    addButton,
    el("div", { class: "row" }, el("label", { for: "chips" }, "Fiches a testa (chips each)"), chips),
    el("div", { class: "row" }, el("label", { for: "turn" }, "Secondi per mossa (seconds a turn)"), turn),
    el(
      "p",
      { class: "hint" },
      "Allo scadere il tavolo gioca al posto di chi tarda, con prudenza. " +
        "(When the time runs out the table plays a cautious move for the late player.)",
    ),
    el("button", { type: "submit", id: "start", class: "primary" }, "Apri il tavolo (open the table)"),
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
    if (mySeat < 0) return say("Serve almeno un posto per una persona (a table needs one person's seat at least)");
    const each = BigInt(Math.max(0, Math.round(Number(chips.value) || 0)));
    const request: SetupChoice["request"] = {
      game: g.id,
      preset: presetSelect.value,
      seats: all.map((row, i) => ({
        name: (row.querySelector(".seat-name") as HTMLInputElement).value.trim() || `Posto ${i + 1}`,
        chips: each,
        bot: kindOf(row),
      })),
      turnSeconds: Math.max(0, Math.round(Number(turn.value) || 0)),
    };
    if (Object.keys(overrides).length) {
      try {
        request.options = fromJson(RulesSchema, { [camel(g.id)]: overrides });
      } catch (error) {
        return say(`Un'opzione non va (an option is not valid): ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    start({ request, mySeat, title: `${g.title} · ${presetName(presetSelect.value)}` });
  });
  return form;
}
