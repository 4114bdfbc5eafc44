// The session in the browser: the access token is never written to localStorage; a
// reload restores the session from the refresh cookie (the inbox comes back, no login
// page); after logout a reload stays on the login page.
import { newActor } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, demo, login, visible } from './steps.mjs';

export async function sessionFlow({ browser, server, lng, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const ana = await newActor(browser, { name: 'ana', lng });
  onActors?.([ana]);
  const { page } = ana;
  const tabs = () => page.getByRole('tablist', { name: t('tickets.tabs.label') });
  const storedToken = () => page.evaluate(() => window.localStorage.getItem('token'));

  await login(ana, base, demo.ana);
  check((await storedToken()) === null, 'the access token was written to localStorage');

  await page.reload();
  await visible(tabs());
  check(/\/tickets$/.test(page.url()), `after a reload: ${page.url()}, expected the inbox`);
  check((await storedToken()) === null, 'after a reload the access token is in localStorage');

  await page.getByRole('button', { name: t('layout.userMenu.label') }).click();
  await page.getByRole('button', { name: t('layout.userMenu.logout') }).click();
  await page.waitForURL(/\/login$/);
  await page.reload();
  await visible(page.getByRole('button', { name: t('login.form.submit'), exact: true }));
  check(/\/login$/.test(page.url()), `after logout and a reload: ${page.url()}, expected the login page`);
  await assertClean([ana]);
}
