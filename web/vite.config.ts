/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import type { ProxyOptions } from 'vite';
import react from '@vitejs/plugin-react';
import { apiPrefixes, isPageNavigation } from './proxy.config.ts';

const target = process.env.ATENDE_API ?? 'http://localhost:8080';

const proxy: Record<string, ProxyOptions> = Object.fromEntries(
  apiPrefixes.map((prefix) => [
    prefix,
    {
      target,
      changeOrigin: false,
      ws: prefix === '/socket.io',
      bypass: (req) => (isPageNavigation(req.method, req.headers.accept) ? '/index.html' : undefined),
    } satisfies ProxyOptions,
  ]),
);

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    // dist/.keep lets the Go embed compile before any npm build; keep it.
    emptyOutDir: false,
    sourcemap: false,
    target: 'es2022',
  },
  server: { port: 5173, proxy },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    restoreMocks: true,
    unstubGlobals: true,
    testTimeout: 20000,
  },
});
