import { screen, waitFor, within } from '@testing-library/react';
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

  it('edits the sales opportunities and saves them with the contact', async () => {
    const { calls } = mockFetch(route('PUT', '/contacts/3', (c) => ({ body: { id: 3, ...(c.body as object) } })));
    const { onClose } = open({
      id: 3,
      name: 'Ana',
      number: '5565999990000',
      email: '',
      extraInfo: [],
      salesOpps: [
        { id: 10, name: 'Plano anual', value: '1200', stage: 'Proposta', closingStatus: null },
        { id: 11, name: 'Consultoria', value: '300', stage: 'Fechada', closingStatus: 1 },
        { id: 12, name: 'Antiga', value: '', stage: '', closingStatus: 0 },
      ],
    });
    expect(within(screen.getByTestId('sales-opp-1')).getByText('Ganha')).toBeInTheDocument();
    expect(within(screen.getByTestId('sales-opp-2')).getByText('Perdida')).toBeInTheDocument();
    // Edit the first, remove the last, add one (a blank extra row is dropped).
    const stage = within(screen.getByTestId('sales-opp-0')).getByLabelText('Etapa');
    await userEvent.clear(stage);
    await userEvent.type(stage, 'Negociação');
    await userEvent.click(within(screen.getByTestId('sales-opp-2')).getByRole('button', { name: 'Remover oportunidade' }));
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar oportunidade' }));
    const added = screen.getByTestId('sales-opp-2');
    await userEvent.type(within(added).getByLabelText('Nome da oportunidade'), ' Renovação ');
    await userEvent.type(within(added).getByLabelText('Valor da oportunidade'), '99,90');
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar oportunidade' }));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect((calls[0].body as { salesOpps: unknown }).salesOpps).toEqual([
      { id: 10, closingStatus: null, name: 'Plano anual', value: '1200', stage: 'Negociação' },
      { id: 11, closingStatus: 1, name: 'Consultoria', value: '300', stage: 'Fechada' },
      { name: 'Renovação', value: '99,90', stage: '' },
    ]);
  });

  it('requires an opportunity name, and shows the server’s row errors', async () => {
    const { calls } = mockFetch(
      route('POST', '/contacts', {
        status: 400,
        body: { error: 'ERR_VALIDATION', fields: { 'salesOpps.0.stage': 'Too Long!' } },
      }),
    );
    const { onClose } = open();
    await userEvent.type(screen.getByLabelText('Nome'), 'Ana Souza');
    await userEvent.type(screen.getByLabelText('Número (com DDI)'), '5565999990000');
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar oportunidade' }));
    await userEvent.type(screen.getByLabelText('Valor da oportunidade'), '100');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(within(screen.getByTestId('sales-opp-0')).getByRole('alert')).toHaveTextContent('Obrigatório');
    expect(calls).toEqual([]);

    await userEvent.type(screen.getByLabelText('Nome da oportunidade'), 'Plano');
    await userEvent.type(screen.getByLabelText('Etapa'), 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(await within(screen.getByTestId('sales-opp-0')).findByText('Muito longo!')).toBeInTheDocument();
    expect((calls[0].body as { salesOpps: unknown }).salesOpps).toEqual([{ name: 'Plano', value: '100', stage: 'x' }]);
    expect(onClose).not.toHaveBeenCalled();
  });
});
