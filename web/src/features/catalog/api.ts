// The catalog's REST calls and types (docs/api.md section 2.8b), and the BRL money
// format the pages show.
import { http } from '../../api/client';
import type { ID } from '../../api/types';

export interface Category {
  id: ID;
  categoryName: string;
  mustaccio: 'imageText' | 'text' | 'image';
  displayName: string;
  isActive: boolean;
  template: string;
}

export type UserDataKey = `userData${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`;
export const userDataKeys = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `userData${i}` as UserDataKey);

export interface CatalogItemInput extends Partial<Record<UserDataKey, string>> {
  itemName: string;
  description: string;
  manufacturer: string;
  dimensions: string;
  unitName: string;
  pax: number;
  categoryId: ID;
  order: number;
  baseValue: number;
  deliveryValue: number;
  productImg: string;
}

export interface CatalogItem extends CatalogItemInput {
  id: ID;
  category: Category | null;
  productImgUrl: string;
  // The category's template rendered for this item by the server.
  message: string;
}

export interface CatalogPage {
  catalog: CatalogItem[];
  count: number;
  hasMore: boolean;
}

export interface CategoryPage {
  categories: Category[];
  count: number;
  hasMore: boolean;
}

export interface CatalogEvent {
  action: 'create' | 'update' | 'delete';
  item?: CatalogItem;
  itemId?: ID;
}

export interface CategoryEvent {
  action: 'create' | 'update' | 'delete';
  category?: Category;
  categoryId?: ID;
}

export type CategoryInput = Omit<Category, 'id'>;

export const catalogApi = {
  search: (searchParam: string, pageNumber?: number, activeOnly?: boolean): Promise<CatalogPage> =>
    http.get<CatalogPage>('/catalog/', { query: { searchParam, pageNumber, activeOnly: activeOnly ? 'true' : undefined } }),
  create: (body: CatalogItemInput): Promise<CatalogItem> => http.post<CatalogItem>('/catalog', { body }),
  update: (id: ID, body: CatalogItemInput): Promise<CatalogItem> => http.put<CatalogItem>(`/catalog/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/catalog/${id}`),
  // Stores an image for productImg; anything else is refused (ERR_MEDIA_TYPE_NOT_ALLOWED).
  upload: (file: File): Promise<{ productImg: string; productImgUrl: string }> => {
    const form = new FormData();
    form.append('file', file, file.name);
    return http.post<{ productImg: string; productImgUrl: string }>('/catalog/upload', { form });
  },
};

export const categoriesApi = {
  search: (searchParam: string, pageNumber?: number): Promise<CategoryPage> =>
    http.get<CategoryPage>('/categories/', { query: { searchParam, pageNumber } }),
  create: (body: CategoryInput): Promise<Category> => http.post<Category>('/categories', { body }),
  update: (id: ID, body: CategoryInput): Promise<Category> => http.put<Category>(`/categories/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/categories/${id}`),
};

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

// formatBRL writes reais as Brazilian currency ("R$ 1.234,56") whatever the UI
// language: prices are in reais.
export function formatBRL(reais: number): string {
  return brl.format(reais);
}
