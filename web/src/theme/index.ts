export { theme } from './theme';
export type { AppTheme } from './theme';
export { GlobalStyle } from './GlobalStyle';
export { contrastRatio, readableOn } from './contrast';
