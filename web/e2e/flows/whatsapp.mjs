// WhatsApp pairing against the fake WhatsApp (`atende serve --whatsapp-fake HOST:PORT`,
// transport/channel/whatsapp/fakewa): nothing reaches the internet. The real adapter,
// whatsmeow's QR channel and device store, the connection actor, the REST API and the
// socket all run; only WhatsApp's servers and the customer's phone are the fake, whose
// control API "scans" a QR code (POST /scan).
//
// whatsappApiFlow drives the server side through the REST API (no browser).
// whatsappFlow is what the admin does: on /connections add a WhatsApp connection, see
// the QR dialog with a code ([data-testid=qr-code]), the fake scans it, the dialog
// closes and the card's status ([data-testid=connection-status-<id>]) reads CONNECTED.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { api, check, demo, gone, login, until, visible } from './steps.mjs';

async function adminToken(base) {
  const r = await api(base, null, 'POST', '/auth/login', demo.admin);
  check(r.status === 200 && r.body?.token, `admin login: ${r.status}`);
  return r.body.token;
}

// scan plays the phone: the fake pairs the client showing code.
export async function scan(server, code) {
  const res = await fetch(`${server.whatsappFake}/scan`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
  const text = await res.text();
  check(res.ok, `fake WhatsApp refused the scan: ${res.status} ${text}`);
  return JSON.parse(text);
}

export async function whatsappApiFlow({ browser, server, runId, onActors }) {
  check(server.whatsappFake, 'server started without --whatsapp-fake');
  const base = server.base;
  const token = await adminToken(base);
  const created = await api(base, token, 'POST', '/whatsapp', { name: `WhatsApp API ${runId}`, greetingMessage: 'Olá' });
  check(created.status === 201 && created.body?.channel === 'whatsapp', `create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id;
  let conn;
  await until(async () => {
    conn = (await api(base, token, 'GET', `/whatsapp/${id}`)).body;
    return conn?.status === 'qrcode' && conn.qrcode;
  }, 'a QR code on the connection');
  const paired = await scan(server, conn.qrcode);
  await until(async () => {
    conn = (await api(base, token, 'GET', `/whatsapp/${id}`)).body;
    return conn?.status === 'CONNECTED';
  }, 'CONNECTED');
  check(conn.number === paired.number, `connected number ${conn.number}, paired ${paired.number}`);
  // Wiping the credentials forgets the device: the next session asks for a new QR code.
  const wiped = await api(base, token, 'DELETE', `/whatsappcreds/${id}`);
  check(wiped.status < 300, `wipe: ${wiped.status}`);
  const renewed = await api(base, token, 'POST', `/whatsappsession/${id}`);
  check(renewed.status < 300, `renew: ${renewed.status}`);
  await until(async () => {
    conn = (await api(base, token, 'GET', `/whatsapp/${id}`)).body;
    return conn?.status === 'qrcode' && conn.qrcode;
  }, 'a new QR code after the wipe');
  // For people to look at: the card of the wiped connection, waiting for a new scan.
  const admin = await newActor(browser, { name: 'admin/api', lng: 'pt-BR' });
  onActors?.([admin]);
  await login(admin, base, demo.admin);
  await admin.page.goto(`${base}/connections`);
  await visible(admin.page.getByTestId(`connection-status-${id}`));
  await screenshots('whatsapp-api')(admin.page, 'qrcode-after-wipe');
}

export async function whatsappFlow({ browser, server, lng, runId, onActors }) {
  check(server.whatsappFake, 'server started without --whatsapp-fake');
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`whatsapp-${lng}`);
  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  onActors?.([admin]);
  await login(admin, base, demo.admin);
  const page = admin.page;
  await page.goto(`${base}/connections`);
  await visible(page.getByRole('heading', { name: t('connections.title'), exact: true }));
  await page.getByRole('button', { name: t('connections.actions.addWhatsapp'), exact: true }).click();
  const form = page.getByRole('dialog', { name: t('connections.form.addTitle') });
  await visible(form);
  await form.getByLabel(t('connections.form.name'), { exact: true }).fill(`WhatsApp ${runId}`);
  await form.getByLabel(t('connections.form.greetingMessage'), { exact: true }).fill('Olá');
  const [created] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/whatsapp' && r.request().method() === 'POST'),
    form.getByRole('button', { name: t('common.actions.save'), exact: true }).click(),
  ]);
  check(created.status() === 201, `create answered ${created.status()}`);
  const id = (await created.json()).id;
  const card = page.getByTestId(`connection-card-${id}`);
  const status = page.getByTestId(`connection-status-${id}`);
  await visible(status);
  // The card offers "read QR code" once the session shows one; the dialog renders it.
  const token = await adminToken(base);
  try {
    await until(async () => (await status.getAttribute('data-status')) === 'qrcode', 'qrcode on the card');
  } catch (err) {
    const held = (await api(base, token, 'GET', `/whatsapp/${id}`)).body;
    throw new Error(`${err.message}; the card shows ${await status.getAttribute('data-status')}, the server holds ${held?.status}`);
  }
  await card.getByRole('button', { name: t('connections.actions.qrcode'), exact: true }).click();
  const qr = page.getByTestId('qr-code');
  await visible(qr);
  await shot(page, 'qr');
  // The fake scans the very code the dialog shows, which is the server's.
  const code = await qr.getAttribute('data-value');
  const conn = (await api(base, token, 'GET', `/whatsapp/${id}`)).body;
  check(code && code === conn.qrcode, `the dialog shows ${code}, the server holds ${conn.qrcode}`);
  const paired = await scan(server, code);
  // Over the socket: the dialog closes itself and the card turns CONNECTED with the number.
  await gone(page.getByTestId('qr-dialog'));
  await until(async () => (await status.getAttribute('data-status')) === 'CONNECTED', 'CONNECTED on the card');
  await visible(card.getByText(paired.number));
  await shot(page, 'connected');
}
