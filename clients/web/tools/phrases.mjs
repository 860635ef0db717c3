// The phrases of each catalogue (src/i18n/), for the test that renders every screen in each language and looks
// for the other language's phrases: every string of a catalogue, and the fixed parts of every sentence it makes
// (a sentence is made with stand-ins for its values, and cut where they stand).
//
//   node tools/phrases.mjs     prints {"it": [...], "en": [...]} as JSON

import { build } from "esbuild";

const HERE = new URL("..", import.meta.url).pathname;
const STAND_IN = "\u0001";

const bundled = await build({
  entryPoints: [`${HERE}src/i18n/index.ts`],
  bundle: true,
  write: false,
  format: "esm",
  platform: "neutral",
  logLevel: "silent",
});
const { LANGUAGES } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString("base64")}`);

/** A value of any shape that reads as the stand-in: a name, a number, a card's or an event's words. */
const anything = new Proxy(
  {},
  { get: (_, key) => (key === Symbol.toPrimitive ? () => STAND_IN : key === "count" ? 2 : STAND_IN) },
);

function strings(value) {
  if (typeof value === "string") return [value];
  if (typeof value === "function") return strings(value(anything, anything, anything));
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

const phrases = {};
for (const [code, catalogue] of Object.entries(LANGUAGES)) {
  const parts = strings(catalogue).flatMap((text) => text.split(STAND_IN));
  phrases[code] = [...new Set(parts.map((part) => part.trim()).filter((part) => /\p{L}{2,}/u.test(part)))].sort();
}
console.log(JSON.stringify(phrases));
