import { screen } from '@testing-library/react';
import { renderWithProviders } from '../../test/render';
import type { Message } from '../../api/types';
import { MessageItem } from './MessageItem';

const actions = { onReply: () => {}, onDelete: () => {}, onTranslate: () => {} };
const ours = (over: Partial<Message>): Message => ({
  id: 71,
  ticketId: 7,
  body: 'Seu boleto vence amanhã',
  fromMe: true,
  ack: 0,
  createdAt: '2026-11-24T12:30:00Z',
  ...over,
});

describe('MessageItem', () => {
  it('marks a message the channel refused as not sent, instead of a pending clock', () => {
    renderWithProviders(<MessageItem message={ours({ failed: true })} {...actions} />);
    const mark = screen.getByTitle('O canal recusou esta mensagem; ela não será reenviada.');
    expect(mark).toHaveTextContent('Não enviada');
    expect(screen.queryByLabelText('Pendente')).toBeNull();
  });

  it('shows the ack of a message that was not refused', () => {
    renderWithProviders(<MessageItem message={ours({ ack: 3 })} {...actions} />);
    expect(screen.getByLabelText('Lida')).toBeInTheDocument();
    expect(screen.queryByText('Não enviada')).toBeNull();
  });
});
