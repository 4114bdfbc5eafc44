// Issue 15's Bizflow flow: the admin builds a small flow on /BizFlow by dragging nodes
// from the palette onto the canvas and connecting their exits (start → message →
// wait → branch "sim" → end "Combinado!"; else and timeout → end), makes it start
// on the web chat connection and saves it; then a web chat customer walks it. The
// flow is deleted at the end, so the later flows' customers get the greeting again.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertAccessible } from '../lib/axe.mjs';
import { assertClean, check, customerSees, customerWrites, demo, login, toastShown, until, visible } from './steps.mjs';

export async function bizflowFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`bizflow-${lng}`);
  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/${lng}`, lng });
  // A second supervisor's browser on the list: the saved flow arrives there live.
  const watcher = await newActor(browser, { name: `watcher/${lng}`, lng });
  const actors = [admin, customer, watcher];
  onActors?.(actors);
  await Promise.all([login(admin, base, demo.admin), login(watcher, base, demo.admin)]);
  await watcher.page.goto(`${base}/BizFlow`);
  await visible(watcher.page.getByRole('heading', { name: t('bizflow.title') }));
  const watched = watcher.page.locator('[data-testid^="flow-"]').filter({ hasText: `Fluxo ${runId}` });
  const page = admin.page;
  await page.goto(`${base}/BizFlow`);
  await visible(page.getByRole('heading', { name: t('bizflow.title') }));
  await assertAccessible(page, '/BizFlow list');
  await page.getByTestId('flow-new').click();
  await page.getByTestId('flow-name').fill(`Fluxo ${runId}`);

  const canvas = page.getByTestId('flow-canvas');
  await visible(page.getByTestId('flow-node-start-1'));
  const box = await canvas.boundingBox();
  check(box, 'the canvas has no box');
  const drop = async (kind, fx, fy) => {
    await page.getByTestId(`palette-${kind}`).dragTo(canvas, { targetPosition: { x: box.width * fx, y: box.height * fy } });
  };
  await drop('message', 0.1, 0.08);
  await drop('wait', 0.4, 0.08);
  await drop('branch', 0.7, 0.08);
  await drop('end', 0.7, 0.75);
  for (const id of ['message-1', 'wait-1', 'branch-1', 'end-2']) await visible(page.getByTestId(`flow-node-${id}`));

  // Fields, in the side panel of the selected node.
  const panel = page.getByTestId('flow-panel');
  const select = async (id) => {
    await page.getByTestId(`flow-node-${id}`).click();
  };
  await select('message-1');
  await panel.getByLabel(t('bizflow.fields.text')).fill(`Olá ${runId}! Quer continuar?`);
  await select('branch-1');
  await panel.getByLabel(`${t('bizflow.fields.value')} (r1)`).fill('sim');
  await select('end-2');
  await panel.getByLabel(t('bizflow.fields.endText')).fill(`Combinado ${runId}!`);

  // Exits to entries: a press on the exit's handle, a release on the node's entry.
  const connect = async (from, handle, to) => {
    const src = page.locator(`[data-testid="flow-exit-${from}-${handle}"] .react-flow__handle`);
    const dst = page.locator(`.react-flow__node[data-id="${to}"] .react-flow__handle.target`);
    const a = await src.boundingBox();
    const b = await dst.boundingBox();
    check(a && b, `no handle box for ${from}.${handle} → ${to}`);
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
    await page.mouse.up();
  };
  await connect('start-1', 'out', 'message-1');
  await connect('message-1', 'out', 'wait-1');
  await connect('wait-1', 'reply', 'branch-1');
  await connect('wait-1', 'timeout', 'end-1');
  await connect('branch-1', 'r1', 'end-2');
  await connect('branch-1', 'else', 'end-1');
  await until(async () => (await page.locator('.react-flow__edge').count()) === 6, 'six edges on the canvas');

  // It starts on the web chat connection.
  // (Every connection of the demo tenant: the flow is deleted at the end.)
  await page.getByRole('button', { name: t('bizflow.connections') }).click();
  const choices = page.getByRole('dialog', { name: t('bizflow.connections') }).getByRole('checkbox');
  await until(async () => (await choices.count()) > 0, 'the connections to choose from');
  for (const box of await choices.all()) await box.check();
  await page.keyboard.press('Escape');
  await shot(page, 'editor');
  await page.getByTestId('flow-save').click();
  await toastShown(page, t('bizflow.saved'));
  check((await page.getByTestId('flow-errors').count()) === 0, 'the saved flow shows errors');
  await visible(watched);
  await assertAccessible(page, '/BizFlow editor');

  try {
    // The customer walks it.
    await customerWrites(customer, base, server.webchatConnectionId, `Cliente fluxo ${runId}`, `oi ${runId}`);
    await customerSees(customer, `Olá ${runId}! Quer continuar?`);
    const box2 = customer.page.locator('form:not(.intro) textarea');
    await box2.fill('Sim, quero');
    await box2.press('Enter');
    await customerSees(customer, `Combinado ${runId}!`);
    await shot(customer.page, 'customer-walked');
  } finally {
    // Leave the connection as the other flows expect it.
    await page.getByRole('button', { name: t('bizflow.back') }).click();
    const row = page.locator('[data-testid^="flow-"]').filter({ hasText: `Fluxo ${runId}` });
    await row.getByRole('button', { name: t('bizflow.delete') }).click();
    await page.getByRole('dialog').getByRole('button', { name: t('bizflow.delete') }).click();
    await until(async () => (await row.count()) === 0, 'the flow deleted');
    await until(async () => (await watched.count()) === 0, "the flow gone from the other supervisor's list");
  }
  await assertClean(actors);
}
