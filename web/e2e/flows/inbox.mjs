// Issue 4's inbox flow, in one language: a web chat customer writes → the pending ticket
// reaches ana's list live → ana accepts and replies → the customer's widget shows the
// reply → ana transfers to the queue Suporte → it leaves her list and reaches bruno's
// pending list → bruno accepts and resolves → it is under the closed tab (and found by
// a search for a word of the customer's message).
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import {
  assertClean,
  check,
  customerSees,
  customerWrites,
  demo,
  gone,
  login,
  openSubTab,
  openTopTab,
  reply,
  rowById,
  rowByName,
  ticketIdOf,
  until,
  visible,
} from './steps.mjs';

export async function inboxFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`inbox-${lng}`);
  const tag = lng.replace(/[^a-z]/gi, '').toLowerCase();
  // Conversation content (not interface text): unique per language and run.
  const customerName = `Cliente ${lng} ${runId}`;
  const question = `ajuda${tag}${runId}`;
  const answer = `resposta ${tag} ${runId}`;

  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const bruno = await newActor(browser, { name: `bruno/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [ana, bruno, customer];
  onActors?.(actors);

  await Promise.all([login(ana, base, demo.ana), login(bruno, base, demo.bruno)]);
  await openSubTab(bruno.page, t, 'pending');
  await openSubTab(ana.page, t, 'pending');
  // A marker that a reload would wipe: the ticket must arrive over the socket.
  await ana.page.evaluate(() => (window.__e2eNoReload = true));
  await shot(ana.page, 'ana-pending-before');

  await customerWrites(customer, base, server.webchatConnectionId, customerName, question);
  await shot(customer.page, 'customer-wrote');

  const row = rowByName(ana.page, customerName);
  await visible(row);
  check(await ana.page.evaluate(() => window.__e2eNoReload === true), 'ana: the page reloaded to show the new ticket');
  const id = await ticketIdOf(row);
  await shot(ana.page, 'ana-pending-arrived');

  // Clicking a pending row does not open it; Accept does.
  await row.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await ana.page.waitForURL(new RegExp(`/tickets/${id}$`));
  await visible(ana.page.locator('[data-testid^="message-"]').filter({ hasText: question }));
  // Desktop: the list stays beside the conversation.
  await visible(ana.page.getByRole('tablist', { name: t('tickets.tabs.label') }));
  await visible(ana.page.getByRole('textbox', { name: t('chat.composer.input') }));

  await reply(ana.page, t, answer);
  await shot(ana.page, 'ana-replied');
  await customerSees(customer, answer);
  await shot(customer.page, 'customer-got-reply');

  // Transfer to a queue only: pending, no user, out of ana's queues.
  await ana.page.getByRole('button', { name: t('chat.header.transfer'), exact: true }).click();
  const dialog = ana.page.getByRole('dialog', { name: t('tickets.transfer.title') });
  await visible(dialog);
  await dialog.getByLabel(t('tickets.transfer.queue')).selectOption({ label: demo.queues.support });
  await shot(ana.page, 'ana-transfer-dialog');
  await dialog.getByRole('button', { name: t('tickets.transfer.submit'), exact: true }).click();
  await ana.page.waitForURL(/\/tickets$/);
  await gone(dialog);
  for (const sub of ['assigned', 'pending']) {
    await openSubTab(ana.page, t, sub);
    await gone(rowById(ana.page, id));
  }
  await shot(ana.page, 'ana-after-transfer');

  const bRow = rowById(bruno.page, id);
  await visible(bRow);
  await visible(bRow.getByText(customerName));
  await shot(bruno.page, 'bruno-pending');
  await bRow.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await bruno.page.waitForURL(new RegExp(`/tickets/${id}$`));
  await visible(bruno.page.locator('[data-testid^="message-"]').filter({ hasText: answer }));
  await shot(bruno.page, 'bruno-accepted');
  await bruno.page.getByRole('button', { name: t('chat.header.resolve'), exact: true }).click();
  await bruno.page.waitForURL(/\/tickets$/);

  await openTopTab(bruno.page, t, 'closed');
  const closed = rowById(bruno.page, id);
  await visible(closed);
  await visible(closed.getByText(t('tickets.row.resolved'), { exact: true }));
  await shot(bruno.page, 'bruno-closed');

  // The search tab: its hint, and a word of the customer's message finds the ticket.
  await openTopTab(bruno.page, t, 'search');
  await visible(bruno.page.getByText(t('tickets.search.hint'), { exact: true }));
  await bruno.page.getByRole('searchbox', { name: t('tickets.search.label') }).fill(`m:${question}`);
  await visible(rowById(bruno.page, id));
  await until(async () => (await bruno.page.locator('[data-testid^="ticket-row-"]').count()) === 1, 'one search result');
  await shot(bruno.page, 'bruno-search');

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
