// Steps shared by the flows: what an attendant and a web chat customer do, each found on
// screen by role and by the text of the language under test (t from lib/locales.mjs).
import { startsWith, translator } from '../lib/locales.mjs';

export const demo = {
  ana: { email: 'ana@atende.local', password: 'atende123' },
  bruno: { email: 'bruno@atende.local', password: 'atende123' },
  carla: { email: 'carla@atende.local', password: 'atende123' },
  admin: { email: 'admin@atende.local', password: 'admin123' },
  // Queue names are demo data, not interface text.
  queues: { support: 'Suporte' },
};

export function check(cond, message) {
  if (!cond) throw new Error(message);
}

// until polls fn until it returns a truthy value (or the deadline passes).
export async function until(fn, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const visible = (locator) => locator.waitFor({ state: 'visible' });
export const gone = (locator) => locator.waitFor({ state: 'hidden' });

// toastShown waits until the page has shown a success toast containing text, from the
// record the page keeps (lib/browser.mjs): a toast closes after 3 s, which a poll from
// outside a busy page can miss. Each call takes the first toast not taken before, so
// two toasts of the same text need two calls. The record starts again on a full page load.
export async function toastShown(page, text) {
  const take = (wanted) => {
    const toast = window.__e2eToasts.find((x) => !x.taken && x.text.includes(wanted));
    if (toast) toast.taken = true;
    return Boolean(toast);
  };
  await until(() => page.evaluate(take, text), `the toast "${text}"`);
}

// toastCount is how many success toasts containing text the page has shown since its last
// full load, taken or not.
export const toastCount = (page, text) => page.evaluate((wanted) => window.__e2eToasts.filter((x) => x.text.includes(wanted)).length, text);

// login signs an attendant in through the login page, checks the success toast and
// that the interface came up in the language under test.
export async function login(actor, base, who) {
  const { page, lng } = actor;
  const t = translator(lng);
  await page.goto(`${base}/login`);
  await page.getByLabel(t('login.form.email')).fill(who.email);
  await page.getByLabel(t('login.form.password'), { exact: true }).fill(who.password);
  await page.getByRole('button', { name: t('login.form.submit'), exact: true }).click();
  await page.waitForURL(/\/tickets$/);
  await toastShown(page, t('login.toast.success'));
  const docLang = await page.evaluate(() => document.documentElement.lang);
  check(docLang === lng, `${actor.name}: document language is ${docLang}, expected ${lng}`);
  await visible(page.getByRole('tablist', { name: t('tickets.tabs.label') }));
}

// Ticket manager navigation.
export async function openSubTab(page, t, key) {
  await page.getByRole('tab', { name: startsWith(t(`tickets.tabs.${key}`)) }).click();
}

export async function openTopTab(page, t, key) {
  await page.getByRole('tab', { name: t(`tickets.tabs.${key}`), exact: true }).click();
}

export const rowByName = (page, name) => page.locator('[data-testid^="ticket-row-"]').filter({ hasText: name });
export const rowById = (page, id) => page.getByTestId(`ticket-row-${id}`);

export async function ticketIdOf(row) {
  const testId = await row.getAttribute('data-testid');
  const id = Number(testId?.replace('ticket-row-', ''));
  check(Number.isInteger(id) && id > 0, `no ticket id in ${testId}`);
  return id;
}

// The web chat customer: the demo page of the connection, the widget in its shadow root
// (Playwright's CSS engine pierces open shadow roots). The widget has its own wording;
// it is driven by structure only.
export async function customerWrites(actor, base, connId, name, text) {
  const { page, lng } = actor;
  await page.goto(`${base}/webchat/demo?c=${connId}&lang=${encodeURIComponent(lng)}`);
  await page.locator('button.fab').click();
  await page.locator('form.intro input').first().fill(name);
  await page.locator('form.intro button').click();
  await page.locator('form:not(.intro) textarea').fill(text);
  await page.locator('form:not(.intro) textarea').press('Enter');
  // Acknowledged by the server: no longer pending.
  await visible(page.locator('.log .m.c:not(.pending):not(.failed)').filter({ hasText: text }));
}

// A web chat customer writes text as name while page waits on the pending tab; the
// attendant sees the row arrive, accepts it and lands in the conversation with the
// customer's message shown. Returns the ticket's id.
export async function acceptNewCustomer(page, t, customer, base, connId, name, text) {
  await openSubTab(page, t, 'pending');
  await customerWrites(customer, base, connId, name, text);
  const row = rowByName(page, name);
  await visible(row);
  const id = await ticketIdOf(row);
  await row.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await page.waitForURL(new RegExp(`/tickets/${id}$`));
  await visible(page.locator('[data-testid^="message-"]').filter({ hasText: text }));
  return id;
}

export async function customerSees(actor, text) {
  await visible(actor.page.locator('.log .m:not(.c)').filter({ hasText: text }));
}

// The composer: type and send with Enter; the message shows in the conversation.
export async function reply(page, t, text) {
  const input = page.getByRole('textbox', { name: t('chat.composer.input') });
  await input.fill(text);
  await input.press('Enter');
  await visible(page.locator('[data-testid^="message-"]').filter({ hasText: text }));
}

// Nothing went wrong that the user could see or the console would show.
export async function assertClean(actors) {
  const issues = [];
  for (const a of actors) {
    issues.push(...a.problems);
    for (const text of await a.alerts()) issues.push(`${a.name}: error shown to the user: ${text}`);
    for (const v of (await a.cspViolations?.()) ?? []) issues.push(`${a.name}: Content-Security-Policy violation: ${v}`);
  }
  check(issues.length === 0, issues.join('\n'));
}

// api calls the server's REST API as a client outside the browser would: the answer's
// status and its body, parsed when it is JSON (the raw text otherwise).
export async function api(base, token, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}
