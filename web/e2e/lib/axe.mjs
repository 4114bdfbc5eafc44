// Accessibility check of the pages the flows visit: axe-core (pinned devDependency) is
// injected into the page and run with the WCAG 2 A and AA rules (tags wcag2a, wcag2aa,
// which include colour contrast). Each violation is reported with its rule, impact,
// the elements it found (CSS selectors) and axe's summary of what to fix.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const axeTags = ['wcag2a', 'wcag2aa'];

// Known findings in a third party's markup, each named by rule and element and waived
// only there. react-big-calendar 1.20 marks its day view's all-day row
// (.rbc-row-content, role=row) without cells and its all-day cell (.rbc-allday-cell,
// role=cell) outside a grid; the app cannot change those roles without patching the
// library. Everything else on the calendar page is still checked.
const waived = [
  { rule: 'aria-required-children', target: /^\.rbc-row-content$/ },
  { rule: 'aria-required-parent', target: /^\.rbc-allday-cell$/ },
];
const isWaived = (rule, node) => waived.some((w) => w.rule === rule && node.target.length === 1 && w.target.test(node.target[0]));

// axeViolations runs axe on page (its open shadow roots included) and answers one line
// per violated rule; empty when the page passes.
export async function axeViolations(page) {
  // Evaluated through the DevTools protocol, so the app's Content-Security-Policy (no
  // inline scripts) does not apply to it; once per document.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const result = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }),
    axeTags,
  );
  const violations = result.violations
    .map((v) => ({ ...v, nodes: v.nodes.filter((n) => !isWaived(v.id, n)) }))
    .filter((v) => v.nodes.length > 0);
  return violations.map((v) => {
    const nodes = v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, ' ').trim()})` : ''}`);
    const more = v.nodes.length > 4 ? ` … and ${v.nodes.length - 4} more` : '';
    return `${v.id} [${v.impact}] on ${v.nodes.length} element(s): ${nodes.join('; ')}${more}`;
  });
}

// defaultLinks answers the visible links drawn in the browser's default link colours
// (blue #0000ee, visited purple #551a8b): a link the app forgot to style. Links
// inside open shadow roots (the web chat widget) are looked at too.
export async function defaultLinks(page) {
  return page.evaluate(() => {
    const defaults = new Set(['rgb(0, 0, 238)', 'rgb(85, 26, 139)']);
    const out = [];
    const walk = (root) => {
      for (const a of root.querySelectorAll('a[href]')) {
        const r = a.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && defaults.has(getComputedStyle(a).color)) out.push(a.outerHTML.slice(0, 120));
      }
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return out;
  });
}

// assertAccessible fails with every violation of page, named after where it was taken.
export async function assertAccessible(page, where) {
  const found = [...(await axeViolations(page)), ...(await defaultLinks(page)).map((a) => `unstyled link (browser default colour): ${a}`)];
  if (found.length > 0) throw new Error(`axe (${axeTags.join(', ')}) at ${where}:\n  ${found.join('\n  ')}`);
}
