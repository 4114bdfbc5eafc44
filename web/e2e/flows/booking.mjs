// The booking scheduler in the user modal, in one language: the admin edits a demo
// attendant, adds a place and the attendant's position in the Recurso tab, toggles two
// cells of the Grelha tab on a future week, saves (success message), reloads the page,
// reopens the modal and finds the two cells still on. Each language uses its own week
// (weeksAhead), so the three runs never toggle each other's cells. Then, on the
// calendar, the admin books one of those slots from the booking modal (resource: the
// attendant) and, reopening the modal, finds it gone from the free slots while the
// other is still there. The flow holds no interface text: every label comes from the
// locale files.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, demo, gone, login, toastShown, until, visible } from './steps.mjs';

// The demo attendant's name (seed data, not interface text).
const demoAnaName = 'Ana Atendente';

async function openUserModal(page, t, email) {
  await page
    .getByRole('group', { name: t('layout.sections.supervision') })
    .getByRole('link', { name: t('layout.menu.users'), exact: true })
    .click();
  await visible(page.getByRole('heading', { name: t('users.title'), exact: true }));
  const row = page.locator('[data-testid^="user-"]').filter({ hasText: email });
  await row.getByRole('button', { name: t('users.actions.edit'), exact: true }).click();
  const dialog = page.getByRole('dialog', { name: t('users.form.editTitle') });
  await visible(dialog);
  return dialog;
}

async function openGridWeek(dialog, t, weeksAhead) {
  await dialog.getByRole('tab', { name: t('booking.tabs.grid'), exact: true }).click();
  await visible(dialog.locator('[data-slot]').first());
  for (let i = 0; i < weeksAhead; i++) {
    const first = await dialog.locator('[data-slot]').first().getAttribute('data-slot');
    await dialog.getByRole('button', { name: t('booking.grid.nextWeek'), exact: true }).click();
    await until(async () => (await dialog.locator('[data-slot]').first().getAttribute('data-slot')) !== first, 'the grid moved a week');
  }
}

export async function bookingFlow({ browser, server, lng, runId, onActors, weeksAhead }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`booking-${lng}`);
  const placeName = `Clínica ${runId} ${lng}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  onActors?.([admin]);
  await login(admin, base, demo.admin);
  const a = admin.page;

  // Recurso: a new place, then the attendant's position there.
  let dialog = await openUserModal(a, t, demo.ana.email);
  await dialog.getByRole('tab', { name: t('booking.tabs.resource'), exact: true }).click();
  const places = dialog.getByRole('group', { name: t('booking.places.title') });
  await visible(places);
  await places.getByLabel(t('booking.places.name'), { exact: true }).fill(placeName);
  await places.getByLabel(t('booking.places.lat'), { exact: true }).fill('-15.6');
  await places.getByLabel(t('booking.places.lng'), { exact: true }).fill('-56.1');
  await places.getByRole('button', { name: t('booking.places.add'), exact: true }).click();
  await visible(places.getByRole('button', { name: t('booking.places.delete', { name: placeName }), exact: true }));
  await dialog.getByLabel(t('booking.resource.name'), { exact: true }).fill(`Sala ${runId}`);
  await dialog.getByRole('button', { name: t('booking.actions.save'), exact: true }).click();
  await visible(a.getByText(t('booking.resource.saved'), { exact: true }));
  await shot(a, 'resource-saved');

  // Grelha: two cells of a future week on, saved.
  await openGridWeek(dialog, t, weeksAhead);
  const free = dialog.locator('[data-slot][aria-pressed="false"]:not([disabled])');
  const picked = [await free.nth(3).getAttribute('data-slot'), await free.nth(40).getAttribute('data-slot')];
  for (const slot of picked) {
    const cell = dialog.locator(`[data-slot="${slot}"]`);
    await cell.click();
    await until(async () => (await cell.getAttribute('aria-pressed')) === 'true', `cell ${slot} on`);
  }
  await dialog.getByRole('button', { name: t('booking.actions.save'), exact: true }).click();
  await visible(a.getByText(t('booking.grid.saved'), { exact: true }));
  await shot(a, 'grid-saved');

  // Reload: the cells come back on from the server.
  await a.reload();
  dialog = await openUserModal(a, t, demo.ana.email);
  await openGridWeek(dialog, t, weeksAhead);
  for (const slot of picked) {
    const cell = dialog.locator(`[data-slot="${slot}"]`);
    await until(async () => (await cell.getAttribute('aria-pressed')) === 'true', `cell ${slot} kept after reload`);
  }
  await shot(a, 'grid-kept');
  check((await dialog.locator('[data-slot][aria-pressed="true"]').count()) >= picked.length, 'the saved cells are on');
  // The tab's own Close (the dialog's corner button has the same name, no text).
  await dialog.getByRole('button', { name: t('booking.actions.close'), exact: true }).filter({ hasText: t('booking.actions.close') }).click();
  await gone(dialog);

  // The calendar's booking modal takes one of the saved slots for the attendant's
  // resource; reopened, the modal no longer offers it.
  const slotLabel = (key) => {
    const [date, hour] = key.split(' ');
    return `${date.split('-').reverse().join('/')} ${hour}`;
  };
  const openBookingModal = async () => {
    await a.goto(`${base}/advscheduler`);
    await visible(a.getByLabel(t('agenda.calendar.label')));
    await a.getByRole('button', { name: t('agenda.calendar.newBooking'), exact: true }).click();
    const modal = a.getByRole('dialog', { name: t('agenda.booking.addTitle') });
    await visible(modal);
    const owner = modal.getByRole('combobox', { name: t('agenda.slot.owner') });
    await until(async () => (await owner.locator('option', { hasText: demoAnaName }).count()) === 1, "the attendant among the resources' owners");
    await owner.selectOption({ label: demoAnaName });
    const slotSelect = modal.locator('select[name="slotId"]');
    await until(async () => (await slotSelect.locator('option', { hasText: slotLabel(picked[1]) }).count()) === 1, `slot ${picked[1]} offered`);
    return { modal, slotSelect };
  };
  let { modal, slotSelect } = await openBookingModal();
  check((await slotSelect.locator('option', { hasText: slotLabel(picked[0]) }).count()) === 1, `slot ${picked[0]} offered before booking`);
  await slotSelect.selectOption({ label: slotLabel(picked[0]) });
  check((await modal.locator('input[name="time"]').inputValue()) === picked[0].split(' ')[1], 'the booking takes the slot time');
  await modal.getByLabel(t('agenda.booking.description')).fill(`Consulta ${runId} ${lng}`);
  await shot(a, 'slot-picked');
  await modal.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(modal);
  await toastShown(a, t('agenda.booking.saved'));
  ({ modal, slotSelect } = await openBookingModal());
  check((await slotSelect.locator('option', { hasText: slotLabel(picked[0]) }).count()) === 0, `slot ${picked[0]} still offered after it was booked`);
  await shot(a, 'slot-gone');
  await modal.getByRole('button', { name: t('common.actions.cancel'), exact: true }).click();
  await gone(modal);

  await assertClean([admin]);
  await admin.close();
}
