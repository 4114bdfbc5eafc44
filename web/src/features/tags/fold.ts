// fold: case and accents ignored, the way the server searches tags and quick answers;
// used to decide whether a realtime create belongs under the current search.
export const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
