// What the page keeps in localStorage, by table: the capability it plays or watches with (a seat's invite, or the
// spectators'), and the owner's capability when this browser opened the table. Nothing else: no state token, no
// seat key (the host keeps those), no view; a reload asks the host for the table again.

export interface Kept {
  /** The invite this browser plays (a seat's) or watches (the spectators') with. */
  capability: string;
  /** The owner's capability (reissues invites, closes the table), if this browser opened the table. */
  owner?: string;
  /** When it was kept (ms): the oldest are forgotten first. */
  at: number;
}

const TABLES = "mazziere.tables";
const LAST = "mazziere.last";
const MOST = 20;

function all(): Record<string, Kept> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(TABLES) ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Record<string, Kept>) : {};
  } catch {
    return {};
  }
}

export function kept(tableId: string): Kept | undefined {
  const found = all()[tableId];
  return found && typeof found.capability === "string" ? found : undefined;
}

/** Keeps `capability` for the table (and `owner`, or the owner's capability kept before); it becomes the last. */
export function keep(tableId: string, capability: string, owner?: string): void {
  const tables = all();
  const before = tables[tableId];
  tables[tableId] = { capability, owner: owner ?? before?.owner, at: Date.now() };
  const oldest = Object.entries(tables).sort(([, a], [, b]) => b.at - a.at).slice(MOST);
  for (const [id] of oldest) delete tables[id];
  localStorage.setItem(TABLES, JSON.stringify(tables));
  localStorage.setItem(LAST, tableId);
}

export function forget(tableId: string): void {
  const tables = all();
  delete tables[tableId];
  localStorage.setItem(TABLES, JSON.stringify(tables));
  if (localStorage.getItem(LAST) === tableId) localStorage.removeItem(LAST);
}

/** The table this browser was at last, if it still keeps its capability. */
export function last(): string | null {
  const id = localStorage.getItem(LAST);
  return id && kept(id) ? id : null;
}

export function leave(): void {
  localStorage.removeItem(LAST);
}
