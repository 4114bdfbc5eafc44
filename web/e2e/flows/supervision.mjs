// Issue 14's wait panel and client map flows.
//
// Wait panel: the admin watches /waitpanel; ana signs in in another browser and turns
// online in the attendance radar; a web chat customer writes in a third and the new
// pending ticket shows in the longest-waiting list — both over the socket, without a
// reload. Then the wall-screen mode shows the same without the drawer.
//
// Client map: a contact with a 'location' extra info and a ticket (made through the
// API); the admin opens /ClientMap, finds the contact's marker, opens its popup and
// follows it to the ticket.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { api, assertClean, check, customerWrites, demo, login, until, visible } from './steps.mjs';

const anaName = 'Ana Atendente'; // demo data, not interface text

export async function waitPanelFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`waitpanel-${lng}`);
  const customerName = `Cliente painel ${lng} ${runId}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [admin, ana, customer];
  onActors?.(actors);

  await login(admin, base, demo.admin);
  await admin.page.goto(`${base}/waitpanel`);
  await visible(admin.page.getByRole('heading', { name: t('supervision.waitPanel.title') }));
  const anaRow = admin.page.locator('[data-testid^="radar-user-"]').filter({ hasText: anaName });
  await visible(anaRow);
  // Ana may still be online from an earlier flow until her lease lapses; wait for the
  // radar to say offline before she signs in, so that "online" below is her doing.
  await until(async () => (await anaRow.getAttribute('data-online')) === 'false', 'ana offline in the radar', 60_000);
  await admin.page.evaluate(() => (window.__e2eNoReload = true));
  await shot(admin.page, 'panel-before');

  // Ana signs in: the radar shows her online, live.
  await login(ana, base, demo.ana);
  await until(async () => (await anaRow.getAttribute('data-online')) === 'true', 'ana online in the radar', 30_000);
  await visible(anaRow.getByText(t('supervision.waitPanel.onlineLabel'), { exact: true }));
  await shot(admin.page, 'panel-ana-online');

  // A web chat customer writes: the pending ticket reaches the waiting list, live.
  await customerWrites(customer, base, server.webchatConnectionId, customerName, `oi ${runId}`);
  const waitingRow = admin.page.locator('[data-testid^="waitpanel-ticket-"]').filter({ hasText: customerName });
  await visible(waitingRow);
  check(await admin.page.evaluate(() => window.__e2eNoReload === true), 'admin: the page reloaded to show the new ticket');
  // Its clock ticks from the server's timestamp.
  const clock = waitingRow.locator('td').nth(2);
  const first = await clock.textContent();
  check(/^\d+:\d\d(:\d\d)?$/.test(first ?? ''), `waiting clock reads ${first}`);
  await until(async () => (await clock.textContent()) !== first, 'the waiting clock ticks', 10_000);
  await shot(admin.page, 'panel-ticket-waiting');

  // Wall screen: no drawer, the same live data.
  await admin.page.getByRole('link', { name: t('supervision.waitPanel.wallScreen'), exact: true }).click();
  await admin.page.waitForURL(/\/waitpanel\/wall$/);
  // The URL changes before the wall screen replaced the panel (whose rows match too):
  // wait until the drawer is gone — a wall screen that keeps it fails here after the
  // deadline — then find the ticket on the wall.
  await until(async () => (await admin.page.getByRole('navigation').count()) === 0, 'the wall screen without a navigation drawer');
  await visible(admin.page.locator('[data-testid^="waitpanel-ticket-"]').filter({ hasText: customerName }));
  await shot(admin.page, 'wall-screen');
  await admin.page.getByRole('link', { name: t('supervision.waitPanel.exitWall'), exact: true }).click();
  await admin.page.waitForURL(/\/waitpanel$/);

  await assertClean(actors);
}

// Three places far apart, one per language and away from the demo contact in Cuiabá,
// so that their markers never cluster.
const places = { 'pt-BR': '-8.0476,-34.8770', en: 'https://www.google.com/maps/@-23.5505,-46.6333,15z', es: 'geo:-34.6037,-58.3816' };

export async function clientMapFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`clientmap-${lng}`);
  const contactName = `Cliente mapa ${lng} ${runId}`;

  // The contact with a location and a ticket, through the API.
  const auth = await api(base, null, 'POST', '/auth/login', demo.admin);
  check(auth.status === 200, `admin login: ${auth.status}`);
  const token = auth.body.token;
  const number = `5565${String(Date.now()).slice(-7)}${lng.length}`;
  const contact = await api(base, token, 'POST', '/contacts', {
    name: contactName,
    number,
    extraInfo: [{ name: 'location', value: places[lng] ?? places.en }],
  });
  check(contact.status === 200 || contact.status === 201, `create contact: ${contact.status} ${JSON.stringify(contact.body)}`);
  const ticket = await api(base, token, 'POST', '/tickets', { contactId: contact.body.id, userId: auth.body.user.id, status: 'open' });
  check(ticket.status === 200 || ticket.status === 201, `create ticket: ${ticket.status} ${JSON.stringify(ticket.body)}`);

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  onActors?.([admin]);
  await login(admin, base, demo.admin);
  await admin.page.goto(`${base}/ClientMap`);
  await visible(admin.page.getByRole('heading', { name: t('supervision.map.title') }));
  const marker = admin.page.locator(`.leaflet-marker-icon[title="${contactName}"]`);
  await visible(marker);
  await shot(admin.page, 'map');

  await marker.click();
  // The popup fades in: axe reads its colours once it is opaque.
  await until(async () => (await admin.page.locator('.leaflet-popup').evaluate((e) => getComputedStyle(e).opacity)) === '1', 'the popup shown');
  const popup = admin.page.locator('.leaflet-popup-content').filter({ hasText: contactName });
  await visible(popup);
  await shot(admin.page, 'popup');
  await popup.getByRole('link', { name: t('supervision.map.openTicket'), exact: true }).click();
  await admin.page.waitForURL(new RegExp(`/tickets/${ticket.body.id}$`));

  await assertClean([admin]);
}
