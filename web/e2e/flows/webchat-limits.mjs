// Web chat limits in a real browser, on a server of its own started with a proof of work
// and a new-visitor limit of one per address: the widget of a new visitor solves the
// proof before its first message, which is taken; a second new visitor from the same
// address is refused, and its widget tells it, in its language, when the message will be
// sent, keeping the message pending.
import { readFileSync } from 'node:fs';
import { newActor } from '../lib/browser.mjs';
import { startServer } from '../lib/server.mjs';
import { check, customerWrites, until, visible } from './steps.mjs';

// The widget's own "busy" text per language, as widget.js holds it (pt, en, es).
function busyText(lng) {
  const src = readFileSync(new URL('../../../transport/channel/webchat/assets/widget.js', import.meta.url), 'utf8');
  const texts = [...src.matchAll(/busy: '([^']*)'/g)].map((m) => m[1]);
  check(texts.length === 3, `widget.js has ${texts.length} busy texts, want 3`);
  return texts[{ pt: 0, en: 1, es: 2 }[lng.slice(0, 2)]];
}

// frames records what a page's widget socket sent and received.
function frames(page) {
  const seen = { sent: [], received: [] };
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/webchat/ws')) return;
    ws.on('framesent', (f) => seen.sent.push(String(f.payload)));
    ws.on('framereceived', (f) => seen.received.push(String(f.payload)));
  });
  return seen;
}

export async function webchatLimitsFlow({ browser, onActors }) {
  const server = await startServer({
    args: ['--webchat-proof-of-work-bits', '12', '--webchat-new-visitor-burst', '1', '--webchat-new-visitors-per-minute', '1'],
  });
  try {
    const first = await newActor(browser, { name: 'first visitor', lng: 'pt-BR' });
    const second = await newActor(browser, { name: 'second visitor', lng: 'es' });
    onActors([first, second]);
    const firstFrames = frames(first.page);
    const secondFrames = frames(second.page);

    // The proof is asked and solved before the first message, which the server acks.
    await customerWrites(first, server.base, server.webchatConnectionId, 'Primeira Visitante', 'Olá, preciso de ajuda');
    check(firstFrames.received.some((f) => f.includes('"challenge"')), 'the welcome of a new visitor carried no challenge');
    const proofAt = firstFrames.sent.findIndex((f) => f.includes('"type":"proof"'));
    const messageAt = firstFrames.sent.findIndex((f) => f.includes('"type":"message"'));
    check(proofAt >= 0 && proofAt < messageAt, `the widget sent its message (frame ${messageAt}) before the proof (frame ${proofAt})`);

    // A second new visitor from the same address: refused, told when, message kept.
    const { page } = second;
    await page.goto(`${server.base}/webchat/demo?c=${server.webchatConnectionId}&lang=es`);
    await page.locator('button.fab').click();
    await page.locator('form.intro input').first().fill('Segunda Visitante');
    await page.locator('form.intro button').click();
    await page.locator('form:not(.intro) textarea').fill('Hola, ¿hay alguien?');
    await page.locator('form:not(.intro) textarea').press('Enter');
    const [before, after] = busyText('es').split('{n}');
    const note = await until(async () => {
      const text = (await page.locator('.note').textContent()) ?? '';
      return text.startsWith(before) && text.endsWith(after) && /^\d+$/.test(text.slice(before.length, text.length - after.length)) && text;
    }, 'the new-visitor notice in Spanish');
    check(secondFrames.sent.some((f) => f.includes('"type":"proof"')), 'the second visitor sent no proof');
    check(secondFrames.received.some((f) => f.includes('"limit":"newVisitor"')), 'no new-visitor refusal reached the widget');
    await visible(page.locator('.log .m.c.pending').filter({ hasText: 'Hola, ¿hay alguien?' }));
    console.log(`     second visitor told: ${note}`);
  } finally {
    await server.stop();
  }
}
