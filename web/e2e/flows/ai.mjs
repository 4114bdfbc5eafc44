// AI assistance (docs/ai.md) against the server's in-process fake OpenAI API
// (--ai-fake): the admin points the tenant at it on /iaconfig and tests it; a web chat
// customer writes; the admin asks the AI from the composer and the answer shows apart
// (labelled, only for attendants); the customer does not get it until the admin sends
// it; then the customer's message is translated and the translation shows under it;
// last, an NLP intent is added on /NLPConfig and deleted.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { acceptNewCustomer, assertClean, check, customerSees, demo, gone, login, visible } from './steps.mjs';

export async function aiFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`ai-${lng}`);
  const customerName = `Cliente IA ${runId}`;
  const said = `meu pedido ${runId} atrasou`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/ai`, lng });
  const actors = [admin, customer];
  onActors?.(actors);
  const page = admin.page;
  await login(admin, base, demo.admin);

  // /iaconfig: save, then the test button.
  await page.goto(`${base}/iaconfig`);
  await page.getByLabel(t('ai.config.baseUrl'), { exact: true }).fill(`${server.aiFake}/v1`);
  await page.getByLabel(t('ai.config.model'), { exact: true }).fill('gpt-fake');
  await page.getByRole('button', { name: t('ai.config.save'), exact: true }).click();
  await visible(page.getByText(t('ai.config.saved'), { exact: true }));
  await visible(page.getByText(t('ai.config.configured'), { exact: true }));
  await page.getByRole('button', { name: t('ai.config.test'), exact: true }).click();
  await visible(page.getByText(t('ai.config.testOk'), { exact: true }));
  await shot(page, 'iaconfig');

  await page.goto(`${base}/tickets`);
  const id = await acceptNewCustomer(page, t, customer, base, server.webchatConnectionId, customerName, said);
  check(id > 0, 'ticket opened');

  // Ask the AI: the answer is a labelled bubble apart from the conversation.
  const ask = page.getByRole('button', { name: t('chat.composer.modeNames.askAI'), exact: true });
  await visible(ask);
  await page.waitForFunction((b) => !b.disabled, await ask.elementHandle());
  await ask.click();
  const input = page.getByRole('textbox', { name: t('chat.composer.input') });
  await input.fill(`o que respondo ${runId}?`);
  await input.press('Enter');
  // The fake answers "AI answer (<turns>): <the last turn>" (transport/ai/fakeai).
  const answerText = `Attendant's question: o que respondo ${runId}?`;
  const answer = page.locator('[data-testid^="message-"]').filter({ hasText: answerText });
  await visible(answer);
  await visible(answer.getByText(t('ai.message.label'), { exact: true }));
  await shot(page, 'ask-ai-answer');

  // Sent to the customer only on request.
  await answer.getByRole('button', { name: t('ai.message.send'), exact: true }).click();
  await customerSees(customer, answerText);

  // Translating the customer's message: shown under it, in every open chat.
  const received = page.locator('[data-testid^="message-"]').filter({ hasText: said }).first();
  await received.getByText(said, { exact: true }).hover();
  await received.getByRole('button', { name: t('chat.messages.translate'), exact: true }).click();
  const dialog = page.getByRole('dialog', { name: t('chat.translate.title') });
  await dialog.getByRole('button', { name: t('chat.composer.languages.es'), exact: true }).click();
  await visible(received.getByText(`[Spanish] ${said}`));
  await shot(page, 'translated');

  // /NLPConfig: an intent with its examples and queue is listed, then deleted after
  // the confirmation (left in place it would route the other flows' new tickets).
  const intentName = `Entrega ${runId}`;
  await page.goto(`${base}/NLPConfig`);
  await visible(page.getByRole('heading', { name: t('ai.intents.title'), exact: true }));
  await page.getByLabel(t('ai.intents.name'), { exact: true }).fill(intentName);
  await page.getByLabel(t('ai.intents.examples'), { exact: true }).fill(`meu pedido atrasou\nonde está minha entrega`);
  // The select's name holds its placeholder option's text too: not an exact match.
  await page.getByRole('combobox', { name: t('ai.intents.queue') }).selectOption({ label: demo.queues.support });
  await page.getByRole('button', { name: t('ai.intents.add'), exact: true }).click();
  const intent = page.locator('li').filter({ hasText: intentName });
  await visible(intent);
  check((await intent.textContent()).includes(demo.queues.support), 'the intent names its queue');
  await shot(page, 'intent');
  await intent.getByRole('button', { name: t('ai.intents.delete'), exact: true }).click();
  const confirm = page.getByRole('dialog', { name: t('ai.intents.delete') });
  await confirm.getByRole('button', { name: t('common.actions.confirm'), exact: true }).click();
  await gone(intent);

  await assertClean(actors);
  await Promise.all(actors.map((a) => a.close()));
}
