import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { http } from '../api/client';

afterEach(() => {
  cleanup();
  window.localStorage.clear();
  http.setToken(null); // the access token lives in memory, not in localStorage
});

// jsdom has no layout: give react-window and the layout hooks what they need.
class ResizeObserverStub {
  private readonly cb: ResizeObserverCallback;
  constructor(cb: ResizeObserverCallback) {
    this.cb = cb;
  }
  observe(target: Element) {
    const h = (target as HTMLElement).offsetHeight || 600;
    const w = (target as HTMLElement).offsetWidth || 800;
    const entry = {
      target,
      contentRect: { height: h, width: w, top: 0, left: 0, bottom: h, right: w, x: 0, y: 0 },
      borderBoxSize: [{ blockSize: h, inlineSize: w }],
      contentBoxSize: [{ blockSize: h, inlineSize: w }],
      devicePixelContentBoxSize: [],
    } as unknown as ResizeObserverEntry;
    this.cb([entry], this as unknown as ResizeObserver);
  }
  unobserve() {}
  disconnect() {}
}
if (!('ResizeObserver' in globalThis)) {
  (globalThis as unknown as { ResizeObserver: unknown }).ResizeObserver = ResizeObserverStub;
}

if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

if (!HTMLElement.prototype.scrollTo) {
  HTMLElement.prototype.scrollTo = function scrollTo() {};
}

// Lazy routes are transformed on first use in tests; give async queries time.
import { configure } from '@testing-library/react';
configure({ asyncUtilTimeout: 5000 });
