// The page's language: one at a time, Italian or English. Chosen from the browser's languages until the person
// picks one with the switch; that choice is remembered (localStorage). `t` is the catalogue in use: an ES module
// binding, so every module reads the current one after a switch.

import { en } from "./en";
import { type Catalogue, it } from "./it";

export type { Catalogue } from "./it";

export const LANGUAGES: Record<string, Catalogue> = { it, en };
const KEPT = "mazziere.language";

export let language = "it";
export let t: Catalogue = it;

/** The language kept by the switch, else the browser's first Italian or English one, else English. */
export function chosenLanguage(): string {
  let kept: string | null = null;
  try {
    kept = localStorage.getItem(KEPT);
  } catch {
    // storage refused (a private window): the browser's language decides
  }
  if (kept && kept in LANGUAGES) return kept;
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language]) {
    const base = tag.toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

/** Uses `code`'s catalogue (and marks the document with its language); `remember` keeps it for the next visit. */
export function useLanguage(code: string, remember = false): void {
  language = code in LANGUAGES ? code : "en";
  t = LANGUAGES[language];
  document.documentElement.lang = language;
  document.title = t.page.title;
  if (remember) {
    try {
      localStorage.setItem(KEPT, language);
    } catch {
      // not kept: the switch still works for this page
    }
  }
}
