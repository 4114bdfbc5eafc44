import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import SettingsPage from './SettingsPage';

const stored = () => [
  { key: 'userCreation', value: 'enabled' },
  { key: 'sideMenu', value: 'enabled' },
  { key: 'acceptCalls', value: 'disabled' },
  { key: 'timeZone', value: 'America/Cuiaba' },
];

describe('SettingsPage', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('saves each control on change', async () => {
    let list = stored();
    const { calls } = mockFetch(
      route('GET', '/settings', () => ({ body: list })),
      route('PUT', /^\/settings\//, (c) => {
        const key = c.url.split('/').pop()!;
        list = list.map((s) => (s.key === key ? { key, value: (c.body as { value: string }).value } : s));
        return { body: { key, value: (c.body as { value: string }).value } };
      }),
    );
    renderPage(<SettingsPage />);
    const userCreation = await screen.findByRole('switch', { name: 'Criação de usuário' });
    expect(userCreation).toBeChecked();
    expect(screen.getByRole('switch', { name: 'Aceitar chamadas' })).not.toBeChecked();
    expect(screen.getByRole('combobox', { name: 'Menu lateral inicial' })).toHaveValue('enabled');

    await userEvent.click(userCreation);
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toEqual([{ method: 'PUT', url: '/settings/userCreation', body: { value: 'disabled' } }]));
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Criação de usuário' })).not.toBeChecked());
    expect(toastStore.getSnapshot().map((x) => x.text)).toContain('Configuração salva.');

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Menu lateral inicial' }), 'Fechado');
    await userEvent.click(screen.getByRole('switch', { name: 'Aceitar chamadas' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(3));
    expect(calls.filter((c) => c.method === 'PUT').slice(1)).toEqual([
      { method: 'PUT', url: '/settings/sideMenu', body: { value: 'disabled' } },
      { method: 'PUT', url: '/settings/acceptCalls', body: { value: 'enabled' } },
    ]);
  });

  it('follows the realtime "settings" event and is read-only without settings:manage', async () => {
    let list = stored();
    mockFetch(route('GET', '/settings', () => ({ body: list })));
    const server = renderPage(<SettingsPage />, { profile: 'superv' });
    const accept = await screen.findByRole('switch', { name: 'Aceitar chamadas' });
    expect(accept).toBeDisabled();
    expect(screen.getByText('Somente administradores podem alterar as configurações.')).toBeInTheDocument();
    list = list.map((s) => (s.key === 'acceptCalls' ? { ...s, value: 'enabled' } : s));
    server.send('settings', { action: 'update', setting: { key: 'acceptCalls', value: 'enabled' } });
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Aceitar chamadas' })).toBeChecked());
  });

  it('shows a refused change as a translated toast and keeps the stored value', async () => {
    mockFetch(route('GET', '/settings', { body: stored() }), route('PUT', '/settings/acceptCalls', { status: 403, body: { error: 'ERR_NO_PERMISSION' } }));
    renderPage(<SettingsPage />);
    await userEvent.click(await screen.findByRole('switch', { name: 'Aceitar chamadas' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Você não tem permissão para acessar este recurso.']));
    expect(screen.getByRole('switch', { name: 'Aceitar chamadas' })).not.toBeChecked();
  });

  it('saves the time zone from the list of IANA zones', async () => {
    let list = stored();
    const { calls } = mockFetch(
      route('GET', '/settings', () => ({ body: list })),
      route('PUT', '/settings/timeZone', (c) => {
        list = list.map((s) => (s.key === 'timeZone' ? { key: 'timeZone', value: (c.body as { value: string }).value } : s));
        return { body: { key: 'timeZone', value: (c.body as { value: string }).value } };
      }),
    );
    renderPage(<SettingsPage />);
    const zone = await screen.findByRole('combobox', { name: 'Fuso horário' });
    expect(zone).toHaveValue('America/Cuiaba');
    await userEvent.selectOptions(zone, 'Europe/Lisbon');
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toEqual([{ method: 'PUT', url: '/settings/timeZone', body: { value: 'Europe/Lisbon' } }]));
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Fuso horário' })).toHaveValue('Europe/Lisbon'));
  });
});
