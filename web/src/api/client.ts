// The app's one REST client, on the page's own origin: the access token in memory,
// the other keys of spec section 3 in window.localStorage. fetch is read at call time
// so tests can stub the global.
import { HttpClient } from './http';
import { browserStore, memoryTokenStore } from './storage';
import { sessionBus } from './sessionBus';

export const apiBase = '';

export const store = memoryTokenStore(browserStore());

export const http = new HttpClient({
  baseUrl: apiBase,
  fetch: (input, init) => globalThis.fetch(input, init),
  store,
  onSignedOut: () => sessionBus.emit({ type: 'signedOut' }),
  onRefreshed: (auth) => sessionBus.emit({ type: 'refreshed', auth }),
});
