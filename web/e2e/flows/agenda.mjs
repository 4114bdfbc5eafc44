// The agenda flow, in one language: Ana (an attendant) opens the agenda from the drawer
// (the calendar, Day view), books a consultation through the booking modal (refused
// first without a description, section 5's message) and finds it on the calendar and
// in the list view, with an agenda task made through the header's task modal. Carla (a supervisor) keeps the kanban board open and
// sees the card arrive over the socket. Ana switches to the kanban with the header
// button, drags the card to another column (both boards follow) and concludes it:
// the card leaves both boards and the server keeps it as '✅ Fechou'. The flow holds
// no interface text: every label comes from the locale files; column names and the
// booking's texts are records.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { api, check, demo, gone, login, toastShown, until, visible } from './steps.mjs';

// dragTo drags with the mouse in small steps, as a person does: dnd-kit starts a drag
// only after the pointer has moved a few pixels.
async function dragTo(page, source, target) {
  const from = await source.boundingBox();
  const to = await target.boundingBox();
  check(from && to, 'drag: source or target not on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + 12);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 10, from.y + 20, { steps: 4 });
  await page.mouse.move(to.x + to.width / 2, to.y + 60, { steps: 12 });
  await page.mouse.up();
}

export async function agendaFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`agenda-${lng}`);
  // Records, unique per run and language.
  const bookingName = `Reserva ${runId} ${lng}`;
  const description = `Consulta de retorno ${runId}`;
  const taskName = `Tarefa ${runId} ${lng}`;

  // Ana works in the tenant's zone: the task form's wall-clock value is checked against
  // now in the browser's zone and read by the server in the tenant's.
  const ana = await newActor(browser, { name: `ana/${lng}`, lng, timezoneId: 'America/Cuiaba' });
  const carla = await newActor(browser, { name: `carla/${lng}`, lng });
  const actors = [ana, carla];
  onActors?.(actors);
  await Promise.all([login(ana, base, demo.ana), login(carla, base, demo.carla)]);
  const a = ana.page;
  const c = carla.page;
  const agendaLink = (page) =>
    page.getByRole('group', { name: t('layout.sections.operation') }).getByRole('link', { name: t('layout.menu.agenda'), exact: true });
  const switcher = (page) => page.getByRole('group', { name: t('agenda.views.switcher') });

  // Carla: agenda from the drawer, then the kanban through the header button.
  await agendaLink(c).click();
  await visible(c.getByRole('heading', { name: t('agenda.title'), exact: true }));
  await switcher(c).getByRole('button', { name: t('agenda.views.kanban'), exact: true }).click();
  await c.waitForURL(/\/Kanban$/);
  await visible(c.locator('[data-testid^="kanban-column-"]').first());

  // Ana: the calendar opens in Day view.
  await agendaLink(a).click();
  await a.waitForURL(/\/advscheduler$/);
  const calendar = a.getByLabel(t('agenda.calendar.label'));
  await visible(calendar);
  check((await calendar.getAttribute('data-view')) === 'day', 'calendar: not in Day view at first');

  // An agenda task through the calendar header's modal, for a contact made through the
  // API (records, not interface text): refused first without a schedule (section 5's
  // first check, an error toast), then saved with the success toast.
  const login2 = await api(base, null, 'POST', '/auth/login', demo.ana);
  check(login2.status === 200 && login2.body?.token, `ana api login: ${login2.status}`);
  const contactName = `Contato ${runId} ${lng}`;
  const digits = String(parseInt(runId, 16) % 100_000_000).padStart(8, '0');
  const contact = await api(base, login2.body.token, 'POST', '/contacts', {
    name: contactName,
    number: `5565${['pt-BR', 'en', 'es'].indexOf(lng) + 1}${digits}`,
  });
  check(contact.status === 200 || contact.status === 201, `POST /contacts: ${contact.status} ${JSON.stringify(contact.body)}`);
  // Two hours ahead on the half hour, as the tenant's wall clock (the form's value).
  const inTwoHours = new Date(Date.now() + 2 * 3_600_000);
  inTwoHours.setUTCMinutes(inTwoHours.getUTCMinutes() < 30 ? 30 : 60, 0, 0);
  const wall = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Cuiaba', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
      .formatToParts(inTwoHours)
      .map((p) => [p.type, p.value]),
  );
  await a.getByRole('button', { name: t('agenda.task.newTask'), exact: true }).click();
  const taskDialog = a.getByRole('dialog', { name: t('agenda.task.addTitle') });
  await visible(taskDialog);
  await taskDialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  // The toast and the field's message; nothing else is reported (only the first check).
  await visible(a.getByRole('alert').filter({ hasText: t('agenda.task.scheduleRequired') }).first());
  await visible(taskDialog.getByRole('alert').filter({ hasText: t('agenda.task.scheduleRequired') }));
  check((await taskDialog.getByRole('alert').count()) === 1, 'the task modal reports more than its first failing check');
  await taskDialog.getByLabel(t('agenda.task.name')).fill(taskName);
  await taskDialog.getByLabel(t('agenda.task.sendAt')).fill(`${wall.year}-${wall.month}-${wall.day}T${wall.hour}:${wall.minute}`);
  await taskDialog.getByRole('searchbox').fill(contactName.slice(0, 12));
  await taskDialog.getByRole('button', { name: new RegExp(contactName) }).click();
  await taskDialog.getByLabel(t('agenda.task.message')).fill(`Retornar a ligação ${runId}`);
  await taskDialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(taskDialog);
  // The booking's success toast has the same text (section 8's 'agenda saved'):
  // toastShown takes this one, so the booking's must be a second toast.
  await toastShown(a, t('agenda.task.saved'));

  // The booking modal: the description is required (section 5), then saved.
  await a.getByRole('button', { name: t('agenda.calendar.newBooking'), exact: true }).click();
  const dialog = a.getByRole('dialog', { name: t('agenda.booking.addTitle') });
  await visible(dialog);
  await dialog.getByLabel(t('agenda.booking.name'), { exact: true }).fill(bookingName);
  // Today in the tenant's zone (the Day view's day), at 10:00.
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Cuiaba' }).format(new Date());
  await dialog.getByLabel(t('agenda.booking.date'), { exact: true }).fill(today);
  await dialog.getByLabel(t('agenda.booking.time'), { exact: true }).fill('10:00');
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(dialog.getByRole('alert').filter({ hasText: t('agenda.booking.descriptionRequired') }));
  await shot(a, 'booking-description-required');
  await dialog.getByLabel(t('agenda.booking.description')).fill(description);
  await dialog.getByLabel(t('agenda.booking.tagLevel')).selectOption('9');
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(dialog);
  await toastShown(a, t('agenda.booking.saved'));

  // On the calendar: today's Day view at 10:00, then the list view.
  await visible(calendar.locator('.rbc-event').filter({ hasText: bookingName }));
  await shot(a, 'calendar-day');
  await calendar.getByRole('button', { name: t('agenda.calendar.agenda'), exact: true }).click();
  await visible(calendar.getByText(bookingName).first());
  await visible(calendar.getByText(taskName).first());
  await shot(a, 'calendar-list');

  // Carla's board got the card live, in the first column.
  const carlaCard = c.locator('[data-testid^="kanban-card-"]').filter({ hasText: bookingName });
  await visible(carlaCard);
  check((await carlaCard.getAttribute('data-tone')) === 'red', 'kanban: level 9 is not a red card');
  const testId = await carlaCard.getAttribute('data-testid');
  const bookingId = Number(testId.replace('kanban-card-', ''));

  // Ana: kanban through the header button; drag the card to the second column (on screen at any width).
  await switcher(a).getByRole('button', { name: t('agenda.views.kanban'), exact: true }).click();
  await a.waitForURL(/\/Kanban$/);
  const card = a.getByTestId(testId);
  await visible(card);
  const columns = a.locator('[data-testid^="kanban-column-"]');
  const target = columns.nth(1);
  const targetName = await target.getAttribute('aria-label');
  await dragTo(a, card, target);
  await visible(target.getByTestId(testId));
  await visible(c.getByRole('region', { name: targetName, exact: true }).getByTestId(testId));
  await shot(a, 'kanban-moved');

  // Conclude: the card leaves both boards; the server keeps it as concluded.
  await a.getByTestId(testId).getByRole('button', { name: t('agenda.kanban.conclude'), exact: true }).click();
  await gone(a.getByTestId(testId));
  await gone(c.getByTestId(testId));
  const saved = await api(base, login2.body.token, 'GET', `/agenda/bookings/${bookingId}`);
  check(saved.status === 200 && saved.body.archived === true && saved.body.label === '✅ Fechou', `concluded booking: ${JSON.stringify(saved.body)}`);
  await shot(c, 'kanban-concluded');

  await until(async () => (await a.locator('[role="dialog"]').count()) === 0, 'no dialog left open');
  const issues = [];
  for (const x of actors) {
    issues.push(...x.problems);
    for (const text of await x.alerts()) if (text !== t('agenda.booking.descriptionRequired') && !text.startsWith(t('agenda.task.scheduleRequired'))) issues.push(`${x.name}: error shown: ${text}`);
  }
  check(issues.length === 0, issues.join('\n'));
  await Promise.all(actors.map((x) => x.close()));
}
