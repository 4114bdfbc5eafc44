// The internal chat between two attendants of the demo tenant, each in a browser of
// their own: Ana opens a chat with Bruno and writes; Bruno, on the ticket manager,
// sees the top bar's chat icon shake with an unread badge, opens the chat from the
// popover (the badge clears once he reads) and answers; Ana sees the answer live.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, demo, gone, login, until, visible } from './steps.mjs';

// A 1×1 PNG.
const onePixelPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export async function internalChatFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`internal-chat-${lng}`);
  const hello = `Oi Bruno ${runId} ${lng}`;
  const answer = `Pode deixar ${runId} ${lng}`;

  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  const bruno = await newActor(browser, { name: `bruno/${lng}`, lng });
  const actors = [ana, bruno];
  onActors?.(actors);
  await login(ana, base, demo.ana);
  await login(bruno, base, demo.bruno);

  // Ana starts a one-to-one chat with Bruno from /chats.
  const a = ana.page;
  await a.goto(`${base}/chats`);
  await visible(a.getByRole('heading', { name: t('internalChat.title'), exact: true }));
  await a.getByRole('button', { name: t('internalChat.actions.new'), exact: true }).click();
  const dialog = a.getByRole('dialog', { name: t('internalChat.form.newTitle') });
  await visible(dialog);
  await dialog.getByRole('checkbox', { name: 'Bruno Atendente' }).check();
  await shot(a, 'new-chat-dialog');
  await a.getByRole('button', { name: t('common.actions.save'), exact: true }).click();
  await a.waitForURL(/\/chats\/\d+$/);
  const chatId = Number(new URL(a.url()).pathname.split('/').pop());
  const composer = a.getByRole('textbox', { name: t('internalChat.composer.label'), exact: true });
  await composer.fill(hello);
  await composer.press('Enter');
  await visible(a.getByTestId(/^chat-message-/).filter({ hasText: hello }));

  // Bruno, on the ticket manager, gets the badge and the shaking icon.
  const b = bruno.page;
  const badge = b.getByTestId('chat-unread-badge');
  await visible(badge);
  check((await badge.textContent())?.trim() === '1', `bruno's badge reads ${await badge.textContent()}`);
  const shaking = b.getByTestId('chat-popover-button').locator('[data-attention="true"]');
  await visible(shaking);
  await shot(b, 'unread-badge');
  await b.getByTestId('chat-popover-button').click();
  const popover = b.getByRole('dialog', { name: t('internalChat.popover.title') });
  await visible(popover);
  await popover.getByRole('button').filter({ hasText: hello }).first().click();
  await b.waitForURL(new RegExp(`/chats/${chatId}$`));
  await visible(b.getByTestId(/^chat-message-/).filter({ hasText: hello }));
  // Reading clears the badge and the shaking.
  await gone(badge);
  await gone(shaking);
  await shot(b, 'chat-read');

  const reply = b.getByRole('textbox', { name: t('internalChat.composer.label'), exact: true });
  await reply.fill(answer);
  await b.getByRole('button', { name: t('internalChat.composer.send'), exact: true }).click();
  await visible(a.getByTestId(/^chat-message-/).filter({ hasText: answer }));
  // Ana sends a picture: Bruno sees it in the conversation.
  const picture = `foto-${runId}-${lng}.png`;
  await a.locator('input[type="file"]').setInputFiles({ name: picture, mimeType: 'image/png', buffer: Buffer.from(onePixelPng, 'base64') });
  await visible(b.locator(`img[alt="${picture}"]`));
  await shot(b, 'picture');
  // Ana had the chat open: the answer is read at once, no badge stays on her side.
  await until(async () => (await a.getByTestId('chat-unread-badge').count()) === 0, "ana's badge to clear");
  await shot(a, 'conversation');
  await assertClean(actors);
  for (const x of actors) await x.close();
}
