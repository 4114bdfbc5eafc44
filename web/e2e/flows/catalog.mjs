// Issue 14's catalog flow: the admin creates a category with a message template and an
// item of it (price typed in reais, a PNG uploaded as its image) on the /Categories and
// /catalog pages; a web chat customer writes; ana accepts, types '#' and part of the
// item's name in the composer, picks the item from the list, and the customer's widget
// shows the text the template rendered, with the price in BRL, and the image.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { acceptNewCustomer, assertClean, customerSees, demo, login, until, visible } from './steps.mjs';

// A 1×1 PNG: the upload must be an image by its content.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export async function catalogFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`catalog-${lng}`);
  // Catalog content (not interface text): unique per run.
  const categoryName = `Pizzas ${runId}`;
  const itemName = `Pizza ${runId}`;
  const customerName = `Cliente catálogo ${runId}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [admin, ana, customer];
  onActors?.(actors);
  await Promise.all([login(admin, base, demo.admin), login(ana, base, demo.ana)]);

  // The category, with a template.
  await admin.page.goto(`${base}/Categories`);
  await admin.page.getByRole('button', { name: t('catalog.category.add'), exact: true }).click();
  let dialog = admin.page.getByRole('dialog', { name: t('catalog.category.addTitle') });
  await visible(dialog);
  await dialog.getByLabel(t('catalog.category.name')).fill(categoryName);
  await dialog.getByLabel(t('catalog.category.template')).fill('{{itemName}}: {{baseValue}}');
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(admin.page.locator('[data-testid^="category-"]').filter({ hasText: categoryName }));
  await shot(admin.page, 'categories');

  // The item, with its image uploaded.
  await admin.page.goto(`${base}/catalog`);
  await admin.page.getByRole('button', { name: t('catalog.item.add'), exact: true }).click();
  dialog = admin.page.getByRole('dialog', { name: t('catalog.item.addTitle') });
  await visible(dialog);
  await dialog.getByLabel(t('catalog.item.itemName')).fill(itemName);
  await dialog.getByLabel(t('catalog.item.baseValue')).fill('45,90');
  // Options of a closed select are never "visible": wait for the categories to load.
  await until(async () => (await dialog.locator('option').filter({ hasText: categoryName }).count()) === 1, 'the category in the select');
  await dialog.getByLabel(t('catalog.item.category')).selectOption({ label: categoryName });
  await dialog.getByLabel(t('catalog.item.upload')).setInputFiles({ name: 'pizza.png', mimeType: 'image/png', buffer: png });
  await visible(dialog.locator('img[src*="/media/"]'));
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(admin.page.locator('[data-testid^="catalog-item-"]').filter({ hasText: itemName }).filter({ hasText: '45,90' }));
  await shot(admin.page, 'catalog');

  // The customer writes; ana accepts and sends the item with '#'.
  const id = await acceptNewCustomer(ana.page, t, customer, base, server.webchatConnectionId, customerName, `quero pizza ${runId}`);
  const input = ana.page.getByRole('textbox', { name: t('chat.composer.input') });
  await input.fill(`#${runId}`);
  const list = ana.page.getByRole('listbox', { name: t('catalog.composer.catalog') });
  await visible(list);
  await shot(ana.page, 'composer-catalog');
  await list.getByRole('option').filter({ hasText: itemName }).click();
  await visible(ana.page.locator('[data-testid^="message-"]').filter({ hasText: `${itemName}:` }));
  await customerSees(customer, `${itemName}:`);
  // The price in BRL in the caption, and the item's image attached to the same message.
  const got = customer.page.locator('.log .m:not(.c)').filter({ hasText: `${itemName}:` });
  await visible(got.filter({ hasText: '45,90' }));
  await until(async () => (await got.locator('img[src]').count()) === 1, "the item's image in the customer's widget");
  await shot(customer.page, 'customer-got-item');

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
