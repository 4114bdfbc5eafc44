// The ticket PDF report (issue 13.6): an attendant accepts a web chat ticket, answers,
// and downloads the report from the chat header. The downloaded file is read back with
// poppler: pdftotext must find both messages, accents intact, and pdftoppm must turn
// its first page into a picture (kept with the flow's screenshots).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { acceptNewCustomer, assertClean, check, demo, login, reply } from './steps.mjs';

export async function pdfFlow({ browser, server, lng, runId, onActors }) {
  const t = translator(lng);
  const base = server.base;
  const shot = screenshots(`pdf-${lng}`);
  const customerName = `Cliente PDF ${runId}`;
  const question = `Olá, qual é o preço do pão de queijo? ${runId}`;
  const answer = `Está R$ 5,00 — promoção até amanhã ${runId}`;

  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  const customer = await newActor(browser, { name: `customer/pdf`, lng });
  const actors = [admin, customer];
  onActors?.(actors);
  const page = admin.page;

  await login(admin, base, demo.admin);
  const id = await acceptNewCustomer(page, t, customer, base, server.webchatConnectionId, customerName, question);
  await reply(page, t, answer);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: t('chat.header.pdf'), exact: true }).click(),
  ]);
  check(download.suggestedFilename() === `ticket-${id}.pdf`, `downloaded as ${download.suggestedFilename()}`);
  const dir = mkdtempSync(join(tmpdir(), 'atende-pdf-'));
  const file = join(dir, 'report.pdf');
  await download.saveAs(file);
  check(readFileSync(file).subarray(0, 5).toString() === '%PDF-', 'the download is no PDF');

  const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).split(/\s+/).join(' ');
  for (const want of [question, answer, customerName]) {
    check(text.includes(want), `the PDF's text lacks ${JSON.stringify(want)}:\n${text}`);
  }
  // The first page as a picture: a real, non-trivial PNG.
  execFileSync('pdftoppm', ['-png', '-r', '80', '-f', '1', '-l', '1', '-singlefile', file, join(dir, 'page')]);
  const png = readFileSync(join(dir, 'page.png'));
  check(png.subarray(1, 4).toString() === 'PNG' && statSync(join(dir, 'page.png')).size > 5_000, 'pdftoppm made no picture of the report');
  await shot(page, 'report-downloaded');
  await assertClean(actors);
}
