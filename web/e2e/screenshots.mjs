// Screenshots of the main screens at phone and desktop widths, through Debian's
// Chromium and playwright-core, against e2e/mock-server.mjs.
// Usage: npm run build && node e2e/screenshots.mjs   (writes e2e/screenshots/*.png)
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const port = 8091;
const base = `http://127.0.0.1:${port}`;
const out = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });

const server = spawn(process.execPath, [new URL('./mock-server.mjs', import.meta.url).pathname, String(port)], { stdio: 'inherit' });
const deadline = Date.now() + 10_000;
for (;;) {
  try {
    await fetch(base + '/');
    break;
  } catch {
    if (Date.now() > deadline) throw new Error('mock server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  for (const [name, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 360, height: 740 }],
  ]) {
    const page = await browser.newPage({ viewport });
    page.on('pageerror', (e) => console.error(`[${name}] page error:`, e.message));
    await page.goto(base + '/login');
    await page.getByLabel('E-mail').fill('ana@atende.dev');
    await page.getByLabel('Senha', { exact: true }).fill('atende');
    await page.screenshot({ path: `${out}${name}-login.png` });
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL('**/tickets');
    await page.getByTestId('ticket-row-2').waitFor();
    await page.screenshot({ path: `${out}${name}-tickets.png` });
    await page.getByRole('tab', { name: /Aguardando/ }).click();
    await page.getByTestId('ticket-row-1').waitFor();
    await page.screenshot({ path: `${out}${name}-pending.png` });
    await page.getByRole('tab', { name: /Atendendo/ }).click();
    await page.getByTestId('ticket-row-2').click();
    await page.waitForURL('**/tickets/2');
    await page.getByTestId('message-2044').waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${out}${name}-chat.png` });
    await page.goto(base + '/contacts');
    await page.getByTestId('contact-1').waitFor();
    await page.screenshot({ path: `${out}${name}-contacts.png` });
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
console.log('screenshots in', out);
