// A web chat visitor's two tabs in a real browser. The second tab's socket never opens
// (its WebSocket is replaced before the widget loads), so a message typed in the first
// tab can reach it only through the widget's BroadcastChannel — as it reaches a tab
// whose socket is on another node of a cluster, where nodes no longer publish the
// visitor's messages to each other (transport/channel/webchat/doc.go, "Tabs").
import { customerWrites, check, visible } from './steps.mjs';
import { newActor } from '../lib/browser.mjs';

export async function webchatTabsFlow({ browser, server, runId, onActors }) {
  const visitor = await newActor(browser, { name: 'visitor with two tabs', lng: 'pt-BR' });
  onActors([visitor]);
  const base = server.base;
  const conn = server.webchatConnectionId;
  await customerWrites(visitor, base, conn, `Visitante Duas Abas ${runId}`, `primeira ${runId}`);

  // The same visitor (the token in localStorage) in a second tab, with no socket.
  const second = await visitor.context.newPage();
  await second.addInitScript(() => {
    window.WebSocket = function () {
      throw new Error('this tab has no socket');
    };
  });
  await second.goto(`${base}/webchat/demo?c=${conn}&lang=pt-BR`);
  await second.locator('button.fab').click();
  await visible(second.locator('form:not(.intro) textarea'));

  const text = `da primeira aba ${runId}`;
  const first = visitor.page;
  await first.locator('form:not(.intro) textarea').fill(text);
  await first.locator('form:not(.intro) textarea').press('Enter');
  await visible(first.locator('.log .m.c:not(.pending):not(.failed)').filter({ hasText: text }));
  const there = second.locator('.log .m.c').filter({ hasText: text });
  await visible(there);
  check((await there.count()) === 1, `the second tab shows the message ${await there.count()} times`);
  check(!(await there.getAttribute('class')).includes('pending'), 'the second tab shows the message as pending');
}
