/* Atende web chat widget: <script src="https://HOST/webchat/widget.js" data-connection="ID" async></script>
 * Optional data-lang (pt-BR|en|es), data-color, data-title. Protocol: transport/channel/webchat/doc.go. */
(function () {
  'use strict';
  var me = document.currentScript;
  if (!me || window.__atendeWebchat) return;
  window.__atendeWebchat = true;
  var conn = me.getAttribute('data-connection') || '';
  if (!/^[1-9][0-9]{0,17}$/.test(conn)) { console.error('atende webchat: data-connection is missing'); return; }
  var base = me.src.replace(/widget\.js(\?.*)?$/, '');
  var wsURL = base.replace(/^http/, 'ws') + 'ws?c=' + conn;
  var KEY = 'atende.webchat.' + conn;

  var T = {
    pt: { title: 'Fale conosco', open: 'Abrir chat', close: 'Fechar', placeholder: 'Escreva sua mensagem…', send: 'Enviar',
      intro: 'Olá! Como podemos te chamar?', name: 'Seu nome', email: 'Seu e-mail (opcional)', start: 'Começar',
      connecting: 'Conectando…', online: 'Online', offline: 'Sem conexão, tentando de novo…',
      unavailable: 'Atendimento indisponível no momento', sending: 'Enviando…', failed: 'Não enviada',
      tooMany: 'Muitas mensagens, aguarde um instante', tooLong: 'Mensagem longa demais', file: 'Arquivo',
      busy: 'Muitas conversas novas da sua rede. Enviaremos em {n} s.' },
    en: { title: 'Chat with us', open: 'Open chat', close: 'Close', placeholder: 'Type your message…', send: 'Send',
      intro: 'Hi! What should we call you?', name: 'Your name', email: 'Your email (optional)', start: 'Start',
      connecting: 'Connecting…', online: 'Online', offline: 'Offline, retrying…',
      unavailable: 'Chat unavailable right now', sending: 'Sending…', failed: 'Not sent',
      tooMany: 'Too many messages, please wait', tooLong: 'Message too long', file: 'File',
      busy: 'Too many new chats from your network. Sending in {n} s.' },
    es: { title: 'Habla con nosotros', open: 'Abrir chat', close: 'Cerrar', placeholder: 'Escribe tu mensaje…', send: 'Enviar',
      intro: '¡Hola! ¿Cómo te llamamos?', name: 'Tu nombre', email: 'Tu correo (opcional)', start: 'Empezar',
      connecting: 'Conectando…', online: 'En línea', offline: 'Sin conexión, reintentando…',
      unavailable: 'Atención no disponible en este momento', sending: 'Enviando…', failed: 'No enviado',
      tooMany: 'Demasiados mensajes, espera un momento', tooLong: 'Mensaje demasiado largo', file: 'Archivo',
      busy: 'Demasiados chats nuevos desde tu red. Enviaremos en {n} s.' }
  };
  var lang = (me.getAttribute('data-lang') || document.documentElement.lang || navigator.language || 'pt').toLowerCase();
  var t = T[lang.slice(0, 2)] || T.pt;
  var color = me.getAttribute('data-color') || '';
  if (!/^#[0-9a-f]{3,8}$/i.test(color)) color = '#2563eb';
  var MAX = 4096;

  // State kept across reloads: visitor token, name, e-mail, unacknowledged messages
  // and the last number given to a message (seq: 1, 2, 3… in the order typed, which
  // the server records them in; doc.go). Tabs share it: a number is taken from the
  // stored count, never below it, so two tabs never give out the same one.
  var mem = {};
  function load() { try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch (e) { return mem; } }
  function save() { st.seq = Math.max(st.seq, seqOf(load().seq)); try { localStorage.setItem(KEY, JSON.stringify(st)); } catch (e) { mem = st; } }
  function seqOf(n) { return typeof n === 'number' && n >= 1 && n <= 9007199254740991 && Math.floor(n) === n ? n : 0; }
  var st = load();
  if (!Array.isArray(st.pending)) st.pending = [];
  st.seq = seqOf(st.seq);
  st.pending.forEach(function (p) { if (!seqOf(p.seq)) p.seq = ++st.seq; }); // kept by an older widget

  // DOM, inside a shadow root so the host page's styles stay out.
  function el(tag, cls, text, parent, props) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    for (var k in props) e[k] = props[k];
    if (parent) parent.appendChild(e);
    return e;
  }
  var CSS =
    ':host{all:initial}*{box-sizing:border-box;font:14px/1.4 system-ui,sans-serif}.c{background:var(--c);color:#fff}' +
    '.fab{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;cursor:pointer;display:grid;place-items:center;box-shadow:0 4px 14px #0004;z-index:2147483000}' +
    '.badge{position:absolute;top:-2px;right:-2px;min-width:20px;border-radius:10px;background:#dc2626;font-size:12px;line-height:20px;padding:0 5px}' +
    '.panel{position:fixed;right:20px;bottom:88px;width:340px;max-width:calc(100vw - 40px);height:480px;max-height:calc(100vh - 110px);display:flex;flex-direction:column;background:#fff;color:#111;border-radius:12px;overflow:hidden;box-shadow:0 8px 30px #0005;z-index:2147483000}' +
    '[hidden]{display:none!important}header{padding:10px 12px;display:flex;align-items:center;gap:8px}header b{flex:1}header small{font-size:12px}' +
    '.x{background:none;border:0;color:#fff;font-size:20px;cursor:pointer}' +
    '.log{flex:1;overflow-y:auto;padding:10px;background:#f3f4f6;display:flex;flex-direction:column;gap:6px}' +
    '.m{max-width:80%;padding:6px 10px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;align-self:flex-start}' +
    '.m.c{align-self:flex-end;background:var(--c)}.m time{display:block;font-size:11px;opacity:.95;text-align:right}.m.pending{opacity:.6}' +
    '.m.failed{background:#fee2e2;color:#991b1b}.m img,.m video{max-width:100%;border-radius:6px;display:block}.m a{color:inherit}' +
    'form{display:flex;gap:6px;padding:8px;border-top:1px solid #e5e7eb}form.intro{flex-direction:column;border:0;padding:16px}' +
    'textarea,input{flex:1;border:1px solid #d1d5db;border-radius:8px;padding:8px;resize:none;color:#111;background:#fff}' +
    '.go{border:0;border-radius:8px;padding:0 14px;cursor:pointer;min-height:36px}.note{font-size:12px;color:#6b7280;text-align:center}';
  var host = el('div', '', '', document.body || document.documentElement);
  host.style.setProperty('--c', color);
  var root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
  el('style', '', CSS, root);
  var fab = el('button', 'fab c', '', root, { ariaLabel: t.open });
  fab.innerHTML = '<svg viewBox="0 0 24 24" width="28" height="28" fill="currentColor"><path d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z"/></svg>';
  var badge = el('span', 'badge', '', fab, { hidden: true });
  var title = me.getAttribute('data-title') || t.title;
  var panel = el('section', 'panel', '', root, { hidden: true, ariaLabel: title });
  panel.setAttribute('role', 'dialog');
  var head = el('header', 'c', '', panel);
  el('b', '', title, head);
  var stat = el('small', '', '', head);
  var x = el('button', 'x', '\u00D7', head, { ariaLabel: t.close });
  var intro = el('form', 'intro', '', panel);
  el('p', '', t.intro, intro);
  var nameIn = el('input', '', '', intro, { placeholder: t.name, maxLength: 50, autocomplete: 'name' });
  var mailIn = el('input', '', '', intro, { placeholder: t.email, type: 'email', maxLength: 254, autocomplete: 'email' });
  el('button', 'go c', t.start, intro);
  var log = el('div', 'log', '', panel);
  log.setAttribute('role', 'log');
  log.setAttribute('aria-live', 'polite');
  // A long conversation (a bot's menus) scrolls: keyboard users reach it with Tab.
  log.tabIndex = 0;
  var note = el('div', 'note', '', panel);
  var form = el('form', '', '', panel);
  var ta = el('textarea', '', '', form, { rows: 1, maxLength: MAX, placeholder: t.placeholder, ariaLabel: t.placeholder });
  el('button', 'go c', t.send, form);

  // Messages on screen, by wire id.
  var shown = {}, reported = {}, unread = 0;
  // Times are HH:mm on a 24-hour clock in the tenant's time zone (the welcome names it),
  // as the attendants see them, whatever the visitor's locale.
  var zone = '';
  function hhmm(at, tz) { var d = new Date(at); if (isNaN(d)) return ''; try { return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: tz || undefined }).format(d); } catch (e) { return ('0' + d.getHours()).slice(-2) + ':' + ('0' + d.getMinutes()).slice(-2); } }
  function fmt(at) { return hhmm(at, zone); }
  function link(u) { try { u = new URL(u, base); return /^https?:$/.test(u.protocol) ? u.href : ''; } catch (e) { return ''; } }
  function media(box, m) {
    var u = link(m.url || ''), k = m.type;
    if (u && k === 'image') el('img', '', '', box, { loading: 'lazy', alt: m.name || '', src: u });
    else if (u && (k === 'audio' || k === 'video')) el(k, '', '', box, { controls: true, preload: 'metadata', src: u });
    else if (u) el('a', '', m.name || t.file, box, { href: u, target: '_blank', rel: 'noopener noreferrer' });
    else el('em', '', m.name || t.file, box);
  }
  // A video call link of this server in an attendant's message opens the call page
  // in its web chat mode: the fragment (never sent in a request) names this
  // connection and visitor, so the page signals over the web chat socket
  // (docs/calls.md). Other text, and links elsewhere, stay plain text.
  var CALL = /https?:\/\/[^\s/]+\/call\/[A-Za-z0-9._-]+(?=\s|$)/g;
  function callHref(u) { return u + '#via=webchat&c=' + conn + '&v=' + encodeURIComponent(st.v || ''); }
  function text(box, body, fromMe) {
    var at = 0, m, origin = new URL(base).origin;
    CALL.lastIndex = 0;
    while (fromMe && (m = CALL.exec(body))) {
      try { if (new URL(m[0]).origin !== origin) continue; } catch (e) { continue; }
      box.appendChild(document.createTextNode(body.slice(at, m.index)));
      var a = el('a', 'call', m[0], box, { href: callHref(m[0]), target: '_blank', rel: 'noopener' });
      a.onclick = function () { this.href = callHref(this.textContent); }; // the visitor token of now
      at = m.index + m[0].length;
    }
    box.appendChild(document.createTextNode(body.slice(at)));
  }
  function add(m, state) {
    var box = shown[m.id];
    if (!box) {
      if (m.body === undefined && !m.media) return;
      box = shown[m.id] = el('div', m.fromMe ? 'm' : 'm c');
      box.fromMe = m.fromMe;
      box.at = Date.parse(m.at) || Date.now();
      if (m.media) media(box, m.media);
      if (m.body) text(box, m.body, m.fromMe);
      box.stamp = el('time', '', fmt(m.at), box);
      box.stamp.raw = m.at;
      var after = log.lastChild;
      while (after && after.at > box.at) after = after.previousSibling;
      log.insertBefore(box, after ? after.nextSibling : log.firstChild);
      log.scrollTop = log.scrollHeight;
    }
    box.classList.toggle('pending', state === 'pending');
    box.classList.toggle('failed', state === 'failed');
    box.title = state === 'pending' ? t.sending : state === 'failed' ? t.failed : '';
  }
  // The visitor's tabs show each other's messages: the tab whose message the server
  // acknowledged tells the others over a BroadcastChannel (tabs of one browser share
  // the visitor), wherever their sockets are. So the server need not publish every
  // visitor message to every node for tabs that may be there (doc.go, "Tabs").
  var tabs = null;
  try { if (typeof BroadcastChannel === 'function') tabs = new BroadcastChannel(KEY); } catch (e) { tabs = null; }
  if (tabs) tabs.onmessage = function (ev) {
    var m = ev.data;
    if (m && typeof m.id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(m.id) && typeof m.body === 'string' && m.body && m.body.length <= MAX &&
      typeof m.at === 'string') add({ id: m.id, body: m.body, at: m.at });
  };
  function status(s) { stat.textContent = s; }
  function flash(s, ms) { note.textContent = s; clearTimeout(flash.t); flash.t = setTimeout(function () { note.textContent = ''; }, ms || 4000); }
  function setBadge() { badge.hidden = !unread; badge.textContent = unread > 9 ? '9+' : String(unread); }

  // The socket.
  var ws = null, ready = false, backoff = 1000, retryT = 0, pingT = 0, pongWait = 0, idle = false, proving = false;
  function send(f) { if (ws && ready) ws.send(JSON.stringify(f)); }
  function connect() {
    clearTimeout(retryT);
    if (ws) return;
    idle = false;
    status(t.connecting);
    var s;
    try { s = new WebSocket(wsURL + (st.v ? '&v=' + encodeURIComponent(st.v) : '')); } catch (e) { later(backoff); return; }
    ws = s;
    s.onmessage = function (ev) { if (ws === s) frame(ev.data); };
    s.onclose = function (ev) { if (ws === s) closed(ev.code); };
    s.onopen = function () { pongWait = 0; pingT = setInterval(ping, 25000); };
  }
  function drop() { var s = ws; if (s) { ws = null; try { s.close(); } catch (e) { } } }
  function ping() {
    if (pongWait && Date.now() - pongWait > 20000) { drop(); closed(1006); return; }
    if (!pongWait) pongWait = Date.now();
    send({ type: 'ping' });
  }
  function later(ms) { clearTimeout(retryT); retryT = setTimeout(connect, ms + Math.random() * ms * 0.3); }
  function closed(code) {
    ws = null; ready = false; proving = false; clearInterval(pingT); answered(inflight);
    if (code === 4004) { status(t.unavailable); later(30000); return; }
    if (code === 4002) { idle = true; status(''); if (document.visibilityState === 'visible') later(500); return; }
    status(t.offline);
    if (code === 1008 || code === 1003 || code === 1007 || code === 1009 || code === 4009) { later(60000); return; }
    later(backoff);
    backoff = Math.min(backoff * 2, 30000);
  }
  function frame(data) {
    var f;
    try { f = JSON.parse(data); } catch (e) { return; }
    if (!f || typeof f !== 'object') return;
    pongWait = 0;
    if (f.type === 'welcome') {
      ready = true; backoff = 1000;
      st.v = f.visitor; save();
      if (typeof f.timeZone === 'string' && f.timeZone !== zone) {
        zone = f.timeZone;
        for (var k in shown) shown[k].stamp.textContent = fmt(shown[k].stamp.raw);
      }
      status(t.online);
      (f.history || []).forEach(function (m) { add(m); });
      st.pending.forEach(function (p) { add({ id: p.id, body: p.body, at: p.at }, 'pending'); });
      hello(); read();
      // Where this visitor's numbers resume: the oldest pending one, or the next.
      send({ type: 'resume', seq: st.pending.length ? st.pending[0].seq : st.seq + 1 });
      answered(inflight);
      if (f.challenge) prove(f.challenge); else pump();
    } else if (f.type === 'message') {
      add(f);
      if (f.fromMe) {
        if (panel.hidden || document.visibilityState !== 'visible') { unread++; setBadge(); }
        else read();
      }
    } else if (f.type === 'ack') {
      var mine = null;
      st.pending = st.pending.filter(function (p) { if (p.id === f.id) mine = p; return p.id !== f.id; }); save();
      add({ id: f.id });
      if (mine && tabs) tabs.postMessage({ id: mine.id, body: mine.body, at: mine.at });
      if (f.id === inflight) { refusals = 0; answered(f.id); pump(); }
    } else if (f.type === 'error') {
      failed(f);
    }
  }
  function failed(f) {
    var after = Math.min(Math.max(+f.retryAfter || 0, 0), 3600) * 1000;
    if (!f.id) {
      if (f.code === 'ERR_WAPP_NOT_INITIALIZED') status(t.unavailable);
      if (f.code === 'ERR_TOO_MANY_ATTEMPTS') { tokens = 0; hold(after || 1000); } // a ping or read over the socket's rate
      return;
    }
    if (f.id !== inflight) return; // about a frame already answered
    answered(f.id);
    if (f.code === 'ERR_TOO_MANY_ATTEMPTS' && f.limit === 'proof') return; // sent again once proven
    if (f.code === 'ERR_TOO_MANY_ATTEMPTS' && f.limit === 'newVisitor') {
      // No new conversations from this address for now: say so, resend when told.
      var wait = Math.min(Math.max(+f.retryAfter || 30, 1), 3600);
      flash(t.busy.replace('{n}', String(wait)), wait * 1000);
      hold(wait * 1000); pump();
      return;
    }
    if (f.code === 'ERR_OUT_OF_ORDER') { hold(Math.min(after || 1000, 30000)); pump(); return; } // an earlier one is still missing
    if (/^ERR_(TOO_MANY_ATTEMPTS|UNAVAILABLE|INTERNAL|WAPP_NOT_INITIALIZED)$/.test(f.code)) {
      // Over a rate, or the server could not record it now: wait as told, longer each time.
      refusals++;
      if (f.code === 'ERR_TOO_MANY_ATTEMPTS') { flash(t.tooMany); tokens = 0; }
      hold(Math.min(Math.max(after, f.code === 'ERR_TOO_MANY_ATTEMPTS' ? 1000 : 3000) * Math.pow(2, Math.min(refusals - 1, 5)), 30000));
      pump();
      return;
    }
    st.pending = st.pending.filter(function (p) { return p.id !== f.id; }); save();
    add({ id: f.id }, 'failed');
    flash(f.code === 'ERR_BODY_TOO_LARGE' ? t.tooLong : t.failed);
    pump();
  }
  // A new visitor's welcome may ask a proof of work (doc.go); messages wait for it.
  function prove(ch) {
    var s = ws, n = 0, enc = new TextEncoder();
    if (!window.crypto || !crypto.subtle) { status(t.unavailable); return; }
    proving = true;
    (function batch() {
      if (ws !== s) return;
      var start = n, work = [];
      for (; n < start + 512; n++) work.push(crypto.subtle.digest('SHA-256', enc.encode(ch.seed + ':' + n.toString(36))));
      Promise.all(work).then(function (sums) {
        for (var i = 0; i < sums.length; i++) {
          var b = new Uint8Array(sums[i]), z = 0, j = 0;
          while (j < 32 && !b[j]) { z += 8; j++; }
          if (j < 32) z += Math.clz32(b[j]) - 24;
          if (z < ch.bits) continue;
          if (ws === s) { proving = false; send({ type: 'proof', nonce: (start + i).toString(36) }); pump(); }
          return;
        }
        setTimeout(batch, 0);
      });
    })();
  }
  function hello() { if (st.name || st.email) send({ type: 'hello', name: st.name || '', email: st.email || '' }); }
  // Pending messages go one at a time, oldest first: the next once the previous one
  // was answered, and at most RATE a second (a token bucket). The server allows a
  // visitor 10 messages a second (burst 20) over all its tabs and a socket 20 frames
  // a second, so a queue that built up while offline drains in order, unrefused. A
  // refusal holds the queue as long as the server says (retryAfter), longer after
  // each one in a row; an answer lost with its socket is asked for again after
  // welcome, or after 30 s.
  var RATE = 4, BURST = 4, tokens = BURST, refill = Date.now(), inflight = null, inflightT = 0, pumpT = 0, holdUntil = 0, refusals = 0;
  function hold(ms) { holdUntil = Math.max(holdUntil, Date.now() + ms); }
  function answered(id) { if (id && id === inflight) { inflight = null; clearTimeout(inflightT); } }
  function pump() {
    clearTimeout(pumpT);
    if (!ready || proving || inflight || !st.pending.length) return;
    var now = Date.now();
    tokens = Math.min(BURST, tokens + Math.max(now - refill, 0) * RATE / 1000); refill = now;
    var wait = Math.max(holdUntil - now, tokens < 1 ? Math.ceil((1 - tokens) * 1000 / RATE) : 0);
    if (wait > 0) { pumpT = setTimeout(pump, wait); return; }
    tokens--;
    var p = st.pending[0];
    inflight = p.id;
    send({ type: 'message', id: p.id, body: p.body, seq: p.seq });
    inflightT = setTimeout(function () { if (inflight === p.id) { inflight = null; pump(); } }, 30000);
  }
  function read() {
    if (!ready || panel.hidden || document.visibilityState !== 'visible') return;
    var ids = [];
    for (var id in shown) if (shown[id].fromMe && !reported[id]) { reported[id] = 1; ids.push(id); }
    for (var i = 0; i < ids.length; i += 100) send({ type: 'read', ids: ids.slice(i, i + 100) });
    unread = 0; setBadge();
  }
  function newId() {
    var b = crypto.getRandomValues(new Uint8Array(12)), id = '';
    for (var i = 0; i < 12; i++) id += (b[i] + 256).toString(16).slice(1);
    return id;
  }

  // The visitor's actions.
  function toggle(show) {
    panel.hidden = !show;
    if (!show) return;
    intro.hidden = !!(st.name || st.intro);
    (intro.hidden ? ta : nameIn).focus();
    connect(); read();
    log.scrollTop = log.scrollHeight;
  }
  fab.onclick = function () { toggle(panel.hidden); };
  x.onclick = function () { toggle(false); };
  intro.onsubmit = function (e) {
    e.preventDefault();
    st.name = nameIn.value.trim().slice(0, 50);
    var mail = mailIn.value.trim();
    st.email = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(mail) ? mail.slice(0, 254) : '';
    st.intro = true; save();
    intro.hidden = true; ta.focus();
    hello();
  };
  form.onsubmit = function (e) {
    e.preventDefault();
    var body = ta.value.trim();
    if (!body) return;
    if (body.length > MAX) { flash(t.tooLong); return; }
    if (st.pending.length >= 50) { flash(t.tooMany); return; }
    st.seq = Math.max(st.seq, seqOf(load().seq)) + 1;
    var p = { id: newId(), body: body, at: new Date().toISOString(), seq: st.seq };
    st.pending.push(p); save();
    add({ id: p.id, body: body, at: p.at }, 'pending');
    ta.value = '';
    if (ready) pump(); else connect();
  };
  ta.onkeydown = function (e) { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); form.requestSubmit ? form.requestSubmit() : form.onsubmit(e); } };
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState !== 'visible') return;
    if (!ws && (idle || st.v || !panel.hidden)) connect();
    read();
  });
  // A returning visitor (a conversation exists) is connected at once, to see replies.
  if (st.v || st.pending.length) connect();
})();
