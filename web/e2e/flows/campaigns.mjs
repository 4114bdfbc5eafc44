// Issue 12's browser flows (pt-BR). Broadcast: the admin sets the tenant's credits,
// picks the web chat connection and two contacts found by search — a web chat
// customer and a contact whose number is not a web chat visitor — and sends; the
// progress bar reaches the end over the socket, the customer's widget shows the
// message, and the contact list shows the bad number as error. Campaign: the admin
// imports a CSV (preview with its bad line), adds the same customer, starts now and
// watches the progress bar reach the end.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, customerSees, customerWrites, demo, login, until, visible } from './steps.mjs';

async function api(base, token, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

// A contact whose number no web chat visitor has: the web chat channel refuses it.
async function badContact(base, name, number) {
  const auth = await api(base, null, 'POST', '/auth/login', demo.admin);
  check(auth.status === 200, `admin login: ${auth.status}`);
  const r = await api(base, auth.body.token, 'POST', '/contacts', { name, number });
  check(r.status === 200 || r.status === 201, `bad contact: ${r.status} ${JSON.stringify(r.body)}`);
}

// The campaign card that appeared last, once finished with its bar at the end.
async function finished(page, t, name) {
  const card = page.getByRole('region', { name }).or(page.locator('[data-testid^="campaign-"]').filter({ hasText: name })).first();
  await visible(card);
  await until(async () => (await card.getAttribute('data-status')) === 'finished', `${name} finished`, 60_000);
  const value = await card.getByRole('progressbar', { name: t('outbound.progress.label', { name }) }).getAttribute('value');
  check(value === '100', `progress ${value}, want 100`);
  return card;
}

export async function broadcastFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`broadcast-${lng}`);
  const customerName = `Cliente disparo ${runId}`;
  const badName = `Sem chat disparo ${runId}`;
  const badNumber = `55659${String(parseInt(runId, 16) % 100000000).padStart(8, '0')}`;
  const message = `Promoção ${runId}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [admin, customer];
  onActors?.(actors);
  await customerWrites(customer, base, server.webchatConnectionId, customerName, `oi ${runId}`);
  await badContact(base, badName, badNumber);
  await login(admin, base, demo.admin);

  await admin.page.goto(`${base}/Broadcasts`);
  await admin.page.getByLabel(t('outbound.broadcasts.creditsLabel')).fill('50');
  await admin.page.getByRole('button', { name: t('outbound.broadcasts.saveCredits'), exact: true }).click();
  await visible(admin.page.getByTestId('credits').filter({ hasText: '50' }));
  await until(async () => (await admin.page.locator('select[name="connection"] option').count()) > 1, 'the connections');
  await admin.page.locator('select[name="connection"]').selectOption(String(server.webchatConnectionId));
  // Other flows of the run name their customers with runId too: search this flow's two.
  await admin.page.getByLabel(t('outbound.broadcasts.searchContacts')).fill(`disparo ${runId}`);
  const list = admin.page.getByRole('list', { name: t('outbound.broadcasts.contacts') });
  await until(async () => (await list.getByRole('checkbox').count()) === 2, 'both contacts found');
  await admin.page.getByRole('button', { name: t('outbound.broadcasts.selectAll'), exact: true }).click();
  await admin.page.locator('textarea[name="message"]').fill(message);
  await shot(admin.page, 'form');
  await admin.page.getByRole('button', { name: t('outbound.broadcasts.send'), exact: true }).click();

  // The broadcast's name is the server's default for broadcasts.
  const card = await finished(admin.page, t, 'broadcast');
  await customerSees(customer, message);
  await card.getByRole('button', { name: t('outbound.progress.details'), exact: true }).click();
  await visible(card.getByTestId(`send-${badNumber}`).and(card.locator('[data-status="error"]')));
  await visible(card.locator('[data-testid^="send-webchat:"][data-status="sent"]'));
  await shot(admin.page, 'finished');
  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}

// wallTime is now in the tenant's zone (the demo's America/Cuiaba) as a
// datetime-local value.
function wallTime(zone = 'America/Cuiaba') {
  return new Date().toLocaleString('sv-SE', { timeZone: zone, hour12: false }).slice(0, 16).replace(' ', 'T');
}

export async function campaignFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`campaign-${lng}`);
  const customerName = `Cliente campanha ${runId}`;
  const name = `Campanha ${runId}`;
  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [admin, customer];
  onActors?.(actors);
  await customerWrites(customer, base, server.webchatConnectionId, customerName, `oi ${runId}`);
  await login(admin, base, demo.admin);

  await admin.page.goto(`${base}/Campaign`);
  await admin.page.getByRole('button', { name: t('outbound.campaigns.new'), exact: true }).click();
  const dialog = admin.page.getByRole('dialog', { name: t('outbound.campaigns.new') });
  await visible(dialog);
  await dialog.locator('input[name="name"]').fill(name);
  const csv = `numero;nome;p1\n5565911${runId.replace(/\D/g, '').padEnd(6, '0').slice(0, 6)};CSV ${runId};boleto\nxx;ruim\n`;
  await dialog.getByLabel(t('outbound.campaigns.csv')).setInputFiles({ name: 'contatos.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await visible(dialog.getByTestId('csv-preview').filter({ hasText: t('outbound.campaigns.csvPreview', { count: 1 }) }));
  await visible(dialog.getByTestId('csv-error-3'));
  await dialog.getByRole('searchbox', { name: t('outbound.campaigns.contacts') }).fill(customerName);
  const picker = dialog.getByRole('list', { name: t('outbound.campaigns.contacts') });
  await until(async () => (await picker.getByRole('checkbox').count()) === 1, 'the customer found');
  await picker.getByRole('checkbox').check();
  await dialog.locator('input[name="channelFilter"]').fill('socket');
  await dialog.locator('input[name="startAt"]').fill(wallTime());
  await dialog.locator('textarea[name="message-1"]').fill(`Campanha ${runId} para {{firstName}}`);
  await shot(admin.page, 'form');
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await finished(admin.page, t, name);
  await customerSees(customer, `Campanha ${runId} para Cliente`);
  await shot(admin.page, 'finished');
  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
