// Issue 15's reception menu: the admin builds a two-level bot on /Bots — "1" routes to
// Atendimento, "2" opens a submenu whose "1" routes to Suporte — then a web chat
// customer answers the menus (a wrong answer first, which repeats the menu) and the
// ticket lands in Suporte, with Suporte's greeting. The bot is the demo tenant's, so the
// flow deletes it at the end: the other flows' customers must not meet it.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, customerSees, demo, login, openSubTab, rowByName, until, visible } from './steps.mjs';

export async function botsFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`bots-${lng}`);
  // Menu texts are content, not interface text: unique per run.
  const tag = `${runId}-${lng}`;
  const general = `Atendimento geral ${tag}`;
  const more = `Mais opções ${tag}`;
  const tech = `Suporte técnico ${tag}`;
  const customerName = `Cliente menu ${tag}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  const actors = [admin, customer];
  onActors?.(actors);
  await login(admin, base, demo.admin);
  const page = admin.page;

  const addOption = async (button, { description, type, queue, heading }) => {
    await button.click();
    const dialog = page.getByRole('dialog', { name: t('bots.form.addTitle') });
    await visible(dialog);
    await dialog.locator('input[name="descriptionBot"]').fill(description);
    await dialog.locator('select[name="commandType"]').selectOption(type);
    if (queue) {
      await until(async () => (await dialog.locator('option').filter({ hasText: queue }).count()) === 1, 'the queues in the select');
      await dialog.locator('select[name="queueId"]').selectOption({ label: queue });
    }
    if (heading) await dialog.locator('textarea[name="showMessage"]').fill(heading);
    await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await visible(page.locator('[data-testid^="bot-"]').filter({ hasText: description }).first());
  };

  try {
    await page.goto(`${base}/Bots`);
    await visible(page.getByRole('heading', { name: t('bots.title') }));
    const add = page.getByRole('button', { name: t('bots.actions.add'), exact: true });
    await addOption(add, { description: general, type: 'queue', queue: 'Atendimento' });
    await addOption(add, { description: more, type: 'menu', heading: `Escolha ${runId}:` });
    await addOption(page.getByRole('button', { name: t('bots.actions.addChild', { name: more }) }), {
      description: tech,
      type: 'queue',
      queue: demo.queues.support,
    });
    const moreNode = page.locator('[data-testid^="bot-"]').filter({ hasText: more }).first();
    await visible(moreNode.locator('[data-testid^="bot-"]').filter({ hasText: tech }));
    await shot(page, 'tree');

    // The customer walks the menu.
    await page.goto(`${base}/tickets`);
    await openSubTab(page, t, 'pending');
    await customer.page.goto(`${base}/webchat/demo?c=${server.webchatConnectionId}&lang=${encodeURIComponent(lng)}`);
    await customer.page.locator('button.fab').click();
    await customer.page.locator('form.intro input').first().fill(customerName);
    await customer.page.locator('form.intro button').click();
    const say = async (text) => {
      const box = customer.page.locator('form:not(.intro) textarea');
      await box.fill(text);
      await box.press('Enter');
      await visible(customer.page.locator('.log .m.c:not(.pending):not(.failed)').filter({ hasText: text }).last());
    };
    const bot = () => customer.page.locator('.log .m:not(.c)');
    await say(`Olá ${runId}`);
    await customerSees(customer, `1 - ${general}`);
    await customerSees(customer, `2 - ${more}`);
    await say('7');
    await until(async () => (await bot().filter({ hasText: `2 - ${more}` }).count()) === 2, 'the menu again after a wrong answer');
    await say('2');
    await customerSees(customer, `1 - ${tech}`);
    await customerSees(customer, `Escolha ${runId}:`);
    await say('1');
    await customerSees(customer, 'Você está no Suporte técnico');
    await shot(customer.page, 'customer-walked');

    // The ticket sits in Suporte, still pending for an attendant.
    const row = rowByName(page, customerName);
    await visible(row);
    await visible(row.getByLabel(demo.queues.support, { exact: true }));
    await shot(page, 'ticket-in-queue');
  } finally {
    // Remove the menu (its submenu goes with it), whatever happened above.
    await page.goto(`${base}/Bots`);
    for (const name of [general, more]) {
      // The tree loads after the page: wait for the option, if it was made at all.
      const made = await page
        .locator('[data-testid^="bot-"]')
        .filter({ hasText: name })
        .first()
        .waitFor({ timeout: 5_000 })
        .then(() => true, () => false);
      if (!made) continue;
      const del = page.getByRole('button', { name: t('bots.actions.delete', { name }) });
      await del.click();
      const confirm = page.getByRole('dialog', { name: t('bots.delete.title') });
      await confirm.getByRole('button', { name: t('common.actions.delete'), exact: true }).click();
      await page.locator('[data-testid^="bot-"]').filter({ hasText: name }).first().waitFor({ state: 'detached' });
    }
  }
  // Gone: the flows after this one meet no menu.
  await visible(page.getByText(t('bots.empty')));
  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
