// Design tokens. Components read colours, spacing and z-indexes only from the theme
// (styled-components' ThemeProvider); nothing here is imported by a component directly
// except through `theme`.
//
// Colours meet WCAG 2 AA contrast (4.5:1 for text) where text is drawn on them or
// with them: textSoft on every light surface (white, background, chat wallpaper,
// bubbles), white on primary, success, danger and textSoft. The e2e suite checks
// every page it visits with axe-core (web/e2e/lib/axe.mjs); contrast.test.ts pins the
// pairs here.

export const palette = {
  brand: '#1f6f5c',
  brandDark: '#14503f',
  brandLight: '#e3f2ee',
  white: '#ffffff',
  black: '#000000',
  grey50: '#f7f8f9',
  grey100: '#eef0f2',
  grey200: '#dde1e5',
  grey300: '#c3c9cf',
  grey500: '#8a939c', // borders and icons only: 3.1:1 on white is too faint for text
  grey600: '#5b6570',
  grey700: '#4a525a',
  grey900: '#1d2125',
  green: '#1e7e3e',
  greenLight: '#e4f5e9',
  yellow: '#e5b800',
  orange: '#f07d00',
  red: '#d43a2f',
  redLight: '#fbe7e5',
  blue: '#1e6fd9',
  whisper: '#fff6d6',
  whisperBorder: '#e9c74f',
} as const;

export const colors = {
  primary: palette.brand,
  primaryDark: palette.brandDark,
  primarySoft: palette.brandLight,
  onPrimary: palette.white,
  background: palette.grey50,
  surface: palette.white,
  surfaceAlt: palette.grey100,
  border: palette.grey200,
  borderStrong: palette.grey300,
  text: palette.grey900,
  textMuted: palette.grey700,
  textSoft: palette.grey600,
  danger: palette.red,
  dangerSoft: palette.redLight,
  success: palette.green,
  successSoft: palette.greenLight,
  warning: palette.orange,
  info: palette.blue,
  overlay: 'rgba(0, 0, 0, 0.45)',
  shadow: 'rgba(0, 0, 0, 0.16)',
  // Chat
  bubbleIn: palette.white,
  bubbleOut: '#dcf3e6',
  bubbleWhisper: palette.whisper,
  bubbleWhisperBorder: palette.whisperBorder,
  chatBackground: '#ece5dd',
  ackRead: palette.blue,
  // Ticket age badge (spec section 4): ≤2 min, ≤4, ≤5, beyond.
  ageFresh: palette.green,
  ageWarm: palette.yellow,
  ageHot: palette.orange,
  ageLate: palette.red,
  noQueue: palette.grey600,
  // Sales opportunity cards (spec section 4).
  oppWon: palette.green,
  oppLost: palette.red,
  oppOpen: palette.white,
  // Channel marks.
  channelWhatsapp: '#25d366',
  channelWaba: '#128c7e',
  channelFacebook: '#1877f2',
  channelInstagram: '#c13584',
  channelTelegram: '#229ed9',
  channelSocket: palette.grey700,
} as const;

export const space = { xxs: 2, xs: 4, sm: 8, md: 12, lg: 16, xl: 24, xxl: 32 } as const;

export const radii = { sm: 4, md: 8, lg: 12, round: 9999 } as const;

export const fontSizes = { xs: 11, sm: 13, md: 14, lg: 16, xl: 20, xxl: 26 } as const;

// Breakpoints of the spec (section 9): side menu 600 px, mobile 477 px. `split` is where
// the ticket list and the conversation stop sharing the screen.
export const breakpoints = { mobile: 477, sideMenu: 600, split: 900 } as const;

// One z-index scale for the whole app: nothing else picks a z-index.
export const zIndex = {
  base: 0,
  raised: 1,
  sticky: 10,
  appBar: 100,
  drawer: 200,
  popover: 300,
  modal: 400,
  toast: 500,
  tooltip: 600,
} as const;

export const layout = {
  drawerWidth: 248,
  drawerCollapsedWidth: 64,
  appBarHeight: 56,
  contactDrawerWidth: 320,
  ticketListWidth: 380,
  ticketRowHeight: 82,
  popoverMaxHeight: 300,
} as const;
