import { fireEvent, screen, waitFor } from '@testing-library/react';
import { renderWithProviders } from '../../test/render';
import { ticketStore } from '../../machines/ticketStore';
import { TicketList, type TicketListProps } from './TicketList';
import type { ID } from '../../api/types';

const rowHeight = 82; // theme.layout.ticketRowHeight

function seed(n: number, from = 5000): ID[] {
  const ids: ID[] = [];
  for (let i = 0; i < n; i++) {
    const id = from + i;
    ticketStore.upsert({
      id,
      status: 'open',
      contactId: id,
      contact: { id, name: `Contato ${i}`, number: '5565999990000', email: '' },
      unreadMessages: 0,
      updatedAt: new Date().toISOString(),
    });
    ids.push(id);
  }
  return ids;
}

function renderList(over: Partial<TicketListProps> & { ids: ID[] }) {
  const onNextPage = vi.fn();
  renderWithProviders(
    <div style={{ height: 600 }}>
      <TicketList
        hasMore
        loading={false}
        loadingMore={false}
        selectedId={null}
        label="Atendimentos"
        rowStatus="open"
        onOpen={vi.fn()}
        onAccept={vi.fn()}
        onSpy={vi.fn()}
        onTransfer={vi.fn()}
        onNextPage={onNextPage}
        {...over}
      />
    </div>,
  );
  return { onNextPage, list: screen.getByLabelText('Atendimentos') };
}

// jsdom has no layout: give the list element the numbers a browser would.
function layout(el: HTMLElement, scrollHeight: number, clientHeight: number) {
  Object.defineProperty(el, 'scrollHeight', { configurable: true, value: scrollHeight });
  Object.defineProperty(el, 'clientHeight', { configurable: true, value: clientHeight });
}

function scrollTo(el: HTMLElement, top: number) {
  el.scrollTop = top;
  fireEvent.scroll(el);
}

describe('TicketList infinite scroll', () => {
  afterEach(() => vi.restoreAllMocks());

  it('asks for the next page only once the bottom is within 100 px', async () => {
    const ids = seed(50);
    const { onNextPage, list } = renderList({ ids });
    const total = ids.length * rowHeight; // 4100
    layout(list, total, 600);
    scrollTo(list, 1000);
    scrollTo(list, total - 600 - 101);
    expect(onNextPage).not.toHaveBeenCalled();
    scrollTo(list, total - 600 - 100);
    expect(onNextPage).toHaveBeenCalled();
  });

  it('does not ask while a page is loading', () => {
    const ids = seed(50);
    const loading = renderList({ ids, loadingMore: true });
    layout(loading.list, ids.length * rowHeight + rowHeight, 600);
    scrollTo(loading.list, ids.length * rowHeight + rowHeight - 600);
    expect(loading.onNextPage).not.toHaveBeenCalled();
  });

  it('does not ask when there is no more', () => {
    const ids = seed(50);
    const done = renderList({ ids, hasMore: false });
    layout(done.list, ids.length * rowHeight, 600);
    scrollTo(done.list, ids.length * rowHeight - 600);
    expect(done.onNextPage).not.toHaveBeenCalled();
  });

  it('asks at once when the rows do not fill the viewport', async () => {
    vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(3 * rowHeight);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
    const { onNextPage } = renderList({ ids: seed(3) });
    await waitFor(() => expect(onNextPage).toHaveBeenCalled());
  });

  it('does not ask at mount when the bottom is more than 100 px away, even with the last row rendered', async () => {
    // 10 rows: 820 px for a 600 px viewport; the overscan renders the last row.
    vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(10 * rowHeight);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
    const { onNextPage } = renderList({ ids: seed(10) });
    expect(screen.getByTestId('ticket-row-5009')).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 20));
    expect(onNextPage).not.toHaveBeenCalled();
  });
});
