// The page's words live in the catalogues (src/i18n/), never in its code: this lint finds a user-visible string
// literal anywhere else in src/ (src/gen/, generated, aside) and fails on it.
//
// A literal is user-visible where the page shows it: a child of el(), the label of button(), text appended to an
// element, an attribute people read (aria-label, title, alt, placeholder, label, text), textContent and the like,
// an Error's message. Such a literal may hold no letter at all (punctuation and symbols: " · ", "✕", "→"). Anywhere
// else a literal may not look like a sentence either: a letter outside ASCII, or three words or more with a
// capital or punctuation. SVG markup is drawing, not words.
//
//   node tools/lint-strings.mjs [file or folder ...]     (default: src)
// prints each literal found as path:line:column and exits 1 if any.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const HERE = new URL("..", import.meta.url).pathname;
const SKIPPED = ["src/i18n/", "src/gen/"];
const SHOWN_PROPERTIES = new Set(["textContent", "innerText", "title", "placeholder", "ariaLabel", "alt", "label"]);
const SHOWN_ATTRIBUTES = new Set(["aria-label", "aria-description", "aria-valuetext", "title", "alt", "placeholder", "label", "text"]);
const SHOWING_METHODS = new Set(["append", "prepend", "replaceChildren", "before", "after", "replaceWith", "alert", "confirm", "prompt"]);
const LETTER = /\p{L}/u;
const NON_ASCII_LETTER = /[^\P{L}a-zA-Z]/u;

function files(path) {
  if (statSync(path).isDirectory()) return readdirSync(path).flatMap((name) => files(join(path, name)));
  return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
}

const isMarkup = (text) => /^\s*</.test(text) || /<\/?(svg|path|rect|circle|g|text|defs|pattern)\b/.test(text);

/** A CSS selector: a class, an id or an attribute named right after the start, a space, a comma or a combinator. */
const isSelector = (text) => /(^|[\s,>(])[.#[][a-z]/i.test(text);

/** Three words or more, with a capital or punctuation: a sentence, not a class list, a selector or a key. */
function sentence(text) {
  const words = text.match(/\p{L}{2,}/gu) ?? [];
  return words.length >= 3 && /\s/.test(text) && (/[A-Z]/.test(text) || /[,.:;!?'’]/.test(text)) && !isSelector(text);
}

/** The static text of a literal (a template's parts between its expressions). */
function textOf(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(" ");
  return null;
}

function calleeName(call) {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return "";
}

/** Whether `node` sits where the page shows it (as an argument, a value or an assignment that shows text). */
function shown(node) {
  let child = node;
  let parent = node.parent;
  // Through the expressions that pass a value on (a ?: b, a ?? b, (a), a + b, [a, b]), not through calls.
  while (
    parent &&
    (ts.isConditionalExpression(parent) ||
      ts.isParenthesizedExpression(parent) ||
      ts.isArrayLiteralExpression(parent) ||
      ts.isSpreadElement(parent) ||
      (ts.isBinaryExpression(parent) && parent.operatorToken.kind !== ts.SyntaxKind.EqualsToken && parent.right === child) ||
      (ts.isBinaryExpression(parent) && [ts.SyntaxKind.PlusToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(parent.operatorToken.kind)))
  ) {
    if (ts.isConditionalExpression(parent) && parent.condition === child) return false;
    child = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const index = parent.arguments?.indexOf(child) ?? -1;
    if (index < 0) return false;
    const name = ts.isNewExpression(parent) ? (ts.isIdentifier(parent.expression) ? parent.expression.text : "") : calleeName(parent);
    if (name === "el") return index >= 2;
    if (name === "button") return index === 1;
    if (name === "say") return true;
    if (name === "setAttribute") return index === 1 && SHOWN_ATTRIBUTES.has(textOf(parent.arguments[0]) ?? "");
    if (name === "Error") return true;
    return SHOWING_METHODS.has(name);
  }
  if (ts.isPropertyAssignment(parent) && parent.initializer === child) {
    const key = ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name) ? parent.name.text : "";
    return SHOWN_ATTRIBUTES.has(key);
  }
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && parent.right === child) {
    return ts.isPropertyAccessExpression(parent.left) && SHOWN_PROPERTIES.has(parent.left.name.text);
  }
  return false;
}

function lint(path) {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    const text = textOf(node);
    if (text !== null && !isMarkup(text)) {
      const bad = shown(node) ? LETTER.test(text) : NON_ASCII_LETTER.test(text) || sentence(text);
      if (bad) {
        const { line, character } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(process.cwd(), path)}:${line + 1}:${character + 1}: ${node.getText().slice(0, 80)}`);
      }
    }
    if (!ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
    else node.templateSpans.forEach((span) => visit(span.expression));
  };
  visit(source);
  return found;
}

const targets = process.argv.slice(2).length ? process.argv.slice(2) : [join(HERE, "src")];
const checked = targets.flatMap(files).filter((path) => !SKIPPED.some((skip) => relative(HERE, path).startsWith(skip)));
const found = checked.flatMap(lint);
for (const line of found) console.log(line);
console.log(`${checked.length} files checked, ${found.length} user-visible literals outside the catalogues`);
process.exit(found.length ? 1 : 0);
