// Issue 16.1's cross-origin deployment, in a real browser: a front-end served from its
// own origin (a tiny static page on another port, as whaticket deploys its web client)
// logs in to an Atende started with CORS_ORIGINS naming it, receives socket events, sends
// an image and loads it from its absolute media URL (as an <img> and through an
// authorised fetch, as whaticket's ModalImageCors does), and refreshes its session with
// the cross-site cookie. A page on an origin that is not listed can do none of it.
//
// Origins: the API answers on http://127.0.0.1:<api> (its PUBLIC_URL), the front-ends on
// other ports of the same host: other origins of the same site, as app.example.com and
// api.example.com are. (A front-end on another site would need the browser to accept
// third-party cookies for the refresh; Playwright's contexts, like incognito windows,
// refuse them — docs/security.md.)
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { newActor } from '../lib/browser.mjs';
import { freePort, startServer } from '../lib/server.mjs';
import { assertClean, check, customerSees, customerWrites, demo, until } from './steps.mjs';

const here = new URL('../crossorigin/', import.meta.url);
const files = {
  '/': ['text/html; charset=utf-8', readFileSync(new URL('index.html', here))],
  '/client.js': ['text/javascript; charset=utf-8', readFileSync(new URL('client.js', here))],
  '/socket.io.min.js': ['text/javascript; charset=utf-8', readFileSync(new URL('../../node_modules/socket.io-client/dist/socket.io.min.js', import.meta.url))],
};

// serveFront serves the static front-end on a free 127.0.0.1 port.
async function serveFront() {
  const port = await freePort();
  const srv = createServer((req, res) => {
    const f = files[new URL(req.url, 'http://x').pathname];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': f[0], 'Cache-Control': 'no-store' }).end(f[1]);
  });
  await new Promise((ok) => srv.listen(port, '127.0.0.1', ok));
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => srv.close(ok)) };
}

export async function crossOriginFlow({ browser, runId, onActors }) {
  const listed = await serveFront();
  const unlisted = await serveFront();
  const apiPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  let server;
  try {
    server = await startServer({ port: apiPort, args: ['--cors-origins', listed.origin, '--public-url', api] });
    const front = await newActor(browser, { name: 'front-end', lng: 'en' });
    const stranger = await newActor(browser, { name: 'unlisted front-end', lng: 'en' });
    const customer = await newActor(browser, { name: 'customer', lng: 'pt-BR' });
    onActors?.([front, stranger, customer]);
    const xo = (fn, arg) => front.page.evaluate(fn, arg);

    await front.page.goto(`${listed.origin}/`);
    await xo((base) => window.xo.setAPI(base), api);
    const login = await xo(([e, p]) => window.xo.login(e, p), [demo.admin.email, demo.admin.password]);
    check(login.status === 200 && login.user?.id, `cross-origin login: ${JSON.stringify(login)}`);
    check(login.requestId, 'X-Request-Id is not exposed to the other origin');
    check((await xo(() => window.xo.connect())) === 'connected', 'socket from the listed origin did not connect');
    const joined = await xo(() => window.xo.join('joinTickets', 'pending'));
    check(joined?.ok === true, `joinTickets: ${JSON.stringify(joined)}`);

    // A web chat customer writes: the pending ticket reaches the other origin's socket.
    const name = `Cliente XO ${runId}`;
    await customerWrites(customer, server.base, server.webchatConnectionId, name, `olá ${runId}`);
    const ticket = await until(
      () => xo((n) => window.xo.events.find((e) => e.name === 'ticket' && e.data?.ticket?.contact?.name === n)?.data.ticket, name),
      'the ticket event on the cross-origin socket',
    );
    const accepted = await xo(([id, uid]) => window.xo.call('PUT', `/tickets/${id}`, { status: 'open', userId: uid }), [ticket.id, login.user.id]);
    check(accepted.status === 200, `accept: ${JSON.stringify(accepted)}`);
    const box = await xo((id) => window.xo.join('joinChatBox', id), ticket.id);
    check(box?.ok === true, `joinChatBox: ${JSON.stringify(box)}`);

    // An image sent from the other origin comes back with an absolute URL ending in .png.
    const sent = await xo((id) => window.xo.sendImage(id, 'foto'), ticket.id);
    check(sent.status === 201, `multipart send: ${JSON.stringify(sent)}`);
    const event = await until(
      () => xo(() => window.xo.events.find((e) => e.name === 'appMessage' && e.data?.action === 'create' && e.data.message?.mediaType === 'image')?.data.message),
      'the appMessage event with the image',
    );
    const url = event.mediaUrl;
    check(url.startsWith(`${api}/media/`) && url.endsWith('.png'), `media URL ${url}: not absolute or not ending in .png`);
    const shown = await xo((u) => window.xo.showImage(u), url);
    check(shown.width === 24 && shown.height === 16, `<img> of ${url}: ${JSON.stringify(shown)}`);
    const fetched = await xo((u) => window.xo.fetchImage(u), url);
    check(fetched.status === 200 && fetched.type === 'image/png', `authorised fetch of ${url}: ${JSON.stringify(fetched)}`);
    await customerSees(customer, 'foto');

    // The refresh cookie (SameSite=None; Secure) reaches the API from the other origin.
    const refreshed = await xo(() => window.xo.refresh());
    check(refreshed.status === 200, `cross-origin refresh: ${JSON.stringify(refreshed)}`);
    await assertClean([front]);

    // An origin that is not listed: the browser blocks login (the preflight is refused)
    // and the socket handshake answers 403.
    await stranger.page.goto(`${unlisted.origin}/`);
    const blocked = await stranger.page.evaluate(async ([base, e, p]) => {
      window.xo.setAPI(base);
      try {
        const r = await window.xo.login(e, p);
        return `answered ${r.status}`;
      } catch (err) {
        return `blocked: ${err}`;
      }
    }, [api, demo.admin.email, demo.admin.password]);
    check(blocked.startsWith('blocked'), `login from an unlisted origin was not blocked: ${blocked}`);
    const sock = await stranger.page.evaluate(() => window.xo.connect());
    check(sock.startsWith('connect_error'), `socket from an unlisted origin: ${sock}`);
  } finally {
    await server?.stop().catch(() => {});
    await listed.close();
    await unlisted.close();
  }
}
