import { HttpClient } from './http';
import { ApiError } from './errors';
import { memoryStore, storageKeys } from './storage';
import type { AuthResponse } from './types';

type Handler = (url: string, init: RequestInit) => Response;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

const auth: AuthResponse = {
  token: 'fresh',
  user: { id: 3, name: 'Bia', email: 'b@x.io', profile: 'user', companyId: 9, queues: [] },
};

function setup(handler: Handler) {
  const store = memoryStore();
  const calls: { url: string; auth: string | null; method: string }[] = [];
  const events = { signedOut: 0, refreshed: 0 };
  const client = new HttpClient({
    baseUrl: '',
    store,
    now: () => Date.parse('2026-11-22T10:00:05Z'),
    fetch: async (input, init = {}) => {
      const url = String(input);
      const h = (init.headers ?? {}) as Record<string, string>;
      calls.push({ url, auth: h.Authorization ?? null, method: init.method ?? 'GET' });
      return handler(url, init);
    },
    onSignedOut: () => void events.signedOut++,
    onRefreshed: () => void events.refreshed++,
  });
  return { client, store, calls, events };
}

describe('HttpClient', () => {
  it('adds the bearer token and encodes the query', async () => {
    const { client, store, calls } = setup(() => json(200, { ok: true }));
    store.setItem(storageKeys.token, 'abc');
    await client.get('/tickets', { query: { pageNumber: 1, status: 'open', searchParam: undefined } });
    expect(calls[0]).toEqual({ url: '/tickets?pageNumber=1&status=open', auth: 'Bearer abc', method: 'GET' });
  });

  it('on 403 refreshes once, stores the new token and retries once', async () => {
    let n = 0;
    const { client, store, calls, events } = setup((url) => {
      if (url === '/auth/refresh_token') return json(200, auth, { Date: 'Sun, 22 Nov 2026 10:00:00 GMT' });
      n++;
      return n === 1 ? json(403, { error: 'ERR_INVALID_TOKEN' }) : json(200, { tickets: [] });
    });
    store.setItem(storageKeys.token, 'stale');
    await expect(client.get('/tickets')).resolves.toEqual({ tickets: [] });
    expect(calls.map((c) => [c.url, c.auth])).toEqual([
      ['/tickets', 'Bearer stale'],
      ['/auth/refresh_token', 'Bearer stale'],
      ['/tickets', 'Bearer fresh'],
    ]);
    expect(store.getItem(storageKeys.token)).toBe('fresh');
    expect(store.getItem(storageKeys.userId)).toBe('3');
    expect(store.getItem(storageKeys.companyId)).toBe('9');
    expect(store.getItem(storageKeys.clientTimestampDiff)).toBe('5000');
    expect(events.refreshed).toBe(1);
  });

  it('retries only once: a second 403 is the caller’s error', async () => {
    const { client, calls } = setup((url) =>
      url === '/auth/refresh_token' ? json(200, auth) : json(403, { error: 'ERR_INVALID_TOKEN' }),
    );
    await expect(client.get('/x')).rejects.toMatchObject({ status: 403, code: 'ERR_INVALID_TOKEN' });
    expect(calls.filter((c) => c.url === '/x')).toHaveLength(2);
  });

  it('shares one refresh between concurrent 403s', async () => {
    const seen = new Map<string, number>();
    const { client, calls } = setup((url, init) => {
      if (url === '/auth/refresh_token') return json(200, auth);
      const h = init.headers as Record<string, string>;
      seen.set(url, (seen.get(url) ?? 0) + 1);
      return h.Authorization === 'Bearer fresh' ? json(200, { url }) : json(403, {});
    });
    await Promise.all([client.get('/a'), client.get('/b'), client.get('/c')]);
    expect(calls.filter((c) => c.url === '/auth/refresh_token')).toHaveLength(1);
  });

  it('does not refresh for a permission 403', async () => {
    const { client, calls } = setup(() => json(403, { error: 'ERR_NO_PERMISSION' }));
    await expect(client.delete('/tickets/1')).rejects.toMatchObject({ code: 'ERR_NO_PERMISSION' });
    expect(calls).toHaveLength(1);
  });

  it('signs out when the refresh after a 403 is refused', async () => {
    const { client, store, events } = setup((url) =>
      url === '/auth/refresh_token' ? json(401, { error: 'ERR_SESSION_EXPIRED' }) : json(403, {}),
    );
    store.setItem(storageKeys.token, 'stale');
    await expect(client.get('/x')).rejects.toBeInstanceOf(ApiError);
    expect(store.getItem(storageKeys.token)).toBeNull();
    expect(events.signedOut).toBe(1);
  });

  it('on 401 clears the token and signs out', async () => {
    const { client, store, events } = setup(() => json(401, { error: 'ERR_SESSION_EXPIRED' }));
    store.setItem(storageKeys.token, 'abc');
    store.setItem(storageKeys.userId, '3');
    await expect(client.get('/tickets')).rejects.toMatchObject({ status: 401, code: 'ERR_SESSION_EXPIRED' });
    expect(store.getItem(storageKeys.token)).toBeNull();
    expect(store.getItem(storageKeys.userId)).toBeNull();
    expect(events.signedOut).toBe(1);
  });

  it('a 401 from /auth/login is a wrong password, not a sign-out', async () => {
    const { client, events } = setup(() => json(401, { error: 'ERR_INVALID_CREDENTIALS' }));
    await expect(client.post('/auth/login', { body: {} })).rejects.toMatchObject({ code: 'ERR_INVALID_CREDENTIALS' });
    expect(events.signedOut).toBe(0);
  });

  it('reads validation fields from the error body', async () => {
    const { client } = setup(() => json(400, { error: 'ERR_VALIDATION', fields: { name: 'Too Short!' } }));
    await expect(client.post('/contacts', { body: { name: 'a' } })).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
      fields: { name: 'Too Short!' },
    });
  });

  it('reads the wait of a 429 from Retry-After', async () => {
    const { client } = setup(() =>
      json(429, { error: 'ERR_TOO_MANY_ATTEMPTS', message: 'ERR_TOO_MANY_ATTEMPTS', retryAfter: 90 }, { 'Retry-After': '90' }),
    );
    await expect(client.post('/auth/login', { body: {} })).rejects.toMatchObject({ status: 429, retryAfter: 90 });
    const { client: noHeader } = setup(() => json(429, { error: 'ERR_TOO_MANY_ATTEMPTS' }));
    await expect(noHeader.post('/auth/login', { body: {} })).rejects.toMatchObject({ retryAfter: undefined });
  });

  it('sends multipart bodies untouched', async () => {
    let seenBody: unknown;
    let seenType: string | undefined;
    const { client } = setup((_, init) => {
      seenBody = init.body;
      seenType = (init.headers as Record<string, string>)['Content-Type'];
      return json(200, {});
    });
    const form = new FormData();
    form.append('body', 'x');
    await client.post('/messages/1', { form });
    expect(seenBody).toBe(form);
    expect(seenType).toBeUndefined();
  });

  it('reports the app page served for an unknown route as a 404, without signing out', async () => {
    const { client, events } = setup(
      () => new Response('<!doctype html><html><body><div id="root"></div></body></html>', { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
    );
    const err = await client.get('/whatsapp/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'ERR_NOT_FOUND' });
    expect(events.signedOut).toBe(0);
  });
});

describe('HttpClient clock difference', () => {
  it('keeps client minus server time from the login answer', async () => {
    const { client, store } = setup(() => json(200, auth, { Date: 'Sun, 22 Nov 2026 09:59:00 GMT' }));
    const a = await client.post<AuthResponse>('/auth/login', { body: {} });
    client.storeAuth(a);
    expect(store.getItem(storageKeys.clientTimestampDiff)).toBe('65000');
  });
});
