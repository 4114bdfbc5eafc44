import { createActor, fromPromise } from 'xstate';
import { createPagedListMachine } from './pagedList.machine';

interface Row {
  id: number;
  name: string;
}

function build() {
  const requests: { searchParam: string; pageNumber: number }[] = [];
  const machine = createPagedListMachine<Row>().provide({
    actors: {
      fetchPage: fromPromise(async ({ input }) => {
        requests.push(input);
        const base = input.pageNumber * 10;
        return { items: [{ id: base + 1, name: `${input.searchParam}${base + 1}` }, { id: base + 2, name: 'x' }], hasMore: input.pageNumber < 2 };
      }),
    },
  });
  const actor = createActor(machine, { input: {} });
  actor.start();
  const ready = () => vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
  return { actor, requests, ready, ids: () => actor.getSnapshot().context.items.map((i) => i.id) };
}

describe('paged list machine', () => {
  it('pages, searches from page 1 and applies live upserts and removals', async () => {
    const { actor, requests, ready, ids } = build();
    await ready();
    actor.send({ type: 'list.nextPage' });
    await ready();
    expect(ids()).toEqual([11, 12, 21, 22]);
    actor.send({ type: 'list.nextPage' });
    expect(requests).toHaveLength(2);

    actor.send({ type: 'list.search', searchParam: 'ana' });
    await ready();
    expect(requests.at(-1)).toEqual({ searchParam: 'ana', pageNumber: 1 });
    expect(ids()).toEqual([11, 12]);

    actor.send({ type: 'list.upsert', item: { id: 12, name: 'renamed' } });
    actor.send({ type: 'list.upsert', item: { id: 99, name: 'new' } });
    actor.send({ type: 'list.remove', id: 11 });
    expect(actor.getSnapshot().context.items).toEqual([
      { id: 99, name: 'new' },
      { id: 12, name: 'renamed' },
    ]);
  });
});
