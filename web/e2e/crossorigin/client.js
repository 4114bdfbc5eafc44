// The browser half of the cross-origin flow (../flows/crossorigin.mjs): a client on its
// own origin that talks to the API on another origin the way whaticket's web client
// does — fetch with credentials and a bearer token, socket.io with transports
// ['websocket'] and the token in the query, images fetched through the API client.
// The flow drives it through window.xo from Playwright.
(() => {
  const events = [];
  let api = '';
  let token = '';
  let socket = null;

  async function call(method, path, body, extra = {}) {
    const headers = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    let payload;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(api + path, { method, headers, body: payload, credentials: 'include', ...extra });
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, body: json, requestId: res.headers.get('X-Request-Id') };
  }

  // A small PNG drawn on a canvas (no file on disk needed).
  function png() {
    const c = document.createElement('canvas');
    c.width = 24;
    c.height = 16;
    const g = c.getContext('2d');
    g.fillStyle = '#1f6f5c';
    g.fillRect(0, 0, 24, 16);
    return new Promise((ok) => c.toBlob(ok, 'image/png'));
  }

  window.xo = {
    events,
    setAPI(base) {
      api = base;
    },
    async login(email, password) {
      const r = await call('POST', '/auth/login', { email, password });
      if (r.status === 200) token = r.body.token;
      return { status: r.status, user: r.body?.user ?? null, error: r.body?.error ?? null, requestId: r.requestId };
    },
    async refresh() {
      const r = await call('POST', '/auth/refresh_token');
      if (r.status === 200) token = r.body.token;
      return { status: r.status, error: r.body?.error ?? null };
    },
    call,
    // connect opens the socket; it resolves 'connected' or the connect_error message.
    connect() {
      return new Promise((ok) => {
        socket = io(api, { transports: ['websocket'], query: { token }, reconnection: false });
        socket.on('connect', () => ok('connected'));
        socket.on('connect_error', (err) => ok(`connect_error: ${err.message}`));
        for (const name of ['ticket', 'appMessage', 'contact']) socket.on(name, (data) => events.push({ name, data }));
      });
    },
    join(event, arg) {
      return new Promise((ok) => socket.emit(event, arg, (ack) => ok(ack)));
    },
    async sendImage(ticketId, caption) {
      const form = new FormData();
      form.append('medias', await png(), 'pixel.png');
      form.append('body', caption);
      return call('POST', `/messages/${ticketId}`, form);
    },
    // showImage loads url in an <img> and answers its natural size (0 when it failed).
    showImage(url) {
      const img = document.getElementById('media');
      return new Promise((ok) => {
        img.onload = () => ok({ width: img.naturalWidth, height: img.naturalHeight });
        img.onerror = () => ok({ width: 0, height: 0 });
        img.src = url;
      });
    },
    // fetchImage reads url as whaticket's ModalImageCors does: through the API client
    // (credentials and the Authorization header, so the browser sends a preflight).
    async fetchImage(url) {
      try {
        const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, credentials: 'include' });
        const blob = await res.blob();
        return { status: res.status, type: blob.type, size: blob.size };
      } catch (e) {
        return { status: 0, error: String(e) };
      }
    },
  };
})();
