import type { ReactElement, ReactNode } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { ThemeProvider } from 'styled-components';
import { I18nextProvider } from 'react-i18next';
import i18n from '../i18n';
import { theme } from '../theme';

export function Providers({ children, route = '/' }: { children: ReactNode; route?: string }) {
  return (
    <I18nextProvider i18n={i18n}>
      <ThemeProvider theme={theme}>
        <MemoryRouter initialEntries={[route]}>{children}</MemoryRouter>
      </ThemeProvider>
    </I18nextProvider>
  );
}

export function renderWithProviders(ui: ReactElement, route = '/') {
  return render(<Providers route={route}>{ui}</Providers>);
}
