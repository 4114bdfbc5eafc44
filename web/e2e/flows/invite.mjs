// Issue 13 items 2 and 3 in two browsers.
// announcementsFlow: the admin publishes an announcement with an image on /announcements;
// ana (another browser, already on the inbox) sees the announcements button count it,
// opens the popover and finds it there with its image, in the high priority's stripe.
// inviteFlow: a web chat customer writes; ana accepts and invites bruno (whose queue is
// not the ticket's) from the chat header; bruno's notice offers accept and decline and
// comes back after a reload; he accepts, the ticket opens for him, he answers and the
// customer gets it, and the ticket is in his own open list.
import { newActor, screenshots } from '../lib/browser.mjs';
import { startsWith, translator } from '../lib/locales.mjs';
import { assertClean, check, customerSees, customerWrites, demo, login, openSubTab, reply, rowByName, ticketIdOf, toastShown, until, visible } from './steps.mjs';

// A 1×1 PNG: the upload must be an image by its content.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export async function announcementsFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`announcements-${lng}`);
  const title = `Cardápio novo ${runId}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const actors = [admin, ana];
  onActors?.(actors);
  await Promise.all([login(admin, base, demo.admin), login(ana, base, demo.ana)]);

  await admin.page.goto(`${base}/announcements`);
  await admin.page.getByRole('button', { name: t('announcements.actions.add'), exact: true }).click();
  const dialog = admin.page.getByRole('dialog', { name: t('announcements.form.addTitle') });
  await visible(dialog);
  await dialog.getByLabel(t('announcements.form.titleField')).fill(title);
  await dialog.getByLabel(t('announcements.form.text')).fill('Veja a imagem anexa.');
  await dialog.getByLabel(t('announcements.priority.label')).selectOption({ label: t('announcements.priority.1') });
  await dialog.getByLabel(t('announcements.media.label')).setInputFiles({ name: 'cardapio.png', mimeType: 'image/png', buffer: png });
  await shot(admin.page, 'form');
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(admin.page.locator('[data-testid^="announcement-"]').filter({ hasText: title }));

  // Ana's button counts it live, then the popover lists it with its image.
  const button = ana.page.getByRole('button', { name: startsWith(t('announcements.popover.buttonNew', { count: 1 })) });
  await visible(button);
  await button.click();
  const list = ana.page.getByRole('list', { name: t('announcements.popover.title') });
  const item = list.getByRole('listitem').filter({ hasText: title });
  await visible(item);
  const img = item.getByRole('img', { name: t('announcements.popover.imageAlt', { title }) });
  await visible(img);
  await until(() => img.evaluate((el) => el.complete && el.naturalWidth === 1), 'the image loaded from its signed URL');
  check((await item.getAttribute('data-priority')) === '1', 'the announcement is drawn as priority 1');
  await shot(ana.page, 'popover');

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}

export async function inviteFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`invite-${lng}`);
  const customerName = `Cliente convite ${runId}`;

  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const bruno = await newActor(browser, { name: `bruno/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [ana, bruno, customer];
  onActors?.(actors);
  await Promise.all([login(ana, base, demo.ana), login(bruno, base, demo.bruno)]);

  await openSubTab(ana.page, t, 'pending');
  await customerWrites(customer, base, server.webchatConnectionId, customerName, `preciso de ajuda ${runId}`);
  const row = rowByName(ana.page, customerName);
  await visible(row);
  const id = await ticketIdOf(row);
  await row.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await ana.page.waitForURL(new RegExp(`/tickets/${id}$`));

  // The invitation, from the chat header's button.
  await ana.page.getByRole('button', { name: t('chat.header.invite'), exact: true }).click();
  const dialog = ana.page.getByRole('dialog', { name: t('invite.title') });
  await visible(dialog);
  await until(async () => (await dialog.locator('option').filter({ hasText: 'Bruno Atendente' }).count()) === 1, 'bruno in the picker');
  await dialog.getByLabel(t('invite.user')).selectOption({ label: 'Bruno Atendente' });
  await shot(ana.page, 'invite-dialog');
  await dialog.getByRole('button', { name: t('invite.send'), exact: true }).click();
  await toastShown(ana.page, t('invite.sent', { name: 'Bruno Atendente' }));

  // Bruno's notice; it survives a reload (GET /ticketinvite); he accepts and lands in
  // the conversation.
  let notice = bruno.page.getByRole('alertdialog', { name: t('invite.notice.title') });
  await visible(notice);
  await bruno.page.reload();
  notice = bruno.page.getByRole('alertdialog', { name: t('invite.notice.title') });
  await visible(notice);
  check((await notice.textContent()).includes(customerName), 'the notice names the customer after a reload');
  await shot(bruno.page, 'notice');
  await notice.getByRole('button', { name: t('invite.notice.accept'), exact: true }).click();
  await bruno.page.waitForURL(new RegExp(`/tickets/${id}$`));
  await visible(bruno.page.locator('[data-testid^="message-"]').filter({ hasText: `preciso de ajuda ${runId}` }));
  // Ana is told.
  await toastShown(ana.page, t('invite.answer.accept', { name: 'Bruno Atendente', contact: customerName }));

  // The guest answers the customer.
  await reply(bruno.page, t, `Olá, aqui é o Bruno ${runId}`);
  await customerSees(customer, `Olá, aqui é o Bruno ${runId}`);
  await shot(bruno.page, 'guest-chat');

  // A guest has the ticket in his own list, though its queue is not his.
  await openSubTab(bruno.page, t, 'assigned');
  await visible(rowByName(bruno.page, customerName));
  await shot(bruno.page, 'guest-list');

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
