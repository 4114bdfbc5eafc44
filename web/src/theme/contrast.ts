// WCAG 2 contrast arithmetic: relative luminance and contrast ratio of #rgb/#rrggbb
// colours, and the text colour to draw on a background the user chose (a queue's or a
// tag's colour), so that its label stays readable whatever the colour.

function channel(v: number): number {
  const c = v / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

// luminance of a #rgb or #rrggbb colour; null for anything else.
export function luminance(hex: string): number | null {
  let h = hex.trim().replace(/^#/, '');
  if (/^[0-9a-f]{3}$/i.test(h)) h = h.replace(/./g, (c) => c + c);
  if (!/^[0-9a-f]{6}$/i.test(h)) return null;
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

// contrastRatio of two colours (1 to 21); 0 when either is unreadable.
export function contrastRatio(a: string, b: string): number {
  const la = luminance(a);
  const lb = luminance(b);
  if (la === null || lb === null) return 0;
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

// readableOn answers whichever of light and dark contrasts more with background; an
// unreadable background gets light (the badges' usual white). With pure white and
// black the better of the two is at least 4.58:1 on any colour, so a label always
// meets AA.
export function readableOn(background: string, light = '#ffffff', dark = '#000000'): string {
  return contrastRatio(dark, background) > contrastRatio(light, background) ? dark : light;
}
