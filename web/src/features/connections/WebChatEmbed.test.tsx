import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import type { Connection } from '../../api/types';
import { ConnectionCard } from './ConnectionCard';
import { embedSnippet } from './WebChatEmbed';

const webchat: Connection = {
  id: 4,
  name: 'Chat do site',
  number: '',
  status: 'CONNECTED',
  channel: 'socket',
  isDefault: true,
  outChannel: false,
  updatedAt: '2026-11-22T12:00:00Z',
};

describe('WebChatEmbed', () => {
  it('shows a web chat card the embed code of its widget, wrapped to fit a narrow card', async () => {
    renderWithProviders(<ConnectionCard connection={webchat} manage onAction={vi.fn()} />);
    const box = screen.getByTestId('webchat-embed-4');
    await userEvent.click(within(box).getByText('Código para colocar o chat no seu site'));
    const snippet = screen.getByTestId('webchat-snippet-4');
    expect(snippet).toHaveTextContent(embedSnippet(window.location.origin, 4));
    expect(snippet.textContent).toBe(`<script src="${window.location.origin}/webchat/widget.js" data-connection="4" async></script>`);
    // A <pre> keeps one long line unless told to wrap: at 360 px it would overflow.
    const style = getComputedStyle(snippet);
    expect(style.whiteSpace).toBe('pre-wrap');
    expect(style.wordBreak).toBe('break-all');
    expect(within(box).getByRole('link', { name: 'Abrir a página de demonstração' })).toHaveAttribute('href', '/webchat/demo?c=4');
  });

  it('copies the code', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ConnectionCard connection={webchat} manage onAction={vi.fn()} />);
    await user.click(screen.getByText('Código para colocar o chat no seu site'));
    await user.click(screen.getByRole('button', { name: 'Copiar código' }));
    expect(await navigator.clipboard.readText()).toBe(embedSnippet(window.location.origin, 4));
  });

  it('is only on web chat connections', () => {
    renderWithProviders(<ConnectionCard connection={{ ...webchat, id: 5, channel: 'whatsapp' }} manage onAction={vi.fn()} />);
    expect(screen.queryByTestId('webchat-embed-5')).toBeNull();
  });
});
