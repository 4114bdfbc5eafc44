import { screen } from '@testing-library/react';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { HistoryModal } from './HistoryModal';

const entry = (id: number, action: string) => ({
  id,
  action,
  createdAt: '2026-01-02T15:04:00Z',
  oldusername: '',
  newusername: 'Ana',
  oldqueuename: '',
  newqueuename: 'Vendas',
});

describe('HistoryModal', () => {
  it('translates the action codes and shows an unknown one as sent', async () => {
    mockFetch(route('POST', '/tickets/5', { body: [entry(1, 'create'), entry(2, 'transfer'), entry(3, 'return'), entry(4, 'merge')] }));
    renderWithProviders(<HistoryModal ticketId={5} open onClose={() => {}} />);
    expect(await screen.findByText('Criado')).toBeInTheDocument();
    expect(screen.getByText('Transferido')).toBeInTheDocument();
    expect(screen.getByText('Devolvido à fila')).toBeInTheDocument();
    expect(screen.getByText('merge')).toBeInTheDocument();
    expect(screen.queryByText('create')).toBeNull();
  });
});
