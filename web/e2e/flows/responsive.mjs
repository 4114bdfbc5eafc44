// Spec section 2, Ticket manager: on small screens the list is hidden once a ticket is
// open (and comes back with the header's back button); on a desktop both show.
import { newActor, screenshots, viewports } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, customerWrites, demo, gone, login, openSubTab, rowByName, ticketIdOf, visible } from './steps.mjs';

export async function responsiveFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`responsive-${lng}`);
  const customerName = `Celular ${lng} ${runId}`;
  const question = `tela${runId}`;

  const phone = await newActor(browser, { name: `ana/phone`, lng, viewport: viewports.phone });
  const desktop = await newActor(browser, { name: `ana/desktop`, lng, viewport: viewports.desktop });
  const customer = await newActor(browser, { name: `customer/phone`, lng, viewport: viewports.phone });
  const actors = [phone, desktop, customer];
  onActors?.(actors);

  const list = (page) => page.getByRole('tablist', { name: t('tickets.tabs.label') });
  const composer = (page) => page.getByRole('textbox', { name: t('chat.composer.input') });

  await login(phone, base, demo.ana);
  await shot(phone.page, 'phone-inbox');
  await openSubTab(phone.page, t, 'pending');
  await customerWrites(customer, base, server.webchatConnectionId, customerName, question);
  await shot(customer.page, 'customer-wrote');
  // The demo page's embed snippet wraps on a phone, and the widget's times are the
  // tenant's HH:mm on a 24-hour clock whatever the visitor's language.
  const pageOverflow = await customer.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(pageOverflow <= 0, `customer: the demo page is ${pageOverflow}px wider than the phone`);
  const times = await customer.page.locator('.log .m time').allTextContents();
  check(times.length > 0 && times.every((s) => /^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(s)), `customer: widget times ${JSON.stringify(times)}`);
  const row = rowByName(phone.page, customerName);
  await visible(row);
  const id = await ticketIdOf(row);
  await shot(phone.page, 'phone-pending');
  // Nothing may be wider than the screen.
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `phone: the page is ${overflow}px wider than the viewport`);

  await row.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await phone.page.waitForURL(new RegExp(`/tickets/${id}$`));
  await visible(composer(phone.page));
  await visible(phone.page.locator('[data-testid^="message-"]').filter({ hasText: question }));
  check((await list(phone.page).count()) === 0, 'phone: the ticket list still shows beside an open ticket');
  await shot(phone.page, 'phone-chat');

  await phone.page.getByRole('button', { name: t('chat.header.back'), exact: true }).click();
  await phone.page.waitForURL(/\/tickets$/);
  await visible(list(phone.page));
  await gone(composer(phone.page));
  await shot(phone.page, 'phone-back-to-list');

  await login(desktop, base, demo.ana);
  await desktop.page.goto(`${base}/tickets/${id}`);
  await visible(composer(desktop.page));
  await visible(list(desktop.page));
  await visible(desktop.page.locator('[data-testid^="message-"]').filter({ hasText: question }));
  await shot(desktop.page, 'desktop-list-and-chat');

  // The web chat connection's embed code on the connections page wraps on a phone too.
  const admin = await newActor(browser, { name: 'admin/phone', lng, viewport: viewports.phone });
  actors.push(admin);
  await login(admin, base, demo.admin);
  await admin.page.goto(`${base}/connections`);
  const embed = admin.page.getByTestId(`webchat-embed-${server.webchatConnectionId}`);
  await visible(embed);
  await embed.getByText(t('connections.embed.title'), { exact: true }).click();
  const snippet = admin.page.getByTestId(`webchat-snippet-${server.webchatConnectionId}`);
  await visible(snippet);
  await shot(admin.page, 'phone-connections-embed');
  // All of it in view: no wider than its box (nothing clipped or scrolled away), its box
  // within the screen, and the page no wider than the screen.
  const fit = await snippet.evaluate((el) => ({
    hidden: el.scrollWidth - el.clientWidth,
    right: el.getBoundingClientRect().right - window.innerWidth,
    page: document.documentElement.scrollWidth - window.innerWidth,
  }));
  check(fit.hidden <= 0 && fit.right <= 0 && fit.page <= 0, `admin: the embed code does not fit a phone: ${JSON.stringify(fit)}`);

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
