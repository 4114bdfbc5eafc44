// The admin's reference-data flow, in one language: through the drawer the admin creates
// a queue (refused first without the greeting section 5 requires once queues exist), a
// tag (renamed, then deleted) and a quick answer (deleted), then a user in the new queue
// (refused first with a name too short); a second browser on the tags page sees the tag
// arrive, change and leave over the socket, without reloading; finally the new user
// signs in. The flow holds no interface text: every label comes from the locale files.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { check, demo, gone, login, until, visible } from './steps.mjs';

function drawerLink(page, t, section, key) {
  return page.getByRole('group', { name: t(`layout.sections.${section}`) }).getByRole('link', { name: t(`layout.menu.${key}`), exact: true });
}

async function openPage(page, t, section, key) {
  await drawerLink(page, t, section, key).click();
  await visible(page.getByRole('heading', { name: t(`${key}.title`), exact: true }));
}

// Field errors are shown on purpose here; anything else the user saw counts as a problem.
async function assertCleanExcept(actors, expected) {
  const issues = [];
  for (const a of actors) {
    issues.push(...a.problems);
    for (const text of await a.alerts()) if (!expected.includes(text)) issues.push(`${a.name}: error shown to the user: ${text}`);
  }
  check(issues.length === 0, issues.join('\n'));
}

export async function adminFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`admin-${lng}`);
  // Records (not interface text), unique per run.
  const queueName = `Fila ${runId}`;
  const tagName = `etiqueta-${runId}`;
  const tagRenamed = `etiqueta-${runId}-vip`;
  const shortcut = `qa${runId}`;
  const newUser = { name: `Novo ${runId}`, email: `novo-${runId}@atende.local`, password: `senha-${runId}` };

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const watcher = await newActor(browser, { name: `carla/${lng}`, lng });
  const actors = [admin, watcher];
  onActors?.(actors);
  await Promise.all([login(admin, base, demo.admin), login(watcher, base, demo.carla)]);
  const a = admin.page;
  const w = watcher.page;

  // The watcher (a supervisor) keeps the tags page open; a reload would wipe the marker.
  await openPage(w, t, 'supervision', 'tags');
  await w.evaluate(() => (window.__e2eNoReload = true));

  // Queue: the greeting is required once the tenant has queues (the demo has three).
  await openPage(a, t, 'supervision', 'queues');
  await a.getByRole('button', { name: t('queues.actions.add'), exact: true }).click();
  let dialog = a.getByRole('dialog', { name: t('queues.form.addTitle') });
  await visible(dialog);
  await dialog.getByLabel(t('queues.form.name'), { exact: true }).fill(queueName);
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(dialog.getByRole('alert').filter({ hasText: t('validation.required') }));
  await shot(a, 'queue-greeting-required');
  await dialog.getByLabel(t('queues.form.greetingMessage')).fill(`Olá! ${runId}`);
  // The survey on: the queue's rating question, filled with the default of the language.
  await dialog.getByRole('switch', { name: t('queues.form.nps') }).click();
  await dialog.getByRole('button', { name: t('queues.form.ratingQuestionUseDefault'), exact: true }).click();
  const question = dialog.getByRole('textbox', { name: t('queues.form.ratingQuestion') });
  check((await question.inputValue()) === t('queues.form.ratingQuestionDefault'), `rating question ${await question.inputValue()}`);
  await shot(a, 'queue-rating-question');
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(dialog);
  await visible(a.locator('[data-testid^="queue-"]').filter({ hasText: queueName }));
  await shot(a, 'queue-created');

  // Tag: created by the admin, seen live by the watcher; then renamed, live again.
  await openPage(a, t, 'supervision', 'tags');
  await a.getByRole('button', { name: t('tags.actions.add'), exact: true }).click();
  dialog = a.getByRole('dialog', { name: t('tags.form.addTitle') });
  await dialog.getByLabel(t('tags.form.name'), { exact: true }).fill(tagName);
  await dialog.getByRole('radio', { name: t('tags.form.pickColor', { color: '#d32f2f' }) }).click();
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(dialog);
  const adminTag = a.locator('[data-testid^="tag-"]').filter({ hasText: tagName });
  await visible(adminTag);
  const tagTestId = await adminTag.getAttribute('data-testid');
  await visible(w.getByTestId(tagTestId).filter({ hasText: tagName }));
  await shot(w, 'watcher-tag-arrived');
  await a.getByTestId(tagTestId).getByRole('button', { name: t('tags.actions.edit'), exact: true }).click();
  dialog = a.getByRole('dialog', { name: t('tags.form.editTitle') });
  await dialog.getByLabel(t('tags.form.name'), { exact: true }).fill(tagRenamed);
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(dialog);
  await visible(a.getByTestId(tagTestId).filter({ hasText: tagRenamed }));
  await visible(w.getByTestId(tagTestId).filter({ hasText: tagRenamed }));
  await shot(w, 'watcher-tag-renamed');
  // Deleted by the admin after confirmation: it leaves the watcher's list too.
  await a.getByTestId(tagTestId).getByRole('button', { name: t('tags.actions.delete'), exact: true }).click();
  dialog = a.getByRole('dialog', { name: t('tags.delete.title') });
  await dialog.getByRole('button', { name: t('common.actions.delete'), exact: true }).click();
  await gone(a.getByTestId(tagTestId));
  await gone(w.getByTestId(tagTestId));
  check(await w.evaluate(() => window.__e2eNoReload === true), 'watcher: the page reloaded to follow the tag');
  await shot(w, 'watcher-tag-deleted');

  // Quick answer: created, then deleted after confirmation.
  await openPage(a, t, 'operation', 'quickAnswers');
  await a.getByRole('button', { name: t('quickAnswers.actions.add'), exact: true }).click();
  dialog = a.getByRole('dialog', { name: t('quickAnswers.form.addTitle') });
  await dialog.getByLabel(t('quickAnswers.form.shortcut')).fill(`/${shortcut}`);
  await dialog.getByLabel(t('quickAnswers.form.message'), { exact: true }).fill(`Bom dia! ${runId}`);
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(dialog);
  const answer = a.locator('[data-testid^="quick-answer-"]').filter({ hasText: `/${shortcut}` });
  await visible(answer);
  await shot(a, 'quick-answer-created');
  await answer.getByRole('button', { name: t('quickAnswers.actions.delete'), exact: true }).click();
  dialog = a.getByRole('dialog', { name: t('quickAnswers.delete.title') });
  await dialog.getByRole('button', { name: t('common.actions.delete'), exact: true }).click();
  await gone(answer);
  await shot(a, 'quick-answer-deleted');

  // User: a name too short is refused with section 5's message; then created in the new
  // queue.
  await openPage(a, t, 'supervision', 'users');
  await a.getByRole('button', { name: t('users.actions.add'), exact: true }).click();
  dialog = a.getByRole('dialog', { name: t('users.form.addTitle') });
  await dialog.getByLabel(t('users.form.name')).fill('N');
  await dialog.getByLabel(t('users.form.password'), { exact: true }).fill(newUser.password);
  await dialog.getByLabel(t('users.form.email')).fill(newUser.email);
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await visible(dialog.getByRole('alert').filter({ hasText: t('validation.tooShort') }));
  await shot(a, 'user-name-too-short');
  await dialog.getByLabel(t('users.form.name')).fill(newUser.name);
  await dialog.getByRole('combobox', { name: t('users.form.profile') }).selectOption('user');
  await dialog.getByRole('checkbox', { name: queueName, exact: true }).check();
  await dialog.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await gone(dialog);
  await visible(a.locator('[data-testid^="user-"]').filter({ hasText: newUser.email }));
  await shot(a, 'user-created');

  // The new user signs in.
  const novo = await newActor(browser, { name: `novo/${lng}`, lng });
  actors.push(novo);
  onActors?.(actors);
  await login(novo, base, newUser);
  await shot(novo.page, 'new-user-signed-in');

  await until(async () => (await a.locator('[role="dialog"]').count()) === 0, 'no dialog left open');
  await assertCleanExcept(actors, [t('validation.required'), t('validation.tooShort')]);
  await Promise.all(actors.map((x) => x.close()));
}
