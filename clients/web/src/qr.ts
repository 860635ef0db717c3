// An invite link as a QR code, to scan from the phone next to you: lean-qr encodes it (in the bundle, nothing
// fetched), and it is drawn here as inline SVG markup (no image URL: the page's CSP allows none but its own).

import { correction, generate } from "lean-qr";

/** Modules of white around the code, as scanners expect. */
const QUIET = 4;

/** The QR code of `text` as SVG markup: dark modules as one path over a white square. */
export function qrSvg(text: string): string {
  const code = generate(text, { minCorrectionLevel: correction.M });
  const side = code.size + 2 * QUIET;
  let path = "";
  for (let y = 0; y < code.size; y += 1) {
    let x = 0;
    while (x < code.size) {
      if (!code.get(x, y)) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < code.size && code.get(x, y)) x += 1;
      path += `M${start + QUIET} ${y + QUIET}h${x - start}v1h${start - x}z`;
    }
  }
  return (
    `<svg viewBox="0 0 ${side} ${side}" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false" ` +
    `shape-rendering="crispEdges"><rect width="${side}" height="${side}" fill="#fff"/>` +
    `<path d="${path}" fill="#000"/></svg>`
  );
}
