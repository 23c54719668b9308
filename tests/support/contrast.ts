// WCAG 2.2 contrast ratio between two colours (#rgb, #rrggbb or CSS rgb()/rgba() as browsers compute them).
export type Rgb = [number, number, number];

export function parseColor(text: string): Rgb & { alpha?: number } {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(text.trim());
  if (hex) {
    const digits = (hex[1] as string).length === 3 ? [...(hex[1] as string)].map((d) => d + d).join("") : (hex[1] as string);
    return [0, 2, 4].map((i) => Number.parseInt(digits.slice(i, i + 2), 16)) as Rgb;
  }
  const fn = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+))?\s*\)$/.exec(text.trim());
  if (!fn) throw new Error(`not a colour this helper understands: ${text}`);
  const rgb = [Number(fn[1]), Number(fn[2]), Number(fn[3])] as Rgb & { alpha?: number };
  if (fn[4] !== undefined) rgb.alpha = Number(fn[4]);
  return rgb;
}

/** WCAG relative luminance (sRGB). */
function luminance([r, g, b]: Rgb): number {
  const channel = (value: number): number => {
    const c = value / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** (L1 + 0.05) / (L2 + 0.05), lighter over darker: 1 to 21. */
export function contrast(a: string, b: string): number {
  const [la, lb] = [luminance(parseColor(a)), luminance(parseColor(b))];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}
