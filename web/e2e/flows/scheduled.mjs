// The scheduled-message flow, in one language: a web chat customer writes → Ana accepts
// the ticket → schedules a message from the chat header about 18 s ahead, to the second
// (the server reads the form's wall-clock value in the tenant's zone, America/Cuiaba,
// seconds included, and takes any future instant) → the message is listed as pending on
// /scheduledMessages → the timer fires: the customer's widget receives the message and
// the row turns to "sent" on Ana's open page, over the socket (no reload).
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, customerSees, customerWrites, demo, login, openSubTab, rowByName, ticketIdOf, toastShown, until, visible } from './steps.mjs';

// The tenant's zone (docs/scheduling.md): the form's value is a wall-clock time there.
const tenantZone = 'America/Cuiaba';

// wallClock is the instant d as a datetime-local value (YYYY-MM-DDTHH:MM:SS) in zone.
function wallClock(d, zone) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

// secondsAhead is the whole second at least leadMs after now: a time the server still
// finds in the future once the form is filled and sent on a loaded machine.
function secondsAhead(leadMs) {
  const at = new Date(Date.now() + leadMs);
  at.setUTCMilliseconds(0);
  at.setUTCSeconds(at.getUTCSeconds() + 1);
  return at;
}

export async function scheduledFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`scheduled-${lng}`);
  const tag = lng.replace(/[^a-z]/gi, '').toLowerCase();
  // Conversation content (not interface text): unique per language and run.
  const customerName = `Agendado ${lng} ${runId}`;
  const question = `retorno${tag}${runId}`;
  const scheduled = `lembrete agendado ${tag} ${runId}`;

  // Ana works in the tenant's zone, as the form assumes: it checks the wall-clock value
  // against now in the browser's zone, the server reads it in the tenant's.
  const ana = await newActor(browser, { name: `ana/${lng}`, lng, timezoneId: tenantZone });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [ana, customer];
  onActors?.(actors);

  await login(ana, base, demo.ana);
  await openSubTab(ana.page, t, 'pending');
  await customerWrites(customer, base, server.webchatConnectionId, customerName, question);

  const row = rowByName(ana.page, customerName);
  await visible(row);
  const ticketId = await ticketIdOf(row);
  await row.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await ana.page.waitForURL(new RegExp(`/tickets/${ticketId}$`));
  await visible(ana.page.locator('[data-testid^="message-"]').filter({ hasText: question }));

  // The schedule action of the chat header: from a ticket, no number or connection asked.
  // (The ticket manager has a schedule button of the same name: the chat's is in its header.)
  await ana.page.locator('header').getByRole('button', { name: t('chat.header.schedule'), exact: true }).click();
  const dialog = ana.page.getByRole('dialog', { name: t('scheduling.form.addTitle') });
  await visible(dialog);
  check((await dialog.getByLabel(t('scheduling.form.phoneNumber')).count()) === 0, 'the schedule modal from a ticket asks for a number');
  check((await dialog.getByLabel(t('scheduling.form.connection')).count()) === 0, 'the schedule modal from a ticket asks for a connection');
  const due = secondsAhead(18_000);
  await dialog.getByLabel(t('scheduling.form.sendAt')).fill(wallClock(due, tenantZone));
  await dialog.getByLabel(t('scheduling.form.message')).fill(scheduled);
  await shot(ana.page, 'schedule-modal');
  await dialog.locator('button[type="submit"]').click();
  await toastShown(ana.page, t('scheduling.toasts.saved'));
  check(Date.now() < due.getTime(), `the form was sent after its own time ${due.toISOString()}; the flow is too slow for its lead`);

  // The list: pending, before it is due. The page stays open from here: the change to
  // "sent" must come over the socket.
  await ana.page.goto(`${base}/scheduledMessages`);
  await visible(ana.page.getByRole('searchbox', { name: t('scheduling.search') }));
  const item = ana.page.locator('[data-testid^="schedule-"]').filter({ hasText: scheduled });
  await visible(item);
  const scheduleId = (await item.getAttribute('data-testid'))?.replace('schedule-', '');
  check((await item.getAttribute('data-status')) === 'pending', `schedule ${scheduleId} is ${await item.getAttribute('data-status')} before its time`);
  await visible(item.filter({ hasText: t('scheduling.status.pending') }));
  await ana.page.evaluate(() => (window.__e2eNoReload = true));
  await shot(ana.page, 'list-pending');

  // The timer fires at its second (River polls every 200 ms): generous deadline for a
  // loaded machine, counted from the due time.
  const deadline = due.getTime() - Date.now() + 45_000;
  await until(async () => (await customer.page.locator('.log .m:not(.c)').filter({ hasText: scheduled }).count()) === 1, "the scheduled message in the customer's widget", deadline);
  await customerSees(customer, scheduled);
  await shot(customer.page, 'customer-got-scheduled');
  await until(async () => (await item.getAttribute('data-status')) === 'sent', `schedule ${scheduleId} turning to sent`, 30_000);
  await visible(item.filter({ hasText: t('scheduling.status.sent') }));
  check(await ana.page.evaluate(() => window.__e2eNoReload === true), 'ana: the list reloaded to show the sent status');
  check(Date.now() >= due.getTime(), 'the scheduled message arrived before its time');
  await shot(ana.page, 'list-sent');

  await assertClean(actors);
}
