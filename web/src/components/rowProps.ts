// Props equality for rows of react-window lists. react-window hands every row a new
// `style` and `ariaAttributes` object whenever the list re-renders (its row props
// changed: a ticket moved, a page arrived), so React.memo's identity check re-renders
// every visible row each time. Rows compare those two by value instead; with 100
// ticket updates per second this is what keeps scrolling smooth (BENCHMARKS B8).

export function shallowEqual(a: object | undefined, b: object | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

interface RowLike {
  style?: object;
  ariaAttributes?: object;
}

export function sameRowProps<P extends RowLike>(prev: P, next: P): boolean {
  const { style: ps, ariaAttributes: pa, ...pr } = prev;
  const { style: ns, ariaAttributes: na, ...nr } = next;
  return shallowEqual(ps, ns) && shallowEqual(pa, na) && shallowEqual(pr, nr);
}
