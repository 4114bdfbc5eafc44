import { createGlobalStyle } from 'styled-components';

export const GlobalStyle = createGlobalStyle`
  *, *::before, *::after { box-sizing: border-box; }
  html, body, #root { height: 100%; margin: 0; }
  body {
    font-family: ${({ theme }) => theme.font};
    font-size: ${({ theme }) => theme.fontSizes.md}px;
    color: ${({ theme }) => theme.colors.text};
    background: ${({ theme }) => theme.colors.background};
    -webkit-font-smoothing: antialiased;
  }
  button, input, textarea, select { font: inherit; color: inherit; }
  /* Links in the app's colour, not the browser's default blue and purple. */
  a, a:link, a:visited { color: ${({ theme }) => theme.colors.primary}; text-underline-offset: 2px; }
  a:hover { color: ${({ theme }) => theme.colors.primaryDark}; }
  :focus-visible { outline: 2px solid ${({ theme }) => theme.colors.primary}; outline-offset: 1px; }
`;
