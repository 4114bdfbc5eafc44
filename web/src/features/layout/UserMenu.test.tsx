import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import { UserMenu } from './UserMenu';

async function openProfile() {
  await userEvent.click(await screen.findByRole('button', { name: 'Menu do usuário' }));
  await userEvent.click(screen.getByRole('button', { name: 'Perfil' }));
  return screen.findByRole('dialog', { name: 'Editar usuário' });
}

describe('UserMenu', () => {
  it('shows the translated profile and edits the user’s own name and password (proved by the current one); the e-mail (the login) is read-only', async () => {
    const { calls } = mockFetch(
      route('PUT', '/users/7', (c) => ({
        body: { id: 7, profile: 'user', companyId: 1, queues: [], ...(c.body as object) },
      })),
    );
    renderPage(<UserMenu />, { profile: 'user', userId: 7 });
    await userEvent.click(await screen.findByRole('button', { name: 'Menu do usuário' }));
    expect(screen.getByTestId('user-menu-who')).toHaveTextContent('AdminUsuário');
    await userEvent.click(screen.getByRole('button', { name: 'Perfil' }));
    const dialog = await screen.findByRole('dialog', { name: 'Editar usuário' });
    // A plain user sees neither id, profile nor queues.
    expect(within(dialog).queryByRole('combobox')).toBeNull();
    expect(within(dialog).queryByRole('checkbox')).toBeNull();
    const password = within(dialog).getByLabelText('Senha');
    await userEvent.type(password, 'nova123');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Mostrar senha' }));
    expect(password).toHaveAttribute('type', 'text');
    const name = within(dialog).getByLabelText(/^Nome/);
    await userEvent.clear(name);
    await userEvent.type(name, 'Ana Souza');
    const email = within(dialog).getByLabelText(/^E-mail/);
    expect(email).toHaveAttribute('readonly');
    const login = (email as HTMLInputElement).value;
    await userEvent.type(email, 'x');
    expect(email).toHaveValue(login);
    await userEvent.type(within(dialog).getByLabelText(/^Senha atual/), 'velha12');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls).toEqual([
      { method: 'PUT', url: '/users/7', body: { name: 'Ana Souza', email: login, password: 'nova123', currentPassword: 'velha12' } },
    ]);
    // The session shows the new name at once.
    await userEvent.click(screen.getByRole('button', { name: 'Menu do usuário' }));
    expect(screen.getByTestId('user-menu-who')).toHaveTextContent('Ana Souza');
  });

  it('never offers the own profile, even to a supervisor', async () => {
    mockFetch();
    renderPage(<UserMenu />, { profile: 'superv', userId: 3 });
    const dialog = await openProfile();
    expect(within(dialog).queryByRole('combobox')).toBeNull();
    expect(within(dialog).queryByLabelText('Perfil')).toBeNull();
  });
});
