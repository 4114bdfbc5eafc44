// The chat screen's own defects (issue 16.4), as an administrator meets them: the
// contact drawer opens on demand, remembers it across a reload, and shows the contact's
// extra info and opportunities (one marked won there); deleting one's own
// message works (the app names no ticket: the server finds it); translating a
// received message says it is not configured; deleting the ticket toasts once.
import { request } from 'playwright-core';
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { acceptNewCustomer, assertClean, check, demo, gone, login, reply, rowById, toastCount, toastShown, until, visible } from './steps.mjs';

export async function chatFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`chat-${lng}`);
  const customerName = `Cliente chat ${runId}`;
  const question = `pergunta${runId}`;
  const mistake = `engano ${runId}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/chat`, lng });
  const actors = [admin, customer];
  onActors?.(actors);
  const page = admin.page;

  await login(admin, base, demo.admin);
  const id = await acceptNewCustomer(page, t, customer, base, server.webchatConnectionId, customerName, question);

  // The contact gets an extra info (a location: the drawer links it to a map) and a
  // sales opportunity through the API, as another attendant would on the contacts page.
  const api = await request.newContext({ baseURL: base });
  try {
    const auth = await (await api.post('/auth/login', { data: demo.admin })).json();
    const headers = { Authorization: `Bearer ${auth.token}` };
    const ticket = await (await api.get(`/tickets/${id}`, { headers })).json();
    const put = await api.put(`/contacts/${ticket.contactId}`, {
      headers,
      data: {
        name: customerName,
        number: ticket.contact.number,
        extraInfo: [{ name: 'location', value: '-15.6014, -56.0979' }],
        salesOpps: [{ name: `Plano ${runId}`, value: '100', stage: 'proposta' }],
      },
    });
    check(put.ok(), `PUT /contacts answered ${put.status()}`);
  } finally {
    await api.dispose();
  }

  // The contact drawer: closed until asked for, then kept open across a reload; it
  // shows the contact's extra info and opportunities, and marks one won.
  const drawer = page.getByRole('complementary', { name: t('chat.contact.title') });
  const toggle = page.getByRole('button', { name: t('chat.header.contactInfo'), exact: true });
  check((await drawer.count()) === 0, 'the contact drawer is open before anyone asked for it');
  await shot(page, 'drawer-closed');
  await toggle.click();
  await visible(drawer);
  await page.reload();
  await visible(drawer);
  await visible(drawer.getByRole('link', { name: t('chat.contact.openMap') }));
  await visible(drawer.getByText(`Plano ${runId}`, { exact: true }));
  await shot(page, 'drawer-remembered');
  await drawer.getByRole('button', { name: t('chat.contact.markWon'), exact: true }).click();
  await visible(drawer.getByRole('img', { name: t('chat.contact.won') }));
  await shot(page, 'opportunity-won');
  await toggle.click();
  await gone(drawer);

  // Deleting one's own message.
  await reply(page, t, mistake);
  const mine = page.locator('[data-testid^="message-"]').filter({ hasText: mistake });
  // The bubble's actions show while the pointer is over the bubble itself.
  await mine.getByText(mistake, { exact: true }).hover();
  await mine.getByRole('button', { name: t('chat.messages.delete'), exact: true }).click();
  const confirmDelete = page.getByRole('dialog', { name: t('chat.deleteMessage.title') });
  await confirmDelete.getByRole('button', { name: t('common.actions.delete'), exact: true }).click();
  await gone(confirmDelete);
  const deletedNote = page.locator('[data-testid^="message-"]').filter({ hasText: t('chat.messages.deleted') });
  await visible(deletedNote);
  await shot(page, 'message-deleted');

  // Translating a received message: this server has no translation.
  const received = page.locator('[data-testid^="message-"]').filter({ hasText: question });
  await received.getByText(question, { exact: true }).hover();
  await received.getByRole('button', { name: t('chat.messages.translate'), exact: true }).click();
  const translate = page.getByRole('dialog', { name: t('chat.translate.title') });
  await translate.getByRole('button', { name: t('chat.composer.languages.es'), exact: true }).click();
  await visible(translate.getByText(t('chat.translate.notConfigured'), { exact: true }));
  await shot(page, 'translate-not-configured');
  await translate.getByRole('button', { name: t('common.actions.close'), exact: true }).click();
  await gone(translate);

  // Deleting the ticket: one success toast, though the answer and the socket event
  // both report it. Counted once the list has dropped the row (the event arrived).
  await page.getByRole('button', { name: t('chat.header.delete'), exact: true }).click();
  const confirmTicket = page.getByRole('dialog', { name: t('chat.deleteTicket.title') });
  await confirmTicket.getByRole('button', { name: t('common.actions.delete'), exact: true }).click();
  await page.waitForURL(/\/tickets$/);
  await gone(rowById(page, id));
  await toastShown(page, t('chat.toast.deleted'));
  const shown = await toastCount(page, t('chat.toast.deleted'));
  check(shown === 1, `the deletion toast showed ${shown} times`);
  await shot(page, 'ticket-deleted');

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
