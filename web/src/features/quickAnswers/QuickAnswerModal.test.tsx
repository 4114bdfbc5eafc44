import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { QuickAnswerModal } from './QuickAnswerModal';
import type { QuickAnswer } from '../../api/types';

function open(answer: QuickAnswer | null = null) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  renderWithProviders(<QuickAnswerModal answer={answer} onClose={onClose} onSaved={onSaved} />);
  return { onSaved, onClose };
}

describe('QuickAnswerModal', () => {
  it('requires shortcut and message (Portuguese messages) and sends nothing', async () => {
    const { calls } = mockFetch();
    open();
    await userEvent.type(screen.getByLabelText(/^Atalho/), '/');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(screen.getAllByRole('alert').map((e) => e.textContent)).toEqual(['Obrigatório', 'Obrigatório']);
    await userEvent.type(screen.getByLabelText(/^Atalho/), 'x'.repeat(51));
    await userEvent.type(screen.getByLabelText(/^Resposta/), 'Bom dia!');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(screen.getAllByRole('alert').map((e) => e.textContent)).toEqual(['Muito longo!']);
    expect(calls).toEqual([]);
  });

  it('creates with the shortcut sent without the composer’s slash', async () => {
    const { calls } = mockFetch(route('POST', '/quickAnswers', (c) => ({ status: 201, body: { id: 5, ...(c.body as object) } })));
    const { onSaved, onClose } = open();
    await userEvent.type(screen.getByLabelText(/^Atalho/), '/bd');
    await userEvent.type(screen.getByLabelText('Resposta'), 'Bom dia!{Enter}Como posso ajudar?');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual([{ method: 'POST', url: '/quickAnswers', body: { shortcut: 'bd', message: 'Bom dia!\nComo posso ajudar?' } }]);
    expect(onSaved).toHaveBeenCalledWith({ id: 5, shortcut: 'bd', message: 'Bom dia!\nComo posso ajudar?' });
  });

  it('updates an existing answer', async () => {
    const { calls } = mockFetch(route('PUT', '/quickAnswers/5', (c) => ({ body: { id: 5, ...(c.body as object) } })));
    const { onClose } = open({ id: 5, shortcut: 'bd', message: 'Bom dia!' });
    await userEvent.type(screen.getByLabelText('Resposta'), ' 😀');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual([{ method: 'PUT', url: '/quickAnswers/5', body: { shortcut: 'bd', message: 'Bom dia! 😀' } }]);
  });
});
