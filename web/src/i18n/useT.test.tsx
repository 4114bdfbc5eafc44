import { act, render, screen } from '@testing-library/react';
import i18n from './index';
import { useT } from './useT';

function Label() {
  const t = useT();
  return <span>{t('tickets.tabs.pending')}</span>;
}

describe('useT', () => {
  afterEach(async () => {
    await act(() => i18n.changeLanguage('pt-BR'));
  });

  it('translates in the current language and follows a change of language', async () => {
    render(<Label />);
    expect(screen.getByText('Aguardando')).toBeInTheDocument();
    await act(() => i18n.changeLanguage('es'));
    expect(screen.getByText('Pendientes')).toBeInTheDocument();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText('Pending')).toBeInTheDocument();
  });

  it('shares one function per language between components', () => {
    let seen: unknown[] = [];
    function Probe() {
      seen.push(useT());
      return null;
    }
    render(
      <>
        <Probe />
        <Probe />
      </>,
    );
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    seen = [];
  });
});
