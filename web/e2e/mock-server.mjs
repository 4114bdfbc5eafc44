// A stand-in for the Go server's REST contract (spec section 7 shapes), serving the
// built app from dist/ on one port like the real binary. For screenshots and browser
// flows before the server exists; it keeps state in memory and speaks no socket.
// Usage: node e2e/mock-server.mjs [port]
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const port = Number(process.argv[2] ?? process.env.PORT ?? 8090);
const dist = new URL('../dist/', import.meta.url).pathname;
const minute = 60_000;
const now = Date.now();

const queues = [
  { id: 1, name: 'Vendas', color: '#1e88e5' },
  { id: 2, name: 'Suporte', color: '#8e24aa' },
];
const me = { id: 1, name: 'Ana Souza', email: 'ana@atende.dev', profile: 'admin', companyId: 1, queues };
const channels = ['whatsapp', 'waba', 'facebook', 'instagram', 'telegram', 'socket'];
const names = ['Maria Clara Dias', 'João Pedro', 'Loja Central', 'Carlos Alberto Nunes', 'Fernanda Lima', 'Rafael Costa', 'Beatriz', 'Paulo Henrique'];

const tickets = Array.from({ length: 90 }, (_, i) => {
  const id = i + 1;
  const status = i % 3 === 0 ? 'pending' : i % 3 === 1 ? 'open' : 'closed';
  const queue = i % 4 === 0 ? null : queues[i % 2];
  return {
    id,
    status,
    userId: status === 'pending' ? null : 1,
    user: status === 'pending' ? null : { id: 1, name: me.name },
    contactId: id,
    contact: {
      id,
      name: names[i % names.length],
      number: `55659999${String(1000 + i)}`,
      email: '',
      profilePicUrl: '',
      extraInfo: [
        { id: 1, name: 'CPF', value: '000.000.000-00' },
        { id: 2, name: 'location', value: '-15.6014, -56.0979' },
      ],
      salesOpps: [
        { id: 10 + id, name: 'Plano anual', value: 'R$ 1.200', stage: 'Proposta', closingStatus: null },
        { id: 20 + id, name: 'Upgrade', value: 'R$ 300', stage: 'Fechado', closingStatus: 1 },
      ],
      appraisalData: { totalsum: 5 + (i % 2), totalcount: 2 },
    },
    unreadMessages: i % 5 === 0 ? i % 7 : 0,
    queueId: queue?.id ?? null,
    queue,
    whatsappId: 1,
    channel: channels[i % channels.length],
    tags: [],
    lastMessage: i % 2 ? 'Olá, gostaria de saber o prazo de entrega' : 'Obrigado!',
    updatedAt: new Date(now - i * 1.5 * minute).toISOString(),
  };
});

function messagesOf(ticketId) {
  const out = [];
  for (let i = 0; i < 45; i++) {
    const fromMe = i % 3 === 0;
    out.push({
      id: ticketId * 1000 + i,
      ticketId,
      body: fromMe ? `Resposta ${i}: claro, posso ajudar.` : `Mensagem ${i} do cliente${i % 4 === 0 ? ' com um texto um pouco mais longo para quebrar a linha no balão da conversa' : ''}`,
      fromMe,
      ack: fromMe ? [0, 1, 3, 4][i % 4] : 0,
      mediaType: i === 40 ? 'whisper' : undefined,
      isDeleted: i === 42,
      quotedMsg: i === 43 ? { id: ticketId * 1000 + 41, fromMe: false, body: 'Mensagem 41 do cliente' } : null,
      createdAt: new Date(now - (45 - i) * 40 * minute).toISOString(),
    });
  }
  return out;
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', Date: new Date().toUTCString(), ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

async function readJson(req) {
  let data = '';
  for await (const chunk of req) data += chunk;
  try {
    return data ? JSON.parse(data) : {};
  } catch {
    return {};
  }
}

function authed(req) {
  return /^Bearer /.test(req.headers.authorization ?? '');
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };

async function serveApp(res, path) {
  const file = normalize(join(dist, path === '/' ? 'index.html' : path));
  try {
    if (!file.startsWith(dist)) throw new Error('outside');
    const body = await readFile(file);
    res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    const body = await readFile(join(dist, 'index.html'));
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(body);
  }
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  const p = url.pathname;
  const m = req.method;
  const wantsHtml = m === 'GET' && (req.headers.accept ?? '').includes('text/html');
  if (wantsHtml || p.startsWith('/assets/') || p === '/') return serveApp(res, wantsHtml ? '/' : p);

  if (m === 'POST' && p === '/auth/login') {
    const b = await readJson(req);
    if (b.email === me.email && b.password === 'atende') {
      return send(res, 200, { token: 'mock-token', user: me }, { 'Set-Cookie': 'jrt=mock; HttpOnly; Path=/auth' });
    }
    return send(res, 401, { error: 'ERR_INVALID_CREDENTIALS' });
  }
  if (m === 'POST' && p === '/auth/refresh_token') {
    return (req.headers.cookie ?? '').includes('jrt=') ? send(res, 200, { token: 'mock-token', user: me }) : send(res, 401, { error: 'ERR_SESSION_EXPIRED' });
  }
  if (m === 'DELETE' && p === '/auth/logout') return send(res, 204, undefined, { 'Set-Cookie': 'jrt=; Max-Age=0; Path=/auth' });
  if (!authed(req)) return send(res, 401, { error: 'ERR_SESSION_EXPIRED' });

  if (m === 'GET' && p === '/settings') return send(res, 200, [{ key: 'sideMenu', value: 'enabled' }]);
  if (m === 'GET' && p === '/tags/list') return send(res, 200, [{ id: 1, name: 'VIP', color: '#f9a825' }]);
  if (m === 'GET' && (p === '/users/list' || p === '/users/')) return send(res, 200, [{ id: 1, name: me.name }, { id: 2, name: 'Bruno' }]);
  if (m === 'GET' && p === '/queue') return send(res, 200, queues);
  if (m === 'GET' && p === '/whatsapp/') return send(res, 200, [{ id: 1, name: 'Comercial', status: 'CONNECTED', channel: 'whatsapp' }]);
  if (m === 'GET' && p === '/quickAnswers/') {
    const q = url.searchParams.get('searchParam') ?? '';
    return send(res, 200, { quickAnswers: [{ id: 1, shortcut: 'bd', message: 'Bom dia! Como posso ajudar?' }].filter((a) => a.shortcut.startsWith(q)) });
  }
  if (m === 'GET' && p === '/tickets') {
    const page = Number(url.searchParams.get('pageNumber') ?? 1);
    const status = url.searchParams.get('status');
    const unread = url.searchParams.get('withUnreadMessages') === 'true';
    const search = (url.searchParams.get('searchParam') ?? '').toLowerCase();
    let list = tickets.filter((t) => (!status || t.status === status) && (!unread || (t.unreadMessages > 0 && t.status !== 'closed')));
    if (search) list = list.filter((t) => t.contact.name.toLowerCase().includes(search) || t.lastMessage.toLowerCase().includes(search));
    const size = 20;
    return send(res, 200, { tickets: list.slice((page - 1) * size, page * size), count: list.length, hasMore: page * size < list.length });
  }
  let mm;
  if ((mm = /^\/tickets\/(\d+)$/.exec(p))) {
    const t = tickets.find((x) => x.id === Number(mm[1]));
    if (!t) return send(res, 404, { error: 'ERR_NO_TICKET_FOUND' });
    if (m === 'GET') return send(res, 200, t);
    if (m === 'PUT') {
      Object.assign(t, await readJson(req), { updatedAt: new Date().toISOString() });
      t.user = t.userId ? { id: t.userId, name: t.userId === 1 ? me.name : 'Bruno' } : null;
      return send(res, 200, t);
    }
    if (m === 'POST') return send(res, 200, [{ id: 1, createdAt: new Date(now - 90 * minute).toISOString(), oldusername: '', newusername: me.name, action: 'accept', oldqueuename: '', newqueuename: 'Vendas' }]);
    if (m === 'DELETE') {
      tickets.splice(tickets.indexOf(t), 1);
      return send(res, 204);
    }
  }
  if (m === 'GET' && (mm = /^\/messages\/(\d+)$/.exec(p))) {
    const all = messagesOf(Number(mm[1]));
    const page = Number(url.searchParams.get('pageNumber') ?? 1);
    const size = 20;
    const end = all.length - (page - 1) * size;
    const start = Math.max(0, end - size);
    return send(res, 200, { messages: all.slice(start, Math.max(0, end)), hasMore: start > 0 });
  }
  if (m === 'GET' && p === '/contacts') {
    const q = (url.searchParams.get('searchParam') ?? '').toLowerCase();
    const page = Number(url.searchParams.get('pageNumber') ?? 1);
    const all = tickets.map((t) => t.contact).filter((c) => !q || c.name.toLowerCase().includes(q));
    return send(res, 200, { contacts: all.slice((page - 1) * 30, page * 30), hasMore: page * 30 < all.length });
  }
  if (m === 'POST' && /^\/messages\//.test(p)) return send(res, 200, { id: Date.now() });
  if (m === 'PUT' && /^\/opportunity\//.test(p)) return send(res, 200, {});
  send(res, 404, { error: 'ERR_NOT_FOUND' });
});

server.listen(port, '127.0.0.1', () => console.log(`mock server on http://127.0.0.1:${port}`));
