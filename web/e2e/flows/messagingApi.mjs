// The messaging API flow (issue 15 item 4), in one language: a web chat customer writes
// and Ana accepts the ticket, staying in the conversation → the admin creates an API
// token on /MessagingAPI (shown once) → the test runs curl with it, as an outside
// system would, to send a message to the customer's contact → the customer's widget
// gets it and it appears live in Ana's open chat; the same call again (same
// Idempotency-Key) sends nothing new → the admin revokes the token after confirming,
// and curl is refused at once.
import { execFileSync } from 'node:child_process';
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { acceptNewCustomer, assertClean, check, customerSees, demo, login, until, visible } from './steps.mjs';

// curlSend posts a JSON send with curl and answers {status, body}.
function curlSend(base, token, payload, key) {
  const out = execFileSync(
    'curl',
    ['-sS', '-X', 'POST', `${base}/api/messages/send`, '-H', `Authorization: Bearer ${token}`, '-H', 'Content-Type: application/json',
      '-H', `Idempotency-Key: ${key}`, '-d', JSON.stringify(payload), '-w', '\n%{http_code}'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  const i = out.lastIndexOf('\n');
  return { status: Number(out.slice(i + 1)), body: out.slice(0, i) };
}

// contactNumber reads the ticket's contact number through the REST API, as an
// integrator looks it up once.
async function contactNumber(base, ticketId) {
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(demo.admin),
  });
  check(login.ok, `admin login answered ${login.status}`);
  const { token } = await login.json();
  const res = await fetch(`${base}/tickets/${ticketId}`, { headers: { Authorization: `Bearer ${token}` } });
  check(res.ok, `GET /tickets/${ticketId} answered ${res.status}`);
  const ticket = await res.json();
  check(typeof ticket.contact?.number === 'string' && ticket.contact.number !== '', `ticket ${ticketId} has no contact number`);
  return ticket.contact.number;
}

export async function messagingApiFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`messaging-api-${lng}`);
  const tag = lng.replace(/[^a-z]/gi, '').toLowerCase();
  // Conversation and token data (not interface text): unique per language and run.
  const customerName = `API ${lng} ${runId}`;
  const question = `pedido${tag}${runId}`;
  const sent = `seu pedido saiu ${tag} ${runId}`;
  const tokenName = `ERP ${lng} ${runId}`;

  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [ana, admin, customer];
  onActors?.(actors);

  await login(ana, base, demo.ana);
  const ticketId = await acceptNewCustomer(ana.page, t, customer, base, server.webchatConnectionId, customerName, question);
  await ana.page.evaluate(() => (window.__e2eNoReload = true));
  const number = await contactNumber(base, ticketId);

  await login(admin, base, demo.admin);
  await admin.page.goto(`${base}/MessagingAPI`);
  await visible(admin.page.getByRole('heading', { name: t('messagingApi.title'), exact: true }));
  // The docs panel uses this server's address.
  await visible(admin.page.getByTestId('api-endpoint').filter({ hasText: `${base}/api/messages/send` }));
  await admin.page.getByRole('button', { name: t('messagingApi.tokens.add'), exact: true }).click();
  const form = admin.page.getByRole('dialog', { name: t('messagingApi.form.title') });
  await visible(form);
  await form.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(form.getByText(t('validation.required')));
  await shot(admin.page, 'validation');
  // A fresh page: the expected "required" alert above is not an error of what follows.
  await admin.page.goto(`${base}/MessagingAPI`);
  await admin.page.getByRole('button', { name: t('messagingApi.tokens.add'), exact: true }).click();
  await visible(form);
  await form.getByLabel(t('messagingApi.form.name')).fill(tokenName);
  await form.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  const shown = admin.page.getByRole('dialog', { name: t('messagingApi.created.title') });
  await visible(shown);
  const secret = (await shown.getByTestId('api-token-secret').innerText()).trim();
  check(/^atk_[A-Za-z0-9_-]{43}$/.test(secret), `the token shown is ${secret}`);
  await shot(admin.page, 'token-created');
  await shown.getByRole('button', { name: t('messagingApi.created.done'), exact: true }).click();
  const row = admin.page.locator('[data-testid^="api-token-"]').filter({ hasText: tokenName });
  await visible(row);
  check((await admin.page.getByText(secret).count()) === 0, 'the secret is still on the page after closing its dialog');
  await shot(admin.page, 'tokens');

  // The outside system: curl with the token, to the customer's contact on the web chat.
  const payload = { number, body: sent, whatsappId: server.webchatConnectionId };
  const first = curlSend(base, secret, payload, `e2e-${runId}-${tag}`);
  check(first.status === 200, `curl send answered ${first.status}: ${first.body}`);
  check(JSON.parse(first.body).ticketId === ticketId, `sent to ${first.body}, expected ticket ${ticketId}`);
  await customerSees(customer, sent);
  const inChat = ana.page.locator('[data-testid^="message-"]').filter({ hasText: sent });
  await visible(inChat);
  check(await ana.page.evaluate(() => window.__e2eNoReload === true), 'ana: the chat reloaded to show the API message');
  await shot(ana.page, 'chat-with-api-message');

  // A client retry with the same key sends nothing new.
  const again = curlSend(base, secret, payload, `e2e-${runId}-${tag}`);
  check(again.status === 200 && JSON.parse(again.body).messageId === JSON.parse(first.body).messageId, `retry answered ${again.status}: ${again.body}`);
  await until(async () => (await inChat.count()) === 1, 'the API message once in the chat', 5_000);
  check((await customer.page.locator('.log .m:not(.c)').filter({ hasText: sent }).count()) === 1, 'the customer got the API message twice');

  // Revoked: refused at once.
  await row.getByRole('button', { name: t('messagingApi.tokens.revoke', { name: tokenName }), exact: true }).click();
  const confirm = admin.page.getByRole('dialog', { name: t('messagingApi.tokens.confirmRevoke.title') });
  await visible(confirm);
  await confirm.getByRole('button', { name: t('messagingApi.tokens.revoke', { name: tokenName }), exact: true }).click();
  await visible(row.getByText(t('messagingApi.tokens.state.revoked'), { exact: true }));
  const refused = curlSend(base, secret, { ...payload, body: `${sent} again` }, `e2e-${runId}-${tag}-2`);
  check(refused.status === 403 && JSON.parse(refused.body).error === 'ERR_INVALID_TOKEN', `a revoked token answered ${refused.status}: ${refused.body}`);
  await shot(admin.page, 'revoked');

  await assertClean(actors);
}
