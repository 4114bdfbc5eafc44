// The video call (issue 13.4 and 13.5): an attendant accepts a web chat ticket and
// starts a video call from the chat header. The popout (800×600) dials; the customer
// gets the link in the widget as an ordinary message and clicks it there, which
// opens the call page in its web chat mode: it signals over the web chat socket
// (/webchat/ws) as the visitor, and opens no Socket.IO connection. It rings, the
// customer answers, and both pages reach the call machine's talking state with a
// live remote video track (Chromium's fake camera). Then the attendant holds (both
// pages held) and unholds, the customer does the same, and the attendant hangs up
// (both ended).
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, customerSees, customerWrites, demo, login, openSubTab, rowByName, ticketIdOf, until, visible } from './steps.mjs';

// remoteLive: the page shows a remote video track that is live and has frames.
const remoteLive = (page) =>
  page.evaluate(() => {
    const v = document.querySelector('[data-testid="call-remote"]');
    const tracks = v?.srcObject?.getVideoTracks?.() ?? [];
    return tracks.length > 0 && tracks[0].readyState === 'live' && v.videoWidth > 0;
  });

const stateOf = (page) => page.getByTestId('call-page').getAttribute('data-state');

async function reaches(page, state, who) {
  await until(async () => (await stateOf(page)) === state, `${who} reaches ${state} (is ${await stateOf(page).catch(() => '?')})`, 30_000);
}

export async function videoCallFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`videocall-${lng}`);
  const customerName = `Cliente Vídeo ${runId}`;
  const question = `Posso mostrar o produto por vídeo? ${runId}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: 'customer/video', lng });
  const actors = [admin, customer];
  onActors?.(actors);
  const page = admin.page;

  await login(admin, base, demo.admin);
  await openSubTab(page, t, 'pending');
  await customerWrites(customer, base, server.webchatConnectionId, customerName, question);
  const row = rowByName(page, customerName);
  await visible(row);
  const id = await ticketIdOf(row);
  await row.getByRole('button', { name: t('tickets.actions.accept'), exact: true }).click();
  await page.waitForURL(new RegExp(`/tickets/${id}$`));

  // The popout: opened by the header button, dialing.
  const [popout] = await Promise.all([
    admin.context.waitForEvent('page'),
    page.getByRole('button', { name: t('chat.header.videoCall'), exact: true }).click(),
  ]);
  // (Its 800×600 size and the 500 ms closure check are unit-tested in launcher.test.ts:
  // Playwright gives every page of a context the context's viewport.)
  await popout.waitForURL(/\/video-call\//);
  await reaches(popout, 'dialing', 'the attendant');

  // The link reaches the customer in the widget, as a message of the ticket.
  const invite = t('call.invite.text');
  await customerSees(customer, invite);
  const message = customer.page.locator('.log .m:not(.c)').filter({ hasText: invite }).last();
  const text = await message.innerText();
  const link = /https?:\/\/\S+\/call\/\S+/.exec(text)?.[0];
  check(link, `no call link in the widget's message: ${text}`);
  // The widget shows the link as it was sent and opens it in the web chat mode.
  const anchor = message.locator('a.call');
  check((await anchor.innerText()) === link, `the widget's call link reads ${await anchor.innerText()}, want ${link}`);
  // Every connection the customer's pages open from here on.
  const socketIO = [];
  const websockets = [];
  customer.context.on('request', (r) => {
    if (r.url().includes('/socket.io/')) socketIO.push(r.url());
  });
  customer.context.on('page', (p) => p.on('websocket', (ws) => websockets.push(ws.url())));
  const [callPage] = await Promise.all([customer.context.waitForEvent('page'), anchor.click()]);
  await callPage.waitForURL(/\/call\/[^#]+#via=webchat&c=\d+&v=/);
  await reaches(callPage, 'ringing', 'the customer');
  await shot(callPage, 'customer-ringing');
  await callPage.getByRole('button', { name: t('call.actions.answer'), exact: true }).click();

  await reaches(callPage, 'talking', 'the customer');
  await reaches(popout, 'talking', 'the attendant');
  await until(() => remoteLive(popout), "the attendant sees the customer's video");
  await until(() => remoteLive(callPage), "the customer sees the attendant's video");
  await shot(popout, 'attendant-talking');
  await shot(callPage, 'customer-talking');

  // Hold on one side puts both on hold; unhold resumes both.
  await popout.getByRole('button', { name: t('call.actions.hold'), exact: true }).click();
  await reaches(popout, 'held', 'the attendant');
  await reaches(callPage, 'held', 'the customer');
  await visible(callPage.getByText(t('call.page.remoteHeld')));
  await shot(callPage, 'customer-held');
  await popout.getByRole('button', { name: t('call.actions.unhold'), exact: true }).click();
  await reaches(popout, 'talking', 'the attendant');
  await reaches(callPage, 'talking', 'the customer');
  await until(() => remoteLive(callPage), "the customer sees the attendant's video again");
  // The customer's hold travels the other way, over the web chat socket.
  await callPage.getByRole('button', { name: t('call.actions.hold'), exact: true }).click();
  await reaches(callPage, 'held', 'the customer');
  await reaches(popout, 'held', 'the attendant');
  await callPage.getByRole('button', { name: t('call.actions.unhold'), exact: true }).click();
  await reaches(callPage, 'talking', 'the customer');
  await reaches(popout, 'talking', 'the attendant');
  await until(() => remoteLive(popout), "the attendant sees the customer's video again");

  // Hang up: both ended, no error shown.
  await popout.getByRole('button', { name: t('call.actions.hangup'), exact: true }).click();
  await reaches(popout, 'ended', 'the attendant');
  await reaches(callPage, 'ended', 'the customer');
  await shot(popout, 'attendant-ended');
  await shot(callPage, 'customer-ended');

  // The customer's call page signalled over the web chat socket only.
  check(socketIO.length === 0, `the customer's pages opened Socket.IO connections: ${socketIO.join(', ')}`);
  check(
    websockets.some((u) => /\/webchat\/ws\?c=\d+&v=/.test(u)) && !websockets.some((u) => u.includes('/socket.io/')),
    `the call page's websockets: ${websockets.join(', ')}`,
  );
  await assertClean(actors);
}
