import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useParams } from 'react-router';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import type { Contact } from '../../api/types';
import NewTicketPage from './NewTicketPage';

function Tickets() {
  const { ticketId } = useParams();
  return <p data-testid="tickets-page">{ticketId ?? 'list'}</p>;
}

// The app's routes around the page: /newticket, and the ticket list it leaves for.
function App() {
  return (
    <Routes>
      <Route path="/" element={<NewTicketPage />} />
      <Route path="/tickets/:ticketId?" element={<Tickets />} />
    </Routes>
  );
}

const maria: Contact = { id: 40, name: 'Maria', number: '5565999990001', email: '' };

describe('NewTicketPage', () => {
  beforeEach(() => toastStore.clear());

  it('opens the new-ticket dialog at once and lands on the new ticket', async () => {
    const { calls } = mockFetch(
      route('GET', '/contacts', { body: { contacts: [maria], hasMore: false } }),
      route('GET', '/whatsapp/', { body: [{ id: 3, name: 'WhatsApp', status: 'CONNECTED', channel: 'whatsapp', isDefault: true }] }),
      route('POST', '/tickets', { status: 201, body: { id: 90, status: 'open', contactId: 40, unreadMessages: 0, updatedAt: '2026-11-22T12:00:00Z' } }),
    );
    renderPage(<App />);
    const dialog = await screen.findByRole('dialog', { name: 'Novo atendimento' });
    await userEvent.type(within(dialog).getByRole('textbox'), 'Mar');
    await userEvent.click(await within(dialog).findByRole('option', { name: /Maria/ }));
    expect(await screen.findByTestId('tickets-page')).toHaveTextContent('90');
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ contactId: 40, userId: 1, status: 'open', whatsappId: 3 }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('goes back to the ticket list when closed without a contact', async () => {
    const { calls } = mockFetch();
    renderPage(<App />);
    await screen.findByRole('dialog', { name: 'Novo atendimento' });
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.getByTestId('tickets-page')).toHaveTextContent('list'));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});
