import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import CatalogPage from './CatalogPage';
import CategoriesPage from './CategoriesPage';
import { parseMoney } from './CatalogItemModal';

const pizzas = { id: 5, categoryName: 'Pizzas', mustaccio: 'imageText', displayName: '', isActive: true, template: '' };
const item = (id: number, itemName: string, baseValue: number) => ({
  id,
  itemName,
  baseValue,
  deliveryValue: 0,
  category: pizzas,
  categoryId: 5,
  productImg: '',
  productImgUrl: '',
  message: itemName,
});

describe('CatalogPage', () => {
  it('lists prices in BRL, adds an item through the modal, and follows "catalog" events', async () => {
    const { calls } = mockFetch(
      route('GET', '/catalog/', { body: { catalog: [item(1, 'Calabresa', 1234.5)], count: 1, hasMore: false } }),
      route('GET', '/categories/', { body: { categories: [pizzas], count: 1, hasMore: false } }),
      route('POST', '/catalog', (c) => ({ status: 201, body: { ...item(2, 'x', 0), ...(c.body as object), id: 2, category: pizzas } })),
    );
    const server = renderPage(<CatalogPage />, { profile: 'admin' });
    expect(await screen.findByTestId('catalog-item-1')).toHaveTextContent(/Calabresa · R\$\s1\.234,50/);

    await userEvent.click(screen.getByRole('button', { name: 'Adicionar item' }));
    const dialog = await screen.findByRole('dialog', { name: 'Novo item do catálogo' });
    await userEvent.type(within(dialog).getByLabelText('Nome do item'), 'Mussarela');
    await userEvent.type(within(dialog).getByLabelText(/^Valor \(R\$\)/), '12,3x');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await within(dialog).findByText('Valor inválido')).toBeInTheDocument();
    await userEvent.clear(within(dialog).getByLabelText(/^Valor \(R\$\)/));
    await userEvent.type(within(dialog).getByLabelText(/^Valor \(R\$\)/), '1.049,90');
    await waitFor(() => expect(within(dialog).getByRole('option', { name: 'Pizzas' })).toBeInTheDocument());
    await userEvent.selectOptions(within(dialog).getByLabelText('Categoria'), '5');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByTestId('catalog-item-2')).toHaveTextContent(/Mussarela · R\$\s1\.049,90/);
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toMatchObject({ itemName: 'Mussarela', baseValue: 1049.9, categoryId: 5, deliveryValue: 0 });

    server.send('catalog', { action: 'update', item: item(1, 'Calabresa grande', 60) });
    await waitFor(() => expect(screen.getByTestId('catalog-item-1')).toHaveTextContent('Calabresa grande'));
    server.send('catalog', { action: 'delete', itemId: 2 });
    await waitFor(() => expect(screen.queryByTestId('catalog-item-2')).toBeNull());
  });

  it('offers no add or edit to an attendant', async () => {
    mockFetch(route('GET', '/catalog/', { body: { catalog: [item(1, 'Calabresa', 10)], count: 1, hasMore: false } }));
    renderPage(<CatalogPage />, { profile: 'user' });
    await screen.findByTestId('catalog-item-1');
    expect(screen.queryByRole('button', { name: 'Adicionar item' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Editar' })).toBeNull();
  });

  it('reads money typed the Brazilian or the plain way', () => {
    expect(parseMoney('1.234,56')).toBe(1234.56);
    expect(parseMoney('R$ 12,5')).toBe(12.5);
    expect(parseMoney('12.50')).toBe(12.5);
    expect(parseMoney('')).toBe(0);
    expect(parseMoney('1,234')).toBeNaN();
    expect(parseMoney('-3')).toBeNaN();
  });
});

describe('CategoriesPage', () => {
  it('adds a category and shows the server duplicate error', async () => {
    let posts = 0;
    mockFetch(
      route('GET', '/categories/', { body: { categories: [pizzas], count: 1, hasMore: false } }),
      route('POST', '/categories', (c) =>
        ++posts === 1
          ? { status: 409, body: { error: 'ERR_CATEGORYNAME_DUPLICATED' } }
          : { status: 201, body: { ...pizzas, ...(c.body as object), id: 6 } },
      ),
    );
    const server = renderPage(<CategoriesPage />, { profile: 'admin' });
    expect(await screen.findByTestId('category-5')).toHaveTextContent('Pizzas');
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar categoria' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nova categoria' });
    await userEvent.type(within(dialog).getByLabelText('Nome da categoria'), 'sticker');
    await userEvent.selectOptions(within(dialog).getByLabelText('Forma de envio'), 'image');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(posts).toBe(1));
    expect(screen.queryByTestId('category-6')).toBeNull();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByTestId('category-6')).toHaveTextContent(/sticker.*Somente imagem/);
    server.send('category', { action: 'delete', categoryId: 6 });
    await waitFor(() => expect(screen.queryByTestId('category-6')).toBeNull());
  });
});
