// Issue 14's Super section: the super logs in, creates a company with its first admin
// on /Super, sees it listed, checks /Support (this node healthy in the node list, the
// docs link opening the embedded documentation) and logs out; the new admin logs in and sees an empty inbox (nothing of the demo tenant).
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { axeViolations } from '../lib/axe.mjs';
import { assertClean, check, login, visible } from './steps.mjs';

export const superLogin = { email: 'super@atende.local', password: 'super123' };

export async function superFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`super-${lng}`);
  // Tenant data (not interface text): unique per run and language.
  const company = `Loja ${lng} ${runId}`;
  const admin = { email: `admin-${lng.toLowerCase()}-${runId}@loja.example`, password: `segredo-${runId}` };

  const op = await newActor(browser, { name: `super/${lng}`, lng });
  onActors?.([op]);
  await login(op, base, superLogin);

  await op.page.goto(`${base}/Super`);
  await visible(op.page.getByRole('heading', { name: t('tenants.title'), exact: true }));
  await op.page.getByRole('button', { name: t('tenants.add'), exact: true }).click();
  const dialog = op.page.getByRole('dialog', { name: t('tenants.form.title') });
  await visible(dialog);
  // Section 5's messages first: everything empty.
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(dialog.getByText(t('validation.required')).first());
  await shot(op.page, 'validation');
  await dialog.getByLabel(t('tenants.form.name')).fill(company);
  await dialog.getByLabel(t('tenants.form.adminName')).fill(`Admin ${runId}`);
  await dialog.getByLabel(t('tenants.form.email')).fill(admin.email);
  await dialog.getByLabel(t('tenants.form.password')).fill(admin.password);
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  const row = op.page.locator('[data-testid^="tenant-"]').filter({ hasText: company });
  await visible(row);
  const cells = await row.locator('td.num').allInnerTexts();
  check(cells[0] === '1' && cells[2] === '0', `${company}: counts ${cells}, expected one user and no tickets`);
  await shot(op.page, 'tenants');

  await op.page.goto(`${base}/Support`);
  await visible(op.page.getByRole('heading', { name: t('support.title'), exact: true }));
  await visible(op.page.getByTestId('support-ready'));
  const node = op.page.getByTestId('node-alive').filter({ hasText: t('support.self') });
  await visible(node);
  await shot(op.page, 'support');
  // The docs link opens the documentation the server embeds (no internet needed): an
  // index of real pages, one of which opens with its content; WCAG 2 AA like the app.
  const [docs] = await Promise.all([
    op.page.context().waitForEvent('page'),
    op.page.getByRole('link', { name: t('support.docsHint') }).click(),
  ]);
  await docs.waitForLoadState();
  check(new URL(docs.url()).pathname === '/docs/', `docs link opened ${docs.url()}`);
  await visible(docs.getByRole('heading', { name: 'Atende documentation', level: 1 }));
  await docs.getByRole('link', { name: /^Supervision: wait panel/ }).click();
  await visible(docs.getByRole('heading', { name: /^Supervision: wait panel/, level: 1 }));
  await visible(docs.getByRole('heading', { name: 'Client maps', level: 2 }));
  const docsA11y = await axeViolations(docs);
  check(docsA11y.length === 0, `docs page accessibility: ${docsA11y.join(' | ')}`);
  await shot(docs, 'docs');
  await docs.close();

  await op.page.getByRole('button', { name: t('layout.userMenu.label') }).click();
  await op.page.getByRole('button', { name: t('layout.userMenu.logout') }).click();
  await op.page.waitForURL(/\/login$/);

  // The new company's admin: an empty inbox.
  await login(op, base, admin);
  await visible(op.page.getByText(t('tickets.empty.title'), { exact: true }));
  await shot(op.page, 'new-admin-inbox');
  await assertClean([op]);
}
