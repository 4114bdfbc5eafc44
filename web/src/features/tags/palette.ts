// The fixed colours offered by the tag and queue colour pickers (spec section 9: about
// 50). These are data — the colour a tag or queue is stored with — not theme colours.
export const colorPalette: readonly string[] = [
  '#b71c1c', '#d32f2f', '#f44336', '#e57373', '#880e4f', '#c2185b', '#e91e63', '#f06292',
  '#4a148c', '#7b1fa2', '#9c27b0', '#ba68c8', '#311b92', '#512da8', '#673ab7', '#9575cd',
  '#1a237e', '#303f9f', '#3f51b5', '#7986cb', '#0d47a1', '#1976d2', '#2196f3', '#64b5f6',
  '#006064', '#0097a7', '#00bcd4', '#4dd0e1', '#004d40', '#00796b', '#009688', '#4db6ac',
  '#1b5e20', '#388e3c', '#4caf50', '#81c784', '#827717', '#afb42b', '#cddc39', '#f9a825',
  '#ff6f00', '#ffa000', '#e65100', '#f57c00', '#bf360c', '#e64a19', '#3e2723', '#5d4037',
  '#212121', '#616161', '#9e9e9e', '#455a64',
];

// firstFreeColor: the first palette colour none of `taken` uses (queue colours must be
// unique, spec section 5), else the first.
export function firstFreeColor(taken: readonly string[]): string {
  const used = new Set(taken.map((c) => c.toLowerCase()));
  return colorPalette.find((c) => !used.has(c)) ?? colorPalette[0];
}
