// Issue 12 item 4's browser flow (pt-BR): a WhatsApp connection is paired with the
// fake WhatsApp (transport/channel/whatsapp/fakewa, as flows/whatsapp.mjs does), then
// the admin opens /Groups, fills the Group modal (name, root 001, two admins, 3
// groups, 10 participants each, a JPEG picture) and watches the batch reach 3/3 over
// the socket with the three names. The fake's control API confirms three groups with
// both admins promoted and the picture set; /groupjoin hands out the first group's
// invite link. Every screenshot is checked by axe (lib/browser.mjs). The modal's
// section-5 messages are tested in web/src/features/groups (an error shown to the
// user fails a flow's final check).
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { api, assertClean, check, demo, login, until, visible } from './steps.mjs';
import { scan } from './whatsapp.mjs';

// A 32×32 JPEG: WhatsApp's group pictures are JPEG.
const picture = Buffer.from('/9j/2wCEAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk8BDg4OExETJhUVJk81LTVPT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT//AABEIACAAIAMBIgACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AMWiiirPnAooooAKKKKACiiigD//2Q==', 'base64');

// pairedConnection creates a WhatsApp connection through the API and pairs it with
// the fake; it answers the connection's id.
async function pairedConnection(server, token, name) {
  const base = server.base;
  const created = await api(base, token, 'POST', '/whatsapp', { name, greetingMessage: 'Olá' });
  check(created.status === 201, `create connection: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id;
  let conn;
  await until(async () => {
    conn = (await api(base, token, 'GET', `/whatsapp/${id}`)).body;
    return conn?.status === 'qrcode' && conn.qrcode;
  }, 'a QR code on the connection');
  await scan(server, conn.qrcode);
  await until(async () => (await api(base, token, 'GET', `/whatsapp/${id}`)).body?.status === 'CONNECTED', 'CONNECTED');
  return id;
}

export async function groupsFlow({ browser, server, lng, runId, onActors }) {
  check(server.whatsappFake, 'server started without --whatsapp-fake');
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`groups-${lng}`);
  const auth = await api(base, null, 'POST', '/auth/login', demo.admin);
  check(auth.status === 200, `admin login: ${auth.status}`);
  const connName = `WhatsApp grupos ${runId}`;
  const connId = await pairedConnection(server, auth.body.token, connName);
  // Up to 21 characters: "<name> NNN" stays within WhatsApp's 25.
  const name = `Turma ${runId.slice(0, 8)}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  onActors?.([admin]);
  await login(admin, base, demo.admin);
  const page = admin.page;
  await page.goto(`${base}/Groups`);
  await visible(page.getByRole('heading', { name: t('groups.title'), exact: true }));
  await page.getByRole('button', { name: t('groups.new'), exact: true }).click();
  const form = page.getByRole('dialog', { name: t('groups.new') });
  await visible(form);
  await shot(page, 'modal');
  const field = (key) => form.getByRole('textbox', { name: t(key) });
  await field('groups.form.name').fill(name);
  await field('groups.form.root').fill('001');
  await field('groups.form.admin1').fill('5511988880001');
  await field('groups.form.admin2').fill('5511988880002');
  await field('groups.form.count').fill('3');
  await field('groups.form.maxParticipants').fill('10');
  await form.getByLabel(t('groups.form.picture'), { exact: true }).setInputFiles({ name: 'turma.jpg', mimeType: 'image/jpeg', buffer: picture });
  await form.getByRole('combobox', { name: t('groups.form.connection') }).selectOption(String(connId));
  const [created] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/groups' && r.request().method() === 'POST'),
    form.getByRole('button', { name: t('common.actions.save'), exact: true }).click(),
  ]);
  check(created.status() === 201, `create batch answered ${created.status()}: ${await created.text()}`);
  const batch = await created.json();
  const card = page.getByTestId(`batch-${batch.id}`);
  await visible(card);
  // The progress arrives over the socket, one group at a time, to 3/3.
  await until(async () => (await card.getAttribute('data-status')) === 'finished', 'the batch finished', 60_000);
  const count = await card.getByTestId('batch-count').textContent();
  check(count?.includes(t('groups.progress', { done: 3, total: 3 })), `progress reads ${count}`);
  for (const n of ['001', '002', '003']) {
    await visible(card.getByText(`${name} ${n}`, { exact: true }));
  }
  for (const seq of [0, 1, 2]) {
    check((await card.getByTestId(`group-${seq}`).getAttribute('data-status')) === 'created', `group ${seq} created`);
  }
  await shot(page, 'created');

  // The fake holds the three groups, each with both admins promoted and the picture.
  const res = await fetch(`${server.whatsappFake}/groups`);
  const groups = (await res.json()).filter((g) => g.subject.startsWith(name));
  check(groups.length === 3, `fake WhatsApp holds ${groups.length} groups of the batch`);
  for (const g of groups) {
    check(g.participants['5511988880001'] === true && g.participants['5511988880002'] === true && g.picture > 0, `group ${g.subject}: ${JSON.stringify(g)}`);
  }
  // /groupjoin sends a visitor to the first group with room.
  const join = await api(base, null, 'POST', `/groupjoin/${batch.token}`);
  const first = groups.find((g) => g.subject === `${name} 001`);
  check(join.status === 200 && join.body.inviteLink.endsWith(first.invite), `groupjoin: ${join.status} ${JSON.stringify(join.body)}`);
  await assertClean([admin]);
}
