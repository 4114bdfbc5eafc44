// Issue 14's dashboard flow: the admin keeps /tableaux open; a web chat customer writes,
// ana accepts, replies and resolves the ticket in her own browser; without a reload the
// admin's dashboard counts one more resolved ticket and one more customer message (the
// page reloads its numbers on the socket's ticket events). The CSV export downloads the
// same numbers. Every screenshot is checked by axe (WCAG 2 AA).
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, customerWrites, demo, login, openSubTab, reply, rowByName, ticketIdOf, until, visible } from './steps.mjs';

export async function dashboardFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`dashboard-${lng}`);
  const customerName = `Cliente painel ${lng} ${runId}`;
  // The dashboard's days are the server's calendar (America/Cuiaba): the admin's
  // browser uses the same, so "today" is the same day on both sides.
  const admin = await newActor(browser, { name: `admin/${lng}`, lng, timezoneId: 'America/Cuiaba' });
  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [admin, ana, customer];
  onActors?.(actors);
  await Promise.all([login(admin, base, demo.admin), login(ana, base, demo.ana)]);

  await admin.page.goto(`${base}/tableaux`);
  await visible(admin.page.getByRole('heading', { name: t('dashboard.title'), exact: true }));
  const resolved = admin.page.getByTestId('dash-resolved');
  const messagesIn = admin.page.getByTestId('dash-messages-in');
  await visible(resolved);
  await visible(admin.page.getByTestId('dashboard-chart').locator('canvas'));
  const number = async (loc) => Number((await loc.textContent())?.trim());
  const before = { resolved: await number(resolved), in: await number(messagesIn) };
  await shot(admin.page, 'before');

  // Another browser: the customer writes, ana accepts, replies and resolves.
  await openSubTab(ana.page, t, 'pending');
  await customerWrites(customer, base, server.webchatConnectionId, customerName, `painel ${runId}`);
  const row = rowByName(ana.page, customerName);
  await visible(row);
  const id = await ticketIdOf(row);
  await row.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await ana.page.waitForURL(new RegExp(`/tickets/${id}$`));
  await reply(ana.page, t, `resposta ${runId}`);
  await ana.page.getByRole('button', { name: t('chat.header.resolve'), exact: true }).click();
  await ana.page.waitForURL(/\/tickets$/);

  // The admin's dashboard follows without a reload.
  await until(async () => (await number(resolved)) >= before.resolved + 1, 'one more resolved ticket on the dashboard', 30_000);
  await until(async () => (await number(messagesIn)) >= before.in + 1, 'one more customer message on the dashboard', 30_000);
  await shot(admin.page, 'after-resolve');

  // The CSV export.
  const [download] = await Promise.all([
    admin.page.waitForEvent('download'),
    admin.page.getByRole('button', { name: t('dashboard.export'), exact: true }).click(),
  ]);
  const stream = await download.createReadStream();
  let csv = '';
  for await (const chunk of stream) csv += chunk;
  check(csv.startsWith('section,id,name,value'), `CSV export starts with ${csv.slice(0, 40)}`);
  const line = csv.split('\n').find((l) => l.startsWith('resolved,'));
  check(line && Number(line.split(',')[3]) >= before.resolved + 1, `CSV resolved row ${line}`);

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
