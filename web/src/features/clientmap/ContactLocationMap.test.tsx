import { screen, waitFor } from '@testing-library/react';
import { mockFetch, route } from '../../test/fetch';
import { renderWithProviders } from '../../test/render';
import type { Contact } from '../../api/types';
import { ContactDrawer } from '../chat/ContactDrawer';

const contact = (value: string) =>
  ({ id: 3, name: 'Carla', number: '5565', email: '', extraInfo: [{ id: 1, name: 'location', value }], salesOpps: [] }) as unknown as Contact;

describe('the contact drawer location', () => {
  it('draws a readable location on the small map, with no tiles configured', async () => {
    mockFetch(route('GET', '/maps/config', { body: { tileUrl: '', attribution: '' } }));
    renderWithProviders(<ContactDrawer contact={contact('https://www.google.com/maps?q=-15.6,-56.1')} overlay={false} onClose={() => {}} />);
    const map = await screen.findByRole('region', { name: 'Localização de Carla' }, { timeout: 10_000 });
    // jsdom has no layout, so the cluster layer places no marker here; the browser flow
    // (e2e/flows/supervision.mjs) checks the markers. Here: Leaflet's map is up.
    await waitFor(() => expect(map.querySelector('.leaflet-container')).not.toBeNull());
    expect(map.querySelector('.leaflet-tile-pane img')).toBeNull();
  });

  it('shows an unreadable location as text, without a map', async () => {
    const { calls } = mockFetch();
    renderWithProviders(<ContactDrawer contact={contact('Rua X, 10')} overlay={false} onClose={() => {}} />);
    expect(await screen.findByText(/Localização não reconhecida/)).toBeInTheDocument();
    expect(screen.getByText(/Rua X, 10/)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: /Localização de/ })).toBeNull();
    expect(calls).toHaveLength(0);
  });
});
