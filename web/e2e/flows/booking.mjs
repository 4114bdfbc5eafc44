// The booking scheduler in the user modal, in one language: the admin edits a demo
// attendant, adds a place and the attendant's position in the Recurso tab, toggles two
// cells of the Grelha tab on a future week, saves (success message), reloads the page,
// reopens the modal and finds the two cells still on. Each language uses its own week
// (weeksAhead), so the three runs never toggle each other's cells. The flow holds no
// interface text: every label comes from the locale files.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, demo, gone, login, until, visible } from './steps.mjs';

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

  await assertClean([admin]);
  await admin.close();
}
