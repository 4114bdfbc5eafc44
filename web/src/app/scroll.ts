// The spec's infinite-scroll rule (section 9), shared by every paged list: the next
// page is asked for when the bottom is within 100 px.
export const nextPageThresholdPx = 100;

// nearBottom: the rule on a scroll element's three numbers.
export function nearBottom(el: Pick<HTMLElement, 'scrollHeight' | 'scrollTop' | 'clientHeight'>): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= nextPageThresholdPx;
}
