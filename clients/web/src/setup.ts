// The first screen: the game, its preset and options (from ListGames: each option with its doc, choices and
// default), and the seats: the player and bots by policy name.

import type { CreateTableRequest, GameInfo, OptionInfo, Rules } from "./api";
import { el } from "./dom";

export const POLICIES = ["random", "cautious", "best"];

export interface SetupChoice {
  request: CreateTableRequest;
  policies: string[]; // by seat; "" for the player
  title: string;
}

/** The Rules field of a game: "sette_e_mezzo" -> "setteEMezzo"; options likewise: "min_stake" -> "minStake". */
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

type Profile = Record<string, unknown>;

function presetProfile(game: GameInfo, preset: string): Profile {
  const found = game.presets.find((p) => p.name === preset) ?? game.presets[0];
  return ((found?.rules as Record<string, Profile> | undefined)?.[camel(game.id)] ?? {}) as Profile;
}

/** The enum's full proto name for a choice, from the preset's value (e.g. SETTE_E_MEZZO_PACK_ + FRENCH). */
function enumName(presetValue: unknown, option: OptionInfo, choice: string): string {
  const value = String(presetValue ?? "");
  const matched = option.choices.filter((c) => value.endsWith(`_${c}`)).sort((a, b) => b.length - a.length)[0];
  return matched ? value.slice(0, value.length - matched.length) + choice : choice;
}

function optionInput(option: OptionInfo, value: unknown): HTMLElement {
  const id = `opt-${option.name}`;
  let input: HTMLInputElement | HTMLSelectElement;
  if (option.type === "bool") {
    input = el("input", { type: "checkbox", id }) as HTMLInputElement;
    input.checked = value === true;
  } else if (option.type === "enum") {
    input = el("select", { id }) as HTMLSelectElement;
    for (const choice of option.choices) input.append(el("option", { value: choice }, choice));
    const current = option.choices.find((c) => String(value ?? "").endsWith(`_${c}`)) ?? String(option.defaultValue);
    input.value = current;
  } else if (option.type === "int") {
    input = el("input", { type: "number", id, step: "1", inputmode: "numeric" }) as HTMLInputElement;
    input.value = String(value ?? option.defaultValue ?? 0);
  } else {
    // "card | null" (a card in notation, empty for none) and "list[int]" (comma-separated ranks)
    input = el("input", { type: "text", id }) as HTMLInputElement;
    const list = (value as { values?: number[] } | undefined)?.values;
    input.value = option.type.startsWith("list") ? (list ?? []).join(", ") : String(value ?? "");
  }
  input.dataset.option = option.name;
  const shown = Array.isArray(option.defaultValue) ? option.defaultValue.join(", ") : String(option.defaultValue ?? "none");
  const choices = option.choices.length ? ` · ${option.choices.join(", ")}` : "";
  return el(
    "div",
    { class: "option" },
    el("label", { for: id }, el("code", {}, option.name)),
    input,
    el("small", {}, `${option.doc} (default: ${shown}${choices})`),
  );
}

/** The option's value as the form holds it, in the JSON form of the game's Rules message. */
function optionValue(option: OptionInfo, input: HTMLInputElement | HTMLSelectElement, presetValue: unknown): unknown {
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

function normalized(value: unknown): string {
  if (value && typeof value === "object" && "values" in value) return JSON.stringify((value as { values: unknown[] }).values);
  return JSON.stringify(value ?? null);
}

export function setupScreen(games: GameInfo[], start: (choice: SetupChoice) => void): HTMLElement {
  const gameSelect = el("select", { id: "game" }) as HTMLSelectElement;
  for (const g of games) gameSelect.append(el("option", { value: g.id }, g.title));
  const presetSelect = el("select", { id: "preset" }) as HTMLSelectElement;
  const options = el("div", { class: "options" });
  const seats = el("div", { class: "seats-setup" });
  const you = el("input", { id: "you", type: "text", value: "Tu" }) as HTMLInputElement;
  const chips = el("input", { id: "chips", type: "number", min: "0", step: "1", value: "50" }) as HTMLInputElement;

  const game = () => games.find((g) => g.id === gameSelect.value) ?? games[0];
  const fillPresets = () => {
    presetSelect.replaceChildren(...game().presets.map((p) => el("option", { value: p.name }, p.name)));
  };
  const fillOptions = () => {
    const profile = presetProfile(game(), presetSelect.value);
    options.replaceChildren(...game().options.map((o) => optionInput(o, profile[camel(o.name)])));
  };
  const botRow = (index: number) => {
    const policy = el("select", { "aria-label": `Bot ${index} policy (strategia)`, class: "policy" }) as HTMLSelectElement;
    for (const p of POLICIES) policy.append(el("option", { value: p }, p));
    const name = el("input", { type: "text", value: `Bot ${index}`, "aria-label": `Bot ${index} name (nome)`, class: "bot-name" });
    const remove = el("button", { type: "button", "aria-label": `Remove bot ${index} (togli)` }, "✕");
    const row = el("div", { class: "bot" }, name, policy, remove);
    remove.addEventListener("click", () => {
      if (seats.children.length > 1) row.remove();
    });
    return row;
  };
  seats.append(botRow(1), botRow(2));
  const addBot = el("button", { type: "button", id: "add-bot" }, "+ bot (aggiungi un bot)");
  addBot.addEventListener("click", () => seats.append(botRow(seats.children.length + 1)));

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
    el("div", { class: "row" }, el("label", { for: "game" }, "Gioco (game)"), gameSelect),
    el("div", { class: "row" }, el("label", { for: "preset" }, "Regole (preset)"), presetSelect),
    el("details", {}, el("summary", {}, "Opzioni (options)"), options),
    el("h3", {}, "Posti (seats)"),
    el("div", { class: "row" }, el("label", { for: "you" }, "Il tuo nome (your name)"), you),
    el("div", { class: "row" }, el("label", { for: "chips" }, "Fiches a testa (chips each)"), chips),
    seats,
    addBot,
    el("button", { type: "submit", id: "start", class: "primary" }, "Inizia (start)"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const g = game();
    const profile = presetProfile(g, presetSelect.value);
    const overrides: Record<string, unknown> = {};
    for (const option of g.options) {
      const input = options.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-option="${option.name}"]`);
      if (!input) continue;
      const before = profile[camel(option.name)];
      const value = optionValue(option, input, before);
      if (normalized(value) !== normalized(before)) overrides[camel(option.name)] = value;
    }
    const bots = [...seats.querySelectorAll(".bot")];
    const names = [you.value || "Tu", ...bots.map((b, i) => (b.querySelector(".bot-name") as HTMLInputElement).value || `Bot ${i + 1}`)];
    const policies = ["", ...bots.map((b) => (b.querySelector(".policy") as HTMLSelectElement).value)];
    const request: CreateTableRequest = {
      game: g.id,
      preset: presetSelect.value,
      seats: names.map((name) => ({ name, chips: String(Number(chips.value) || 0) })),
    };
    if (Object.keys(overrides).length) request.options = { [camel(g.id)]: overrides } as Rules;
    start({ request, policies, title: g.title });
  });
  return form;
}
