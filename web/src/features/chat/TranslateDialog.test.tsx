import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import type { Message } from '../../api/types';
import { TranslateDialog, forgetTranslationAnswer } from './TranslateDialog';

const received: Message = { id: 81, ticketId: 7, body: 'Hello there', fromMe: false, ack: 0, createdAt: '2026-11-24T12:30:00Z' };

describe('TranslateDialog', () => {
  beforeEach(() => {
    forgetTranslationAnswer();
    toastStore.clear();
  });

  it('says translation is not configured when the server has no such route (405), without an error toast', async () => {
    const { calls } = mockFetch(route('PUT', '/messages/81', { status: 405, body: { error: 'ERR_METHOD_NOT_ALLOWED' } }));
    const onClose = vi.fn();
    const { unmount } = renderWithProviders(<TranslateDialog message={received} onClose={onClose} />);
    await userEvent.click(screen.getByRole('button', { name: 'Espanhol' }));
    expect(await screen.findByText('A tradução de mensagens não está configurada neste servidor.')).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
    expect(toastStore.getSnapshot()).toEqual([]);
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1);
    unmount();

    // Opened again: it remembers, and offers no language to try.
    renderWithProviders(<TranslateDialog message={received} onClose={onClose} />);
    expect(screen.getByText('A tradução de mensagens não está configurada neste servidor.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Espanhol' })).toBeNull();
  });

  it('still reports other failures as errors', async () => {
    mockFetch(route('PUT', '/messages/81', { status: 500, body: { error: 'ERR_INTERNAL' } }));
    const onClose = vi.fn();
    renderWithProviders(<TranslateDialog message={received} onClose={onClose} />);
    await userEvent.click(screen.getByRole('button', { name: 'Espanhol' }));
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(toastStore.getSnapshot().map((t) => t.kind)).toEqual(['error']);
    expect(screen.queryByText('A tradução de mensagens não está configurada neste servidor.')).toBeNull();
  });
});
