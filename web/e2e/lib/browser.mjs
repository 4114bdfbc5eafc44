// Debian's Chromium through playwright-core (no browser download), with the flags of
// ../shared/ARCHITECTURE.md. launch() gives every run a fresh temporary profile
// (user-data-dir); each actor of a flow gets its own context (cookies, storage).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { languageStorageKey } from './locales.mjs';
import { axeTags, axeViolations, defaultLinks } from './axe.mjs';

export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Video calls (flows/videocall.mjs): a synthetic camera and microphone, granted
  // without a prompt. Pages that never ask for media are not affected.
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

export function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: chromiumFlags });
}

export const viewports = {
  desktop: { width: 1366, height: 800 },
  phone: { width: 360, height: 740 },
};

// Answers from the server that are expected while a route is still missing: the app must
// cope with them quietly (see TransferModal). Anything else ≥ 400 fails the flow.
const tolerated = [
  { method: 'GET', path: /^\/whatsapp\/?$/, status: 404 },
  // Message translation without AI configured: the dialog says so (TranslateDialog).
  { method: 'PUT', path: /^\/messages\/\d+$/, status: 405 },
  { method: 'PUT', path: /^\/messages\/\d+$/, status: 409 },
];

// newActor opens a context in a language and viewport and records what must not happen:
// uncaught page errors, unexpected HTTP failures, and error alerts shown to the user
// (role="alert", watched from inside the page so short-lived toasts are not missed).
// Success toasts (role="status") are recorded the same way, for steps.toastShown: a toast
// lives 3 s, and on a loaded machine a poll from outside the page can miss it.
// timezoneId puts the browser in a zone (an attendant of the tenant's zone); else the host's.
export async function newActor(browser, { name, lng, viewport = viewports.desktop, timeoutMs = 15_000, timezoneId }) {
  const context = await browser.newContext({ viewport, locale: lng, ...(timezoneId ? { timezoneId } : {}) });
  context.setDefaultTimeout(timeoutMs);
  // A full page load parses the app's bundle, the slowest step when the machine is busy.
  context.setDefaultNavigationTimeout(2 * timeoutMs);
  await context.addInitScript(
    ([key, value]) => {
      try {
        window.localStorage.setItem(key, value);
      } catch {
        // storage disabled: the app falls back to its default language
      }
      window.__e2eAlerts = [];
      window.__e2eToasts = [];
      // Content-Security-Policy violations of the page (docs/security.md, "Headers").
      window.__e2eCSP = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__e2eCSP.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`));
      const seen = new WeakSet();
      const scan = () => {
        for (const el of document.querySelectorAll('[role="alert"]')) {
          if (seen.has(el)) continue;
          seen.add(el);
          window.__e2eAlerts.push(el.textContent);
        }
        for (const el of document.querySelectorAll('[role="status"]')) {
          if (seen.has(el)) continue;
          seen.add(el);
          window.__e2eToasts.push({ text: el.textContent, taken: false });
        }
      };
      new MutationObserver(scan).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['role'] });
    },
    [languageStorageKey, lng],
  );
  const problems = [];
  context.on('weberror', (e) => problems.push(`${name}: page error: ${e.error().message}`));
  // Chromium reports every blocked load or inline script on the console too.
  context.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) problems.push(`${name}: CSP violation: ${msg.text()}`);
  });
  context.on('response', (res) => {
    const req = res.request();
    const url = new URL(res.url());
    if (res.status() < 400) return;
    if (tolerated.some((t) => t.method === req.method() && t.path.test(url.pathname) && t.status === res.status())) return;
    problems.push(`${name}: ${req.method()} ${url.pathname} answered ${res.status()}`);
  });
  const page = await context.newPage();
  return {
    name,
    lng,
    context,
    page,
    problems,
    // Error alerts the user saw so far, on every page of the context.
    async alerts() {
      const out = [];
      for (const p of context.pages()) out.push(...(await p.evaluate(() => window.__e2eAlerts ?? []).catch(() => [])));
      return out;
    },
    // Content-Security-Policy violations seen so far, on every page of the context.
    async cspViolations() {
      const out = [];
      for (const p of context.pages()) out.push(...(await p.evaluate(() => window.__e2eCSP ?? []).catch(() => [])));
      return out;
    },
    close: () => context.close(),
  };
}

// screenshots(flow) → shot(page, step): numbered PNGs in e2e/screenshots/<flow>/, and an
// axe-core check of the page at that step (lib/axe.mjs).
export function screenshots(flow) {
  const dir = join(new URL('../screenshots/', import.meta.url).pathname, flow);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let n = 0;
  const t0 = Date.now();
  const shot = async (page, step) => {
    n += 1;
    const path = join(dir, `${String(n).padStart(2, '0')}-${step}.png`);
    await page.screenshot({ path });
    // Every page a flow photographs must pass axe's WCAG 2 A/AA rules. E2E_AXE=report
    // prints the violations instead of failing (to survey a page); E2E_AXE=off skips.
    if (process.env.E2E_AXE !== 'off') {
      const found = [...(await axeViolations(page)), ...(await defaultLinks(page)).map((a) => `unstyled link (browser default colour): ${a}`)];
      if (found.length > 0) {
        const text = `axe (${axeTags.join(', ')}) at ${flow}/${step}:\n       ${found.join('\n       ')}`;
        if (process.env.E2E_AXE === 'report') console.log(`     ${text}`);
        else throw new Error(text);
      }
    }
    // E2E_VERBOSE=1: when each step was reached, to see where a slow flow spends its time.
    if (process.env.E2E_VERBOSE) console.log(`     ${flow} +${((Date.now() - t0) / 1000).toFixed(1)} s ${step}`);
    return path;
  };
  shot.dir = dir;
  return shot;
}
