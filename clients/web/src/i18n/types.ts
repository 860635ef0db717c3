// The shapes the catalogues' sentences are filled from: an event's words, already in the page's language (names,
// cards, points), so that each catalogue only orders them.

/** One event of the log, its parts in words ("" where the event has none). */
export interface EventWords {
  /** The seat the event is about, by name. */
  who: string;
  /** The second seat it names. */
  to: string;
  /** Its cards, named. */
  cards: string;
  /** Its amount, as a number. */
  amount: string;
  /** Its amount in chips, with the word for chips ("3 fiches"). */
  chips: string;
  /** " · punti 4½" where the event tells points (the catalogue's `points` fragment), else "". */
  points: string;
  /** " · rilancia di 2" where the move raised the stake, else "". */
  raise: string;
  /** The draw the event is about (fairness events). */
  draw: string;
  /** Cards counted (a revealed pack). */
  count: number;
  /** Trentuno's exchange: the card given and the card taken. */
  given: string;
  taken: string;
}

/** A card's parts, named: its rank ("7", "re", "king") and its suit ("coppe", "cups"). */
export interface CardWords {
  rank: string;
  suit: string;
}
