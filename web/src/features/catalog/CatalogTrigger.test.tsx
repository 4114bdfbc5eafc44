import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { Composer, useComposer } from '../chat/Composer';
import type { CatalogItem } from './api';
import { outgoing } from './CatalogTrigger';

function Harness() {
  const actor = useComposer(9, true, false, 'Ana', 'whatsapp');
  return <Composer actor={actor} ticketId={9} status="open" canSign={false} channel="whatsapp" />;
}

const pizza: CatalogItem = {
  id: 3,
  itemName: 'Calabresa',
  description: '',
  manufacturer: '',
  dimensions: '',
  unitName: 'un',
  pax: 2,
  categoryId: 5,
  order: 0,
  baseValue: 45.9,
  deliveryValue: 5,
  productImg: '1/abc.png',
  productImgUrl: '/media/x/1/abc.png',
  category: { id: 5, categoryName: 'Pizzas', mustaccio: 'imageText', displayName: '', isActive: true, template: '{{itemName}} {{baseValue}}' },
  message: 'Calabresa R$\u00a045,90',
};
const sticker: CatalogItem = { ...pizza, id: 4, itemName: 'Joinha', productImg: '1/joinha.webp', category: { ...pizza.category!, id: 6, categoryName: 'sticker' }, message: 'Joinha' };

function input() {
  return screen.getByRole('textbox', { name: 'Mensagem' });
}

describe('composer catalog triggers', () => {
  it("'#' searches the catalog and choosing an item sends its image with the rendered text", async () => {
    const { calls } = mockFetch(
      route('GET', '/catalog/', { body: { catalog: [pizza], count: 1, hasMore: false } }),
      route('POST', /^\/messages\//, { status: 201, body: { id: 1 } }),
    );
    renderWithProviders(<Harness />);
    await userEvent.type(input(), '#cala');
    const list = await screen.findByRole('listbox', { name: 'Itens do catálogo' });
    expect(calls.find((c) => c.url.startsWith('/catalog/'))?.url).toBe('/catalog/?searchParam=cala&activeOnly=true');
    expect(within(list).getByRole('option')).toHaveTextContent(/Calabresa\s*R\$\s45,90/);
    await userEvent.click(within(list).getByRole('option'));
    await waitFor(() => expect(calls.some((c) => c.url === '/messages/9')).toBe(true));
    const send = calls.find((c) => c.url === '/messages/9');
    expect(send?.body).toEqual({ body: 'Calabresa R$\u00a045,90', mediaUrl: '1/abc.png', fromMe: true, read: true });
    await waitFor(() => expect(input()).toHaveValue(''));
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it("'@' searches the stickers with searchParam=sticker and sends the image alone", async () => {
    const { calls } = mockFetch(
      route('GET', '/catalog/', { body: { catalog: [sticker, { ...sticker, id: 7, itemName: 'Coração' }], count: 2, hasMore: false } }),
      route('POST', /^\/messages\//, { status: 201, body: { id: 1 } }),
    );
    renderWithProviders(<Harness />);
    await userEvent.type(input(), '@joi');
    const list = await screen.findByRole('listbox', { name: 'Figurinhas' });
    expect(calls.find((c) => c.url.startsWith('/catalog/'))?.url).toBe('/catalog/?searchParam=sticker&activeOnly=true');
    expect(within(list).getAllByRole('option')).toHaveLength(1);
    await userEvent.click(within(list).getByRole('option'));
    await waitFor(() => expect(calls.find((c) => c.url === '/messages/9')?.body).toEqual({ body: '', mediaUrl: '1/joinha.webp', fromMe: true, read: true }));
  });

  it('a failed catalog search hides the list silently', async () => {
    toastStore.clear();
    const { fn } = mockFetch(route('GET', '/catalog/', { status: 500, body: { error: 'ERR_INTERNAL' } }));
    renderWithProviders(<Harness />);
    await userEvent.type(input(), '#x');
    await waitFor(() => expect(fn).toHaveBeenCalled());
    await waitFor(() => expect(fn.mock.results[0]?.type).toBe('return'));
    await Promise.resolve();
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(toastStore.getSnapshot()).toEqual([]);
  });

  it('the way of sending decides what goes out', () => {
    const textOnly = { ...pizza, category: { ...pizza.category!, mustaccio: 'text' as const } };
    expect(outgoing(textOnly, false)).toEqual({ body: pizza.message, mediaUrl: '' });
    const web = { ...pizza, productImg: 'https://cdn.example.com/p.png' };
    expect(outgoing(web, false)).toEqual({ body: `${pizza.message}\nhttps://cdn.example.com/p.png`, mediaUrl: '' });
    expect(outgoing({ ...pizza, category: null }, false)).toEqual({ body: pizza.message, mediaUrl: '1/abc.png' });
  });
});
