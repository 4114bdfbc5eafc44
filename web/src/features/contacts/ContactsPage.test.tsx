import { screen, waitFor } from '@testing-library/react';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import ContactsPage from './ContactsPage';

const contact = (id: number, name: string) => ({ id, name, number: `551199999000${id}`, email: '', extraInfo: [] });

describe('ContactsPage', () => {
  beforeEach(() => clearResources());

  // The server sends the whole contact on create/update and only its id on delete.
  it('follows the realtime "contact" events', async () => {
    mockFetch(route('GET', '/contacts', { body: { contacts: [contact(1, 'Ana'), contact(2, 'Bruno')], hasMore: false } }));
    const server = renderPage(<ContactsPage />);
    expect(await screen.findByTestId('contact-2')).toHaveTextContent('Bruno');
    server.send('contact', { action: 'update', contact: contact(2, 'Bruno Lima') });
    await waitFor(() => expect(screen.getByTestId('contact-2')).toHaveTextContent('Bruno Lima'));
    server.send('contact', { action: 'delete', contactId: 1 });
    await waitFor(() => expect(screen.queryByTestId('contact-1')).toBeNull());
    expect(screen.getByTestId('contact-2')).toBeInTheDocument();
  });
});
