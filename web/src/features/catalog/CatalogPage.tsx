// /catalog: searchable list of catalog items (GET /catalog/, 20 a page, by order then
// name) showing the image, category and prices in BRL, with add, edit and delete for
// catalog:manage (admin, super). The realtime "catalog" event keeps it current.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { ContactRow as ItemRow, RowInfo } from '../../components/pageStyle';
import { fold } from '../tags/fold';
import { catalogApi, formatBRL, type CatalogEvent, type CatalogItem } from './api';
import { CatalogItemModal } from './CatalogItemModal';

export const catalogListMachine = createPagedListMachine<CatalogItem>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await catalogApi.search(input.searchParam, input.pageNumber);
      return { items: r.catalog ?? [], hasMore: !!r.hasMore };
    }),
  },
});

function matches(it: CatalogItem, search: string): boolean {
  const s = fold(search.replace(/^[#@]/, ''));
  return !s || [it.itemName, it.description, it.manufacturer, it.category?.categoryName ?? ''].some((v) => fold(v).includes(s));
}

interface RowData {
  items: CatalogItem[];
  manage: boolean;
  onEdit: (i: CatalogItem) => void;
  onDelete: (i: CatalogItem) => void;
  labels: { edit: string; del: string; noCategory: string; delivery: (v: string) => string };
}

function Row({ index, style, ariaAttributes, items, manage, onEdit, onDelete, labels }: RowComponentProps<RowData>) {
  const it = items[index];
  if (!it) return null;
  return (
    <ItemRow style={style} {...ariaAttributes} data-testid={`catalog-item-${it.id}`}>
      {it.productImgUrl ? <img src={it.productImgUrl} alt="" width={48} height={48} style={{ objectFit: 'cover' }} /> : null}
      <RowInfo>
        <strong>
          {it.itemName} · {formatBRL(it.baseValue)}
        </strong>
        <Muted>
          {it.category?.categoryName ?? labels.noCategory}
          {it.deliveryValue ? ` · ${labels.delivery(formatBRL(it.deliveryValue))}` : ''}
        </Muted>
      </RowInfo>
      {manage && <RowActions editLabel={labels.edit} deleteLabel={labels.del} onEdit={() => onEdit(it)} onDelete={() => onDelete(it)} />}
    </ItemRow>
  );
}

export default function CatalogPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageCatalog);
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove } = usePagedCrudList<
    CatalogItem,
    CatalogEvent
  >({
    machine: catalogListMachine,
    event: 'catalog',
    change: (e) => (e.action === 'delete' ? (e.itemId ? { remove: e.itemId } : null) : e.item ? { upsert: e.item } : null),
    matches,
  });

  const rowProps = useMemo<RowData>(
    () => ({
      items,
      manage,
      onEdit: (i) => setEditing(i),
      onDelete: (i) => setDeleting(i),
      labels: {
        edit: t('catalog.actions.edit'),
        del: t('catalog.actions.delete'),
        noCategory: t('catalog.item.noCategory'),
        delivery: (v) => t('catalog.item.deliveryShort', { value: v }),
      },
    }),
    [items, manage, t, setEditing, setDeleting],
  );

  return (
    <ListPage
      title={t('catalog.title')}
      search={{ value: text, onChange: setText, label: t('catalog.search') }}
      add={{ label: t('catalog.item.add'), onClick: () => setEditing('new'), allowed: manage }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('catalog.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 64, rowProps, onScroll }}
    >
      {editing !== null && <CatalogItemModal item={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={upsert} />}
      <ConfirmDelete
        item={deleting}
        title={t('catalog.item.deleteTitle')}
        body={t('catalog.item.deleteBody', { name: deleting?.itemName ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(i) => catalogApi.remove(i.id)}
        onRemoved={(i) => remove(i.id)}
      />
    </ListPage>
  );
}
