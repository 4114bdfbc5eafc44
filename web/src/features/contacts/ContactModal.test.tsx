import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { ContactModal } from './ContactModal';

function open(contact = null as Parameters<typeof ContactModal>[0]['contact']) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  renderWithProviders(<ContactModal contact={contact} onClose={onClose} onSaved={onSaved} />);
  return { onSaved, onClose };
}

describe('ContactModal', () => {
  it('shows the section 5 messages and sends nothing while invalid', async () => {
    const { calls } = mockFetch();
    open();
    await userEvent.type(screen.getByLabelText('Nome'), 'A');
    await userEvent.type(screen.getByLabelText('Número (com DDI)'), '1234');
    await userEvent.type(screen.getByLabelText('E-mail'), 'ana@');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(screen.getAllByRole('alert').map((e) => e.textContent)).toEqual(['Muito curto!', 'Muito curto!', 'E-mail inválido']);
    expect(calls).toEqual([]);
  });

  it('creates with a digits-only number and the extra info', async () => {
    const { calls } = mockFetch(route('POST', '/contacts', (c) => ({ body: { id: 5, ...(c.body as object) } })));
    const { onSaved, onClose } = open();
    await userEvent.type(screen.getByLabelText('Nome'), 'Ana Souza');
    await userEvent.type(screen.getByLabelText('Número (com DDI)'), '+55 (65) 99999-0000');
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar informação' }));
    await userEvent.type(screen.getByLabelText('Nome do campo'), 'CPF');
    await userEvent.type(screen.getByLabelText('Valor'), '123');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls[0].body).toEqual({ name: 'Ana Souza', number: '5565999990000', email: '', extraInfo: [{ name: 'CPF', value: '123' }] });
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ id: 5 }));
  });

  it('puts the server’s field errors on their fields', async () => {
    mockFetch(route('PUT', '/contacts/3', { status: 400, body: { error: 'ERR_VALIDATION', fields: { number: 'Too Long!' } } }));
    const { onClose } = open({ id: 3, name: 'Ana', number: '556599999000', email: '' });
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByText('Muito longo!')).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
  });
});
