// Meta's embedded signup on the connections page, with Meta's SDK stubbed
// (window.FB) and the pop-up's message dispatched by hand: no network.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import type { Connection } from '../../api/types';
import ConnectionsPage from './ConnectionsPage';
import { fromFacebook, loadSdk, resetSdk, runSignup, sdkUrl, type FacebookLoginResponse, type FacebookSdk } from './embeddedSignup';

const waba = (id: number): Connection => ({
  id,
  name: 'Clínica Sol',
  number: '5565999990000',
  status: 'CONNECTED',
  channel: 'waba',
  isDefault: false,
  outChannel: false,
  qrcode: '',
  updatedAt: '2026-11-24T12:00:00Z',
});

const enabled = route('GET', '/wacloudapi/embedded/config', { body: { appId: '1517000000', configId: '987654321', enabled: true } });

// signupMessage is what the pop-up posts to the page (sessionInfoVersion 3).
function signupMessage(event: string, data: Record<string, string>, origin = 'https://www.facebook.com') {
  window.dispatchEvent(new MessageEvent('message', { origin, data: JSON.stringify({ type: 'WA_EMBEDDED_SIGNUP', event, data }) }));
}

// stubSdk installs window.FB whose login plays the pop-up with play.
function stubSdk(play: (cb: (r: FacebookLoginResponse) => void) => void) {
  const fb = { init: vi.fn(), login: vi.fn((cb: (r: FacebookLoginResponse) => void, _options: Record<string, unknown>) => play(cb)) };
  window.FB = fb as unknown as FacebookSdk;
  return fb;
}

describe('WABA embedded signup', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
    resetSdk();
    delete window.FB;
    delete window.fbAsyncInit;
  });

  it('runs Meta’s pop-up and posts its code and ids; the new card appears', async () => {
    const fb = stubSdk((cb) => {
      // A message from elsewhere is ignored; Meta's arrives before the login answer.
      signupMessage('FINISH', { phone_number_id: '666', waba_id: '777' }, 'https://evil.example');
      signupMessage('FINISH', { phone_number_id: '106540352242922', waba_id: '102290129340398', business_id: '1' });
      cb({ status: 'connected', authResponse: { code: 'AQB-code' } });
    });
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', { body: [] }),
      enabled,
      route('POST', '/wacloudapi/embedded', { body: waba(7) }),
    );
    renderPage(<ConnectionsPage />);
    await screen.findByText('Nenhuma conexão cadastrada.');
    const button = screen.getByRole('button', { name: 'WABA (cadastro incorporado)' });
    await waitFor(() => expect(button).toHaveAttribute('data-enabled', 'true'));
    await waitFor(() => expect(fb.init).toHaveBeenCalledWith(expect.objectContaining({ appId: '1517000000', version: 'v21.0' })));
    expect(document.querySelector(`script[src="${sdkUrl}"]`)).toBeNull(); // an SDK already there is used as is
    await userEvent.click(button);
    await waitFor(() => expect(screen.getByTestId('connection-card-7')).toHaveTextContent('Clínica Sol'));
    expect(fb.login).toHaveBeenCalledTimes(1);
    expect(fb.login.mock.calls[0][1]).toEqual({
      config_id: '987654321',
      response_type: 'code',
      override_default_response_type: true,
      extras: { setup: {}, featureType: '', sessionInfoVersion: '3' },
    });
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      { method: 'POST', url: '/wacloudapi/embedded', body: { code: 'AQB-code', wabaId: '102290129340398', phoneNumberId: '106540352242922' } },
    ]);
    expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Conexão criada.']);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('says nothing was registered when the pop-up is closed, and posts nothing', async () => {
    stubSdk((cb) => {
      signupMessage('CANCEL', { current_step: 'PHONE_NUMBER_SETUP' });
      cb({ status: 'unknown', authResponse: null });
    });
    const { calls } = mockFetch(route('GET', '/whatsapp/', { body: [] }), enabled);
    renderPage(<ConnectionsPage />);
    const button = await screen.findByRole('button', { name: 'WABA (cadastro incorporado)' });
    await waitFor(() => expect(button).toHaveAttribute('data-enabled', 'true'));
    await userEvent.click(button);
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Cadastro incorporado interrompido: nenhum número foi cadastrado.']),
    );
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('shows the server refusal as a toast', async () => {
    stubSdk((cb) => {
      cb({ authResponse: { code: 'AQB-code' } }); // the login answer first this time
      signupMessage('FINISH', { phone_number_id: '106540352242922', waba_id: '102290129340398' });
    });
    mockFetch(
      route('GET', '/whatsapp/', { body: [] }),
      enabled,
      route('POST', '/wacloudapi/embedded', { status: 400, body: { error: 'ERR_CHANNEL_CREDENTIALS' } }),
    );
    renderPage(<ConnectionsPage />);
    const button = await screen.findByRole('button', { name: 'WABA (cadastro incorporado)' });
    await waitFor(() => expect(button).toHaveAttribute('data-enabled', 'true'));
    await userEvent.click(button);
    await waitFor(() => expect(toastStore.getSnapshot()).toHaveLength(1));
    expect(toastStore.getSnapshot()[0].kind).toBe('error');
    expect(screen.queryByTestId(/connection-card-/)).toBeNull();
  });

  it('opens the manual form with a note when the server lacks the Meta app', async () => {
    const fb = stubSdk(() => {});
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', { body: [] }),
      route('GET', '/wacloudapi/embedded/config', { body: { appId: '', configId: '', enabled: false } }),
    );
    renderPage(<ConnectionsPage />);
    await screen.findByText('Nenhuma conexão cadastrada.');
    await waitFor(() => expect(calls.some((c) => c.url === '/wacloudapi/embedded/config')).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'WABA (cadastro incorporado)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Conectar WhatsApp Business API' });
    expect(within(dialog).getByTestId('cloud-note')).toHaveTextContent('META_APP_ID');
    expect(within(dialog).getByTestId('cloud-note')).toHaveTextContent('META_CONFIG_ID');
    expect(fb.init).not.toHaveBeenCalled();
    expect(fb.login).not.toHaveBeenCalled();
    // The plain WABA button opens the same form without the note.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar WABA' }));
    expect(within(await screen.findByRole('dialog')).queryByTestId('cloud-note')).toBeNull();
  });

  it('waits, disabled, while Meta’s SDK loads, so the pop-up opens inside the click', async () => {
    mockFetch(route('GET', '/whatsapp/', { body: [] }), enabled);
    renderPage(<ConnectionsPage />);
    const button = await screen.findByRole('button', { name: 'WABA (cadastro incorporado)' });
    await waitFor(() => expect(button).toHaveAttribute('data-enabled', 'true'));
    expect(document.querySelector(`script[src="${sdkUrl}"]`)).not.toBeNull();
    expect(button).toBeDisabled();
    await userEvent.click(button);
    expect(screen.queryByRole('dialog')).toBeNull();

    const fb = stubSdk((cb) => cb({ status: 'unknown', authResponse: null }));
    act(() => window.fbAsyncInit?.());
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    expect(fb.login).toHaveBeenCalledTimes(1);
  });

  it('loads the SDK again on a click after a failed load, without opening the pop-up', async () => {
    mockFetch(route('GET', '/whatsapp/', { body: [] }), enabled);
    renderPage(<ConnectionsPage />);
    const button = await screen.findByRole('button', { name: 'WABA (cadastro incorporado)' });
    await waitFor(() => expect(document.querySelector(`script[src="${sdkUrl}"]`)).not.toBeNull());
    act(() => document.querySelector(`script[src="${sdkUrl}"]`)!.dispatchEvent(new Event('error')));
    await waitFor(() => expect(button).toBeEnabled());
    const fb = stubSdk(() => {});
    await userEvent.click(button);
    await waitFor(() => expect(fb.init).toHaveBeenCalled());
    expect(fb.login).not.toHaveBeenCalled();
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    expect(fb.login).toHaveBeenCalledTimes(1);
  });

  it('is not offered without connections:manage', async () => {
    const { calls } = mockFetch(route('GET', '/whatsapp/', { body: [] }), enabled);
    renderPage(<ConnectionsPage />, { profile: 'user' });
    await screen.findByText('Nenhuma conexão cadastrada.');
    expect(screen.queryByRole('button', { name: 'WABA (cadastro incorporado)' })).toBeNull();
    expect(calls.some((c) => c.url === '/wacloudapi/embedded/config')).toBe(false);
  });
});

describe('embeddedSignup', () => {
  beforeEach(() => {
    resetSdk();
    delete window.FB;
    delete window.fbAsyncInit;
  });

  it('injects Meta’s SDK once and initialises it when it calls fbAsyncInit', async () => {
    const a = loadSdk('42');
    const b = loadSdk('42');
    const scripts = document.querySelectorAll(`script[src="${sdkUrl}"]`);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toHaveAttribute('id', 'facebook-jssdk');
    const fb = { init: vi.fn(), login: vi.fn() };
    window.FB = fb;
    act(() => window.fbAsyncInit?.());
    expect(await a).toBe(fb);
    expect(await b).toBe(fb);
    expect(fb.init).toHaveBeenCalledTimes(1);
    expect(fb.init).toHaveBeenCalledWith({ appId: '42', autoLogAppEvents: true, xfbml: false, version: 'v21.0' });
  });

  it('rejects a failed script load, so that a later click can try again', async () => {
    const p = loadSdk('42');
    const script = document.querySelector(`script[src="${sdkUrl}"]`) as HTMLScriptElement;
    script.dispatchEvent(new Event('error'));
    await expect(p).rejects.toMatchObject({ reason: 'sdk' });
    expect(document.querySelector(`script[src="${sdkUrl}"]`)).toBeNull();
    void loadSdk('42').catch(() => {});
    expect(document.querySelectorAll(`script[src="${sdkUrl}"]`)).toHaveLength(1);
  });

  it('accepts messages from facebook.com only', () => {
    expect(fromFacebook('https://www.facebook.com')).toBe(true);
    expect(fromFacebook('https://web.facebook.com')).toBe(true);
    expect(fromFacebook('https://facebook.com')).toBe(true);
    expect(fromFacebook('http://www.facebook.com')).toBe(false);
    expect(fromFacebook('https://facebook.com.evil.example')).toBe(false);
    expect(fromFacebook('https://evilfacebook.com')).toBe(false);
    expect(fromFacebook('null')).toBe(false);
  });

  it('reports Meta’s error and a code whose message never came', async () => {
    const fb = { init: vi.fn(), login: vi.fn() };
    fb.login.mockImplementationOnce(() => signupMessage('ERROR', { error_message: 'Phone number already registered' }));
    await expect(runSignup(fb, 'c')).rejects.toMatchObject({ reason: 'error', message: 'Phone number already registered' });
    fb.login.mockImplementationOnce((cb: (r: FacebookLoginResponse) => void) => cb({ authResponse: { code: 'x' } }));
    await expect(runSignup(fb, 'c', 10)).rejects.toMatchObject({ reason: 'cancelled' });
    // Only a WABA chosen, no number (FINISH_ONLY_WABA): nothing to register.
    fb.login.mockImplementationOnce(() => signupMessage('FINISH_ONLY_WABA', { waba_id: '1' }));
    await expect(runSignup(fb, 'c')).rejects.toMatchObject({ reason: 'cancelled' });
  });
});
