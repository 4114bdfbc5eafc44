import { breakpoints, colors, fontSizes, layout, radii, space, zIndex } from './tokens';

export const theme = {
  colors,
  space,
  radii,
  fontSizes,
  breakpoints,
  zIndex,
  layout,
  font: "'Inter', 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
  // Media queries built from the breakpoints.
  media: {
    belowSideMenu: `@media (max-width: ${breakpoints.sideMenu - 1}px)`,
    belowSplit: `@media (max-width: ${breakpoints.split - 1}px)`,
    mobile: `@media (max-width: ${breakpoints.mobile}px)`,
  },
} as const;

export type AppTheme = typeof theme;
