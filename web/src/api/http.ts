// The REST client: fetch with the bearer token of the store (in the app, the access
// token lives in memory only: see memoryTokenStore) and the session rules of spec
// section 4 —
//   * 403 → refresh the token once (one refresh shared by every caller waiting on it,
//     and refreshes of all the tabs taken one at a time, because the server ends the
//     session when one refresh token is presented twice), store the new token, retry
//     the call once;
//   * 401 → clear the token and report the sign-out.
// Calls to /auth/* are exempt: a 401 there is a wrong password, not an expired session.
// No React here; the app wires onSignedOut / onRefreshed to the session machine.

import { ApiError, NetworkError } from './errors';
import { storageKeys, type KeyValueStore } from './storage';
import type { AuthResponse } from './types';

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown; // sent as JSON
  form?: FormData; // sent as multipart; wins over body
  signal?: AbortSignal;
}

export interface HttpClientConfig {
  baseUrl: string; // '' for same origin
  fetch: typeof fetch;
  store: KeyValueStore;
  // Called after a 401 cleared the token, or a refresh failed while retrying a 403.
  onSignedOut?: () => void;
  // Called whenever a refresh stored a new token.
  onRefreshed?: (auth: AuthResponse) => void;
  // Clock used for clientTimestampDiff; Date.now by default.
  now?: () => number;
}

// 403 answers that are not about the token: no point refreshing for them.
const notTokenCodes = new Set(['ERR_NO_PERMISSION', 'ERR_USER_CREATION_DISABLED']);

export const refreshPath = '/auth/refresh_token';

export class HttpClient {
  private readonly cfg: HttpClientConfig;
  private refreshing: Promise<AuthResponse> | null = null;
  // Date header of the last answer and the client clock when it arrived, for the
  // client-server clock difference kept at login and refresh.
  private lastServerDate: { server: number; client: number } | null = null;

  constructor(cfg: HttpClientConfig) {
    this.cfg = cfg;
  }

  get token(): string | null {
    return this.cfg.store.getItem(storageKeys.token);
  }

  setToken(token: string | null): void {
    if (token) this.cfg.store.setItem(storageKeys.token, token);
    else this.cfg.store.removeItem(storageKeys.token);
  }

  get<T>(path: string, opts?: RequestOptions): Promise<T> {
    return this.request<T>('GET', path, opts);
  }
  post<T>(path: string, opts?: RequestOptions): Promise<T> {
    return this.request<T>('POST', path, opts);
  }
  put<T>(path: string, opts?: RequestOptions): Promise<T> {
    return this.request<T>('PUT', path, opts);
  }
  delete<T>(path: string, opts?: RequestOptions): Promise<T> {
    return this.request<T>('DELETE', path, opts);
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const isAuth = path.startsWith('/auth/');
    let res = await this.send(method, path, opts);
    if (res.status === 403 && !isAuth) {
      const err = await readError(res.clone());
      if (!err.code || !notTokenCodes.has(err.code)) {
        try {
          await this.refresh();
        } catch {
          // A refresh refused with 401/403 has signed out already; any other failure
          // (network) leaves the session alone. Either way the caller sees the 403.
          throw err;
        }
        res = await this.send(method, path, opts);
      }
    }
    if (res.status === 401 && !isAuth) {
      this.signOut();
    }
    if (!res.ok) throw await readError(res);
    // An HTML page is not an API answer: it is the app's own index.html, which the server
    // sends for paths it has no route for. Report it as the missing route it is.
    if (isHtml(res)) throw new ApiError(404, 'ERR_NOT_FOUND');
    return (await readBody(res)) as T;
  }

  // refresh asks for a new access token with the refresh cookie. Concurrent callers
  // share one request.
  refresh(): Promise<AuthResponse> {
    if (!this.refreshing) {
      this.refreshing = (async () => {
        try {
          const res = await oneTabAtATime(() => this.send('POST', refreshPath, {}));
          if (res.status === 401 || res.status === 403) {
            const err = await readError(res);
            this.signOut();
            throw new ApiError(401, err.code, err.message);
          }
          if (!res.ok) throw await readError(res);
          const auth = (await res.json()) as AuthResponse;
          this.storeAuth(auth);
          this.cfg.onRefreshed?.(auth);
          return auth;
        } finally {
          this.refreshing = null;
        }
      })();
    }
    return this.refreshing;
  }

  // storeAuth keeps what spec section 3 keeps of a login or refresh.
  storeAuth(auth: AuthResponse): void {
    const s = this.cfg.store;
    this.setToken(auth.token);
    s.setItem(storageKeys.userId, String(auth.user.id));
    s.setItem(storageKeys.companyId, String(auth.user.companyId));
    if (this.lastServerDate) {
      s.setItem(storageKeys.clientTimestampDiff, String(this.lastServerDate.client - this.lastServerDate.server));
    }
  }

  clearAuth(): void {
    const s = this.cfg.store;
    s.removeItem(storageKeys.token);
    s.removeItem(storageKeys.userId);
    s.removeItem(storageKeys.companyId);
  }

  private signOut(): void {
    this.clearAuth();
    this.cfg.onSignedOut?.();
  }

  private async send(method: string, path: string, opts: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = this.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (opts.form) {
      body = opts.form;
    } else if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    try {
      const res = await this.cfg.fetch(this.cfg.baseUrl + path + queryString(opts.query), {
        method,
        headers,
        body,
        credentials: 'same-origin',
        signal: opts.signal,
      });
      const date = res.headers.get('Date');
      const server = date ? Date.parse(date) : NaN;
      if (!Number.isNaN(server)) this.lastServerDate = { server, client: (this.cfg.now ?? Date.now)() };
      return res;
    } catch (e) {
      if (e instanceof DOMException && e.name === 'AbortError') throw e;
      throw new NetworkError(e);
    }
  }
}

// oneTabAtATime runs fn under the browser's Web Lock "atende-refresh", so that two
// tabs of the same browser never present the same refresh cookie at once (that looks
// like a stolen token to the server, which then ends the session): the second waits
// and sends the cookie the first one's answer rotated. Without Web Locks it just runs.
function oneTabAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return fn();
  return locks.request('atende-refresh', () => fn()) as Promise<T>;
}

export function queryString(q?: Query): string {
  if (!q) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    p.append(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

function isHtml(res: Response): boolean {
  return /^text\/html\b/i.test(res.headers.get('Content-Type') ?? '');
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204) return undefined;
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function readError(res: Response): Promise<ApiError> {
  let data: unknown;
  try {
    data = await readBody(res);
  } catch {
    data = undefined;
  }
  if (data && typeof data === 'object') {
    const d = data as { error?: unknown; message?: unknown; fields?: unknown; retryAfter?: unknown };
    const code = typeof d.error === 'string' ? d.error : undefined;
    const message = typeof d.message === 'string' ? d.message : undefined;
    const fields =
      d.fields && typeof d.fields === 'object' ? (d.fields as Record<string, string>) : undefined;
    // The login's 429 also says the wait in its body.
    const bodyWait = typeof d.retryAfter === 'number' && d.retryAfter > 0 ? Math.ceil(d.retryAfter) : undefined;
    return new ApiError(res.status, code, message, fields, retryAfterOf(res) ?? bodyWait);
  }
  return new ApiError(res.status, undefined, typeof data === 'string' ? data : undefined, undefined, retryAfterOf(res));
}

// retryAfterOf reads a Retry-After header given in seconds (the only form the server
// sends); undefined when absent or not a number.
function retryAfterOf(res: Response): number | undefined {
  const v = res.headers.get('Retry-After');
  if (!v || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}
