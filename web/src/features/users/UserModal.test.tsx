import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { UserModal, type UserModalProps } from './UserModal';
import type { User } from '../../api/types';

const carla: User = {
  id: 9,
  name: 'Carla',
  email: 'carla@atende.dev',
  profile: 'user',
  companyId: 1,
  queues: [{ id: 3, name: 'Suporte', color: '#1976d2' }],
  whatsappId: null,
};

function open(props: Partial<UserModalProps> = {}) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  renderWithProviders(
    <UserModal user={null} callerProfile="admin" canEditProfile={false} canEditQueues={false} onClose={onClose} onSaved={onSaved} {...props} />,
  );
  return { onSaved, onClose };
}

const reference = [
  route('GET', '/queue', { body: [{ id: 3, name: 'Suporte', color: '#1976d2' }, { id: 4, name: 'Vendas', color: '#388e3c' }] }),
  route('GET', '/whatsapp/', { body: [{ id: 1, name: 'Chat do site', status: 'CONNECTED', channel: 'socket' }] }),
];

describe('UserModal', () => {
  beforeEach(() => toastStore.clear());

  it('shows the section 5 messages in Portuguese and sends nothing while invalid', async () => {
    const { calls } = mockFetch();
    open();
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(screen.getAllByRole('alert').map((e) => e.textContent)).toEqual(['Obrigatório', 'Obrigatório', 'Obrigatório']);
    // The message joins the field's label: look the fields up by how the label starts.
    await userEvent.type(screen.getByLabelText(/^Nome/), 'A');
    await userEvent.type(screen.getByLabelText(/^Senha/), '1234');
    await userEvent.type(screen.getByLabelText(/^E-mail/), 'ana@');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(screen.getAllByRole('alert').map((e) => e.textContent)).toEqual(['Muito curto!', 'Muito curto!', 'E-mail inválido']);
    expect(calls).toEqual([]);
  });

  it('hides profile, queues and connection from roles that may not edit them, and creates a plain user', async () => {
    const { calls } = mockFetch(route('POST', '/users', (c) => ({ status: 201, body: { id: 12, companyId: 1, queues: [], ...(c.body as object) } })));
    const { onSaved, onClose } = open();
    expect(screen.queryByLabelText('Perfil')).toBeNull();
    expect(screen.queryByText('Filas')).toBeNull();
    expect(screen.queryByLabelText('Conexão padrão')).toBeNull();
    await userEvent.type(screen.getByLabelText('Nome'), ' Davi ');
    await userEvent.type(screen.getByLabelText('Senha'), 'segredo1');
    await userEvent.type(screen.getByLabelText('E-mail'), 'davi@atende.dev');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual([
      { method: 'POST', url: '/users', body: { name: 'Davi', email: 'davi@atende.dev', password: 'segredo1', profile: 'user' } },
    ]);
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ id: 12, name: 'Davi' }));
  });

  it('lets an admin choose profile, queues and default connection, with the password shown on demand', async () => {
    const { calls } = mockFetch(...reference, route('POST', '/users', (c) => ({ status: 201, body: { id: 13, ...(c.body as object) } })));
    const { onClose } = open({ canEditProfile: true, canEditQueues: true });
    const password = screen.getByLabelText('Senha');
    expect(password).toHaveAttribute('type', 'password');
    await userEvent.click(screen.getByRole('button', { name: 'Mostrar senha' }));
    expect(password).toHaveAttribute('type', 'text');
    await userEvent.click(screen.getByRole('button', { name: 'Ocultar senha' }));
    expect(password).toHaveAttribute('type', 'password');

    // Offered profiles: the five of spec section 2, none above the caller (admin).
    const profile = screen.getByRole('combobox', { name: 'Perfil' });
    expect(within(profile).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Administrador',
      'Gerente',
      'Supervisor',
      'Usuário plus',
      'Usuário',
    ]);
    await userEvent.type(screen.getByLabelText('Nome'), 'Elisa');
    await userEvent.type(password, 'segredo1');
    await userEvent.type(screen.getByLabelText('E-mail'), 'elisa@atende.dev');
    await userEvent.selectOptions(profile, 'Supervisor');
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Suporte' }));
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Conexão padrão' }), await screen.findByRole('option', { name: 'Chat do site' }));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'Elisa',
      email: 'elisa@atende.dev',
      password: 'segredo1',
      profile: 'superv',
      queueIds: [3],
      whatsappId: 1,
    });
  });

  it('offers a supervisor no profile above their own', () => {
    mockFetch();
    open({ callerProfile: 'superv', canEditProfile: true });
    const options = within(screen.getByRole('combobox', { name: 'Perfil' })).getAllByRole('option');
    expect(options.map((o) => o.getAttribute('value'))).toEqual(['superv', 'userplus', 'user']);
  });

  it('edits without a password (kept) and shows the id to profile editors', async () => {
    const { calls } = mockFetch(route('PUT', '/users/9', (c) => ({ body: { ...carla, ...(c.body as object) } })));
    const { onClose } = open({ user: carla, canEditProfile: true });
    expect(screen.getByLabelText('ID')).toHaveValue('9');
    expect(screen.getByText('Deixe em branco para manter a senha atual.')).toBeInTheDocument();
    await userEvent.clear(screen.getByLabelText('Nome'));
    await userEvent.type(screen.getByLabelText('Nome'), 'Carla Dias');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Perfil' }), 'Usuário plus');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual([{ method: 'PUT', url: '/users/9', body: { name: 'Carla Dias', email: 'carla@atende.dev', profile: 'userplus' } }]);
  });

  it('asks for the current password when one changes one\'s own, and shows the server\'s answer on it', async () => {
    const { calls } = mockFetch(
      route('PUT', '/users/9', (c) =>
        (c.body as { currentPassword?: string }).currentPassword === 'velha-1'
          ? { body: carla }
          : { status: 400, body: { error: 'ERR_VALIDATION', message: 'Wrong password', fields: { currentPassword: 'Wrong password' } } },
      ),
    );
    const { onClose } = open({ user: carla, self: true });
    await userEvent.type(screen.getByLabelText('Senha'), 'nova-senha-2');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    // Nothing sent without it.
    expect(await screen.findByRole('alert')).toHaveTextContent('Obrigatório');
    expect(calls).toEqual([]);
    await userEvent.type(screen.getByLabelText(/^Senha atual/), 'errada');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Senha incorreta'));
    await userEvent.clear(screen.getByLabelText(/^Senha atual/));
    await userEvent.type(screen.getByLabelText(/^Senha atual/), 'velha-1');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls.at(-1)).toEqual({
      method: 'PUT',
      url: '/users/9',
      body: { name: 'Carla', email: 'carla@atende.dev', password: 'nova-senha-2', currentPassword: 'velha-1' },
    });
  });

  it('does not ask for a current password when editing someone else', () => {
    mockFetch();
    open({ user: carla });
    expect(screen.queryByLabelText(/^Senha atual/)).toBeNull();
  });

  it('puts server field errors on their fields and shows other codes as translated toasts', async () => {
    mockFetch(route('PUT', '/users/9', { status: 409, body: { error: 'ERR_EMAIL_ALREADY_EXISTS', message: 'ERR_EMAIL_ALREADY_EXISTS' } }));
    const { onClose } = open({ user: carla });
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Já existe um usuário com este e-mail.']));
    expect(onClose).not.toHaveBeenCalled();

    mockFetch(route('PUT', '/users/9', { status: 400, body: { error: 'ERR_VALIDATION', message: 'Too Short!', fields: { password: 'Too Short!' } } }));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Muito curto!');
  });
});
