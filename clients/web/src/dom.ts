/** An element with attributes and children (strings become text: never parsed as HTML). */
export function el(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** A button (never a form's submit) that runs `click`. */
export function button(attrs: Record<string, string>, label: string, click: () => void): HTMLButtonElement {
  const node = el("button", { type: "button", ...attrs }, label) as HTMLButtonElement;
  node.addEventListener("click", click);
  return node;
}
