// Browser end-to-end tests: a real `atende serve` (SQLite in a temp dir, demo tenant) and
// Debian's Chromium through playwright-core. Run from web/ after `make server`:
//   node e2e/run.mjs            (make test-e2e does both)
// Options: E2E_ONLY=<substring of a test name>; ATENDE_BIN=<binary>; CHROMIUM=<browser>.
// Prints one line per test and a closing "N passed, M failed"; exits non-zero on any
// failure; the server is always stopped. Screenshots: e2e/screenshots/<flow>/.
import { randomBytes } from 'node:crypto';
import { launchBrowser } from './lib/browser.mjs';
import { existsSync } from 'node:fs';
import { freePort, killAll, startServer } from './lib/server.mjs';
import { inboxFlow } from './flows/inbox.mjs';
import { responsiveFlow } from './flows/responsive.mjs';
import { chatFlow } from './flows/chat.mjs';
import { pdfFlow } from './flows/pdf.mjs';
import { adminFlow } from './flows/admin.mjs';
import { whatsappApiFlow, whatsappFlow } from './flows/whatsapp.mjs';
import { groupsFlow } from './flows/groups.mjs';
import { crossOriginFlow } from './flows/crossorigin.mjs';
import { sessionFlow } from './flows/session.mjs';
import { webchatLimitsFlow } from './flows/webchat-limits.mjs';
import { webchatTabsFlow } from './flows/webchat-tabs.mjs';
import { agendaFlow } from './flows/agenda.mjs';
import { bookingFlow } from './flows/booking.mjs';
import { catalogFlow } from './flows/catalog.mjs';
import { scheduledFlow } from './flows/scheduled.mjs';
import { superFlow } from './flows/super.mjs';
import { videoCallFlow } from './flows/videocall.mjs';
import { dashboardFlow } from './flows/dashboard.mjs';
import { internalChatFlow } from './flows/internalChat.mjs';
import { announcementsFlow, inviteFlow } from './flows/invite.mjs';
import { clientMapFlow, waitPanelFlow } from './flows/supervision.mjs';
import { timeZoneFlow } from './flows/timezone.mjs';
import { calendarFlow } from './flows/calendar.mjs';
import { messagingApiFlow } from './flows/messagingApi.mjs';
import { botsFlow } from './flows/bots.mjs';
import { bizflowFlow } from './flows/bizflow.mjs';
import { aiFlow } from './flows/ai.mjs';
import { broadcastFlow, campaignFlow } from './flows/campaigns.mjs';

// The whole run: a bound against a hang, not a speed check. The 57 flows take about
// 8 minutes on a quiet 2-core machine and passed 15 under load.
const budgetMs = Number(process.env.E2E_BUDGET_MS ?? 1_500_000);
const testTimeoutMs = Number(process.env.E2E_TEST_TIMEOUT_MS ?? 90_000);

const tests = [
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `inbox flow (${lng}): web chat → accept → reply → transfer → accept → resolve`, run: (ctx) => inboxFlow({ ...ctx, lng }) })),
  { name: 'session (pt-BR): no token in localStorage; a reload restores the session; logout holds across a reload', run: (ctx) => sessionFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'chat (pt-BR): contact drawer on demand and remembered, own message deleted, translation not configured, one toast per deleted ticket', run: (ctx) => chatFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'ticket PDF (pt-BR): the report downloaded from the chat header holds the messages (pdftotext, pdftoppm)', run: (ctx) => pdfFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'video call (pt-BR): header button → popout dials → the web chat customer opens the link from the widget → both talking with live video, signalled over the web chat socket → hold, unhold both ways, end', timeoutMs: 150_000, run: (ctx) => videoCallFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'responsive: 360 px hides the list once a ticket is open; desktop shows both', run: (ctx) => responsiveFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'admin flow (pt-BR): queue, tag, quick answer and user created, edited, deleted; live in a second browser; the new user signs in', run: (ctx) => adminFlow({ ...ctx, lng: 'pt-BR' }) },
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `agenda flow (${lng}): book from the calendar, find it there, drag the kanban card, conclude it`, run: (ctx) => agendaFlow({ ...ctx, lng }) })),
  // Each language toggles cells of its own future week (weeksAhead) on the shared server.
  ...['pt-BR', 'en', 'es'].map((lng, i) => ({
    name: `booking flow (${lng}): place and position in Recurso, grid cells toggled and saved, kept after a reload, a slot booked from the calendar leaves the free list`,
    run: (ctx) => bookingFlow({ ...ctx, lng, weeksAhead: i + 1 }),
  })),
  // The schedule is set about 18 s ahead, to the second.
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `scheduled flow (${lng}): schedule from the chat header, pending on /scheduledMessages, the customer gets it, sent live`, run: (ctx) => scheduledFlow({ ...ctx, lng }) })),
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `time zone flow (${lng}): the admin sets the tenant's zone, kept after a reload, default restored`, run: (ctx) => timeZoneFlow({ ...ctx, lng }) })),
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `internal chat (${lng}): two attendants chat, the unread badge shakes on the other and clears when read`, run: (ctx) => internalChatFlow({ ...ctx, lng }) })),
  { name: 'announcements popover (pt-BR): the admin publishes one with an image; another attendant sees it in the top bar popover', run: (ctx) => announcementsFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'ticket invitation (pt-BR): ana invites bruno from the chat header; the notice survives a reload; he accepts, the ticket opens, it is in his list and he answers the customer', run: (ctx) => inviteFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: "catalog (pt-BR): category and item with image created; '#' in the composer sends the item to a web chat customer", run: (ctx) => catalogFlow({ ...ctx, lng: 'pt-BR' }) },
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `super flow (${lng}): super creates a company with its admin, /Support shows the node healthy; the new admin sees an empty inbox`, run: (ctx) => superFlow({ ...ctx, lng }) })),
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `dashboard flow (${lng}): a ticket resolved in another browser shows on /tableaux live; CSV export`, run: (ctx) => dashboardFlow({ ...ctx, lng }) })),
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `wait panel (${lng}): ana's presence and a web chat customer's pending ticket arrive live; wall screen`, run: (ctx) => waitPanelFlow({ ...ctx, lng }) })),
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `client map (${lng}): a contact's location is a marker whose popup opens its ticket`, run: (ctx) => clientMapFlow({ ...ctx, lng }) })),
  { name: 'calendar link (pt-BR): made on /googlecalendar, fetched without a session as an iCalendar holding a booking, replaced and the old one refused', run: (ctx) => calendarFlow({ ...ctx, lng: 'pt-BR' }) },
  ...['pt-BR', 'en', 'es'].map((lng) => ({
    name: `bizflow (${lng}): a flow built by dragging nodes and saved, live in another supervisor's list; a web chat customer walks it`,
    run: (ctx) => bizflowFlow({ ...ctx, lng }),
  })),
  { name: 'broadcast flow (pt-BR): credits, two contacts picked, progress to the end live, the customer gets it, the bad number shows as error', run: (ctx) => broadcastFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'campaign flow (pt-BR): CSV preview with its bad line, a customer picked, started now, progress bar to the end', run: (ctx) => campaignFlow({ ...ctx, lng: 'pt-BR' }) },
  { name: 'cross-origin front-end: login, socket events, image by absolute URL, refresh; an unlisted origin is refused', run: (ctx) => crossOriginFlow(ctx) },
  { name: 'web chat limits: the widget solves the proof of work; a second new visitor of the address is told when its message goes', run: (ctx) => webchatLimitsFlow(ctx) },
  { name: "web chat tabs: a message typed in one tab shows in the visitor's tab that has no socket, once", run: (ctx) => webchatTabsFlow(ctx) },
  { name: 'whatsapp pairing through the API: QR code → fake scan → CONNECTED → wipe → new QR code', run: (ctx) => whatsappApiFlow(ctx) },
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `messaging API (${lng}): admin creates a token on /MessagingAPI; curl sends with it to a web chat customer, live in the chat, once; revoked is refused`, run: (ctx) => messagingApiFlow({ ...ctx, lng }) })),
  // The browser half needs the connections screen (web/src/features/connections).
  ...(existsSync(new URL('../src/features/connections', import.meta.url))
    ? [{ name: 'whatsapp flow (pt-BR): add a connection, QR dialog, the fake scans, card CONNECTED', run: (ctx) => whatsappFlow({ ...ctx, lng: 'pt-BR' }) }]
    : []),
  { name: 'groups flow (pt-BR): a WhatsApp connection paired with the fake; the Group modal creates 3 sequential groups, progress to 3/3 live with their names; /groupjoin hands out the first', run: (ctx) => groupsFlow({ ...ctx, lng: 'pt-BR' }) },
  // Last: the bot is the demo tenant's while the flow runs (it deletes it at the end).
  ...['pt-BR', 'en', 'es'].map((lng) => ({ name: `bots flow (${lng}): the admin builds a two-level reception menu on /Bots; a web chat customer answers it and lands in the chosen queue`, run: (ctx) => botsFlow({ ...ctx, lng }) })),
  // Last: it configures the demo tenant's AI, which the chat flow expects unset.
  { name: 'AI (pt-BR): /iaconfig saved and tested against the fake; ask-AI answer shown apart and sent on request; a received message translated', run: (ctx) => aiFlow({ ...ctx, lng: 'pt-BR' }) },
];

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}
const watchdog = setTimeout(() => {
  console.error(`e2e: over the ${budgetMs} ms budget, giving up`);
  console.log('0 passed, 1 failed');
  killAll();
  process.exit(1);
}, budgetMs);
watchdog.unref();

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, fail) => (timer = setTimeout(() => fail(new Error(`${what}: over ${ms} ms`)), ms))),
  ]);
}

const only = process.env.E2E_ONLY;
const selected = only ? tests.filter((t) => t.name.includes(only)) : tests;
const runId = randomBytes(3).toString('hex');
const started = Date.now();
let passed = 0;
let failed = 0;
let server;
let browser;
try {
  // WhatsApp connections talk to the in-process fake (nothing reaches WhatsApp).
  const whatsappFake = `127.0.0.1:${await freePort()}`;
  // AI answers come from the in-process fake OpenAI API (docs/ai.md).
  const aiFake = `127.0.0.1:${await freePort()}`;
  server = await startServer({ args: ['--whatsapp-fake', whatsappFake, '--ai-fake', aiFake] });
  server.whatsappFake = `http://${whatsappFake}`;
  server.aiFake = `http://${aiFake}`;
  console.log(`e2e: atende at ${server.base} (data ${server.dataDir}), web chat connection ${server.webchatConnectionId}`);
  browser = await launchBrowser();
  for (const test of selected) {
    const t0 = Date.now();
    let actors = [];
    try {
      await withTimeout(test.run({ browser, server, runId, onActors: (a) => (actors = a) }), test.timeoutMs ?? testTimeoutMs, test.name);
      passed += 1;
      console.log(`ok   ${test.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (err) {
      failed += 1;
      console.log(`FAIL ${test.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n     ${String(err?.stack ?? err).split('\n').join('\n     ')}`);
      for (const a of actors) {
        await a.page.screenshot({ path: new URL(`./screenshots/FAILED-${a.name.replace(/\W+/g, '-')}.png`, import.meta.url).pathname }).catch(() => {});
        if (a.problems.length) console.log(`     ${a.name} also saw:\n       ${a.problems.join('\n       ')}`);
      }
      console.log(`     server log (last lines):\n${server.tail(15).replace(/^/gm, '       ')}`);
    } finally {
      await Promise.all(actors.map((a) => a.close().catch(() => {})));
    }
  }
} catch (err) {
  failed += 1;
  console.log(`FAIL setup\n     ${String(err?.stack ?? err)}`);
} finally {
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
}
console.log(`e2e: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
