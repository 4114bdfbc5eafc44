// The calendar subscription, in one language: Ana books a consultation through the API
// (a record, not interface text), opens /googlecalendar from the drawer, makes a link
// (shown once), and the link, fetched as a calendar application would (no session),
// is an iCalendar holding the booking. A new link revokes the old one at once (404).
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { api, assertClean, check, demo, login, until, visible } from './steps.mjs';

export async function calendarFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`calendar-${lng}`);

  const auth = await api(base, null, 'POST', '/auth/login', demo.ana);
  check(auth.status === 200 && auth.body?.token, `ana api login: ${auth.status}`);
  const title = `Consulta ${runId} ${lng}`;
  const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const booked = await api(base, auth.body.token, 'POST', '/agenda/bookings', { description: title, bookingName: title, date: day, time: '10:00' });
  check(booked.status === 201, `POST /agenda/bookings: ${booked.status} ${JSON.stringify(booked.body)}`);

  const ana = await newActor(browser, { name: `ana/${lng}`, lng });
  onActors?.([ana]);
  await login(ana, base, demo.ana);
  const a = ana.page;
  await a.getByRole('link', { name: t('layout.menu.googleCalendar') }).first().click();
  await a.waitForURL(/\/googlecalendar$/);
  await visible(a.getByRole('heading', { name: t('calendarFeed.title'), exact: true }));

  const urlField = a.getByTestId('calendar-feed-url');
  await a.getByRole('button', { name: t('calendarFeed.generate') }).or(a.getByRole('button', { name: t('calendarFeed.regenerate') })).click();
  await visible(urlField);
  const first = await urlField.inputValue();
  check(/\/ical\/[A-Za-z0-9_-]{20,}\.ics$/.test(first), `link ${first}`);
  await shot(a, 'link');

  const feedPath = (url) => new URL(url).pathname;
  const feed = await fetch(`${base}${feedPath(first)}`);
  const ics = await feed.text();
  check(feed.status === 200 && (feed.headers.get('content-type') ?? '').startsWith('text/calendar'), `feed answered ${feed.status} ${feed.headers.get('content-type')}`);
  check(ics.startsWith('BEGIN:VCALENDAR') && ics.includes(`SUMMARY:${title}`), `the feed lacks the booking:\n${ics.slice(0, 2000)}`);

  await a.getByRole('button', { name: t('calendarFeed.regenerate') }).click();
  await until(async () => (await urlField.inputValue()) !== first, 'a new link replaces the old');
  const old = await fetch(`${base}${feedPath(first)}`);
  check(old.status === 404, `the replaced link answered ${old.status}`);
  const fresh = await fetch(`${base}${feedPath(await urlField.inputValue())}`);
  check(fresh.status === 200, `the new link answered ${fresh.status}`);

  await assertClean([ana]);
  await ana.close();
}
