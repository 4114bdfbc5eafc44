// Starts a real `atende serve` for the browser suites: a free 127.0.0.1 port, a temporary
// data dir (SQLite), the demo tenant. Waits for /readyz; stop() always ends the process
// (SIGTERM, then SIGKILL after a grace period) and removes the data dir.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const defaultBinary = resolve(new URL('../../..', import.meta.url).pathname, 'bin/atende');

export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.unref();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

const running = new Set();

// killAll is for exit paths that cannot wait (process 'exit', signals).
export function killAll() {
  for (const srv of running) srv.killNow();
}

// startServer: opts.dataDir reuses a prepared folder (the benchmark seeds it first);
// opts.seedDemo defaults to true; opts.env adds environment variables; opts.args adds
// command-line arguments (e.g. --whatsapp-fake for the WhatsApp flow).
export async function startServer(opts = {}) {
  const bin = opts.binary ?? process.env.ATENDE_BIN ?? defaultBinary;
  if (!existsSync(bin)) throw new Error(`${bin} not found: run \`make server\` first`);
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'atende-e2e-'));
  // opts.port: a port chosen beforehand (a flow that must name the server's URL in its
  // own arguments, e.g. --public-url).
  const port = opts.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const logPath = join(dataDir, 'server.log');
  const log = createWriteStream(logPath);
  const args = ['serve', '--data-dir', dataDir, '--http-addr', `127.0.0.1:${port}`, '--log-format', 'json', '--log-level', opts.logLevel ?? 'info'];
  if (opts.seedDemo !== false) args.push('--seed-demo');
  if (opts.args) args.push(...opts.args);
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  // The seed's lines come first: keep the first 256 KiB of output in memory to read them.
  let head = '';
  const keep = (chunk) => {
    if (head.length < 262_144) head += chunk.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = null;
  const exit = new Promise((ok) =>
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      ok(exited);
    }),
  );

  const srv = {
    base,
    dataDir,
    logPath,
    get exited() {
      return exited;
    },
    killNow() {
      if (!exited) child.kill('SIGKILL');
      running.delete(srv);
    },
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exit;
        clearTimeout(timer);
      }
      running.delete(srv);
      log.end();
      if (ownDir && !opts.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    get head() {
      return head;
    },
    // The last lines of the server log, for failure reports.
    tail(n = 30) {
      try {
        return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
      } catch {
        return '';
      }
    },
  };
  running.add(srv);

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (exited) throw new Error(`atende exited before ready (${JSON.stringify(exited)}):\n${srv.tail()}`);
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await srv.stop();
      throw new Error(`atende not ready after ${opts.readyTimeoutMs ?? 30_000} ms:\n${srv.tail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  srv.webchatConnectionId = opts.seedDemo === false ? null : webchatConnectionId(srv);
  return srv;
}

// The demo's web chat connection: from the seed's log line, else from SQLite through the
// sqlite3 command when there is one, else 1 (the demo's first connection).
function webchatConnectionId(srv) {
  for (const line of srv.head.split('\n')) {
    if (!line.includes('web chat connection')) continue;
    try {
      const rec = JSON.parse(line);
      if (rec.conn_id) return Number(rec.conn_id);
    } catch {
      // not a JSON line
    }
  }
  const q = spawnSync('sqlite3', [join(srv.dataDir, 'atende.db'), "SELECT id FROM connections WHERE channel='socket' ORDER BY id LIMIT 1"], { encoding: 'utf8' });
  const id = Number(q.stdout?.trim());
  return Number.isInteger(id) && id > 0 ? id : 1;
}
