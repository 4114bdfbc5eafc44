import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { TagModal } from './TagModal';
import type { Tag } from '../../api/types';

function open(tag: Tag | null = null) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  renderWithProviders(<TagModal tag={tag} onClose={onClose} onSaved={onSaved} />);
  return { onSaved, onClose };
}

describe('TagModal', () => {
  beforeEach(() => toastStore.clear());

  it('requires a name (Portuguese message) and sends nothing', async () => {
    const { calls } = mockFetch();
    open();
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Obrigatório');
    expect(calls).toEqual([]);
  });

  it('creates without a colour: the server picks one', async () => {
    const { calls } = mockFetch(route('POST', '/tags', (c) => ({ status: 201, body: { id: 4, color: '#388e3c', ...(c.body as object) } })));
    const { onSaved, onClose } = open();
    expect(screen.getByRole('radio', { name: 'Cor automática' })).toHaveAttribute('aria-checked', 'true');
    await userEvent.type(screen.getByLabelText('Nome'), ' VIP ');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls[0]).toEqual({ method: 'POST', url: '/tags', body: { name: 'VIP' } });
    expect(onSaved).toHaveBeenCalledWith({ id: 4, name: 'VIP', color: '#388e3c' });
  });

  it('edits name and colour; a taken name comes back on the field', async () => {
    const { calls } = mockFetch(route('PUT', '/tags/2', { status: 400, body: { error: 'ERR_VALIDATION', fields: { name: 'Already exists' } } }));
    const { onClose } = open({ id: 2, name: 'Lead', color: '#1976d2' });
    expect(screen.queryByRole('radio', { name: 'Cor automática' })).toBeNull();
    expect(screen.getByRole('radio', { name: 'Cor #1976d2' })).toHaveAttribute('aria-checked', 'true');
    await userEvent.clear(screen.getByLabelText('Nome'));
    await userEvent.type(screen.getByLabelText('Nome'), 'VIP');
    await userEvent.click(screen.getByRole('radio', { name: 'Cor #d32f2f' }));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Já existe');
    expect(calls[0]).toEqual({ method: 'PUT', url: '/tags/2', body: { name: 'VIP', color: '#d32f2f' } });
    expect(onClose).not.toHaveBeenCalled();
  });
});
