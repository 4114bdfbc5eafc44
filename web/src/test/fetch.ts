// A fetch stand-in for component tests: the api layer's only door to the network.
import { vi } from 'vitest';

export interface Call {
  method: string;
  url: string;
  body: unknown;
}

type Reply = { status?: number; body?: unknown } | undefined;
export type Route = (call: Call) => Reply;

export function json(status: number, body: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

// mockFetch answers with the first route that returns a reply; unknown calls get 404.
export function mockFetch(...routes: Route[]) {
  const calls: Call[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    let body: unknown = init.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // keep the string
      }
    }
    const call = { method: init.method ?? 'GET', url, body };
    calls.push(call);
    for (const r of routes) {
      const reply = r(call);
      if (reply) return json(reply.status ?? 200, reply.body);
    }
    return json(404, { error: 'ERR_NOT_FOUND' });
  });
  vi.stubGlobal('fetch', fn);
  return { calls, fn };
}

export function route(method: string, path: string | RegExp, reply: Reply | ((c: Call) => Reply)): Route {
  return (c) => {
    const p = c.url.split('?')[0];
    const match = typeof path === 'string' ? p === path : path.test(p);
    if (c.method !== method || !match) return undefined;
    return typeof reply === 'function' ? reply(c) : reply;
  };
}
