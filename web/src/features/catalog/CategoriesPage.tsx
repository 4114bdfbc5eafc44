// /Categories: searchable list of the catalog's categories (GET /categories/, 20 a
// page, by name) with add, edit and delete for catalog:manage (admin, super). The
// realtime "category" event keeps it current in every browser.
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
import { categoriesApi, type Category, type CategoryEvent } from './api';
import { CategoryModal } from './CategoryModal';

export const categoriesListMachine = createPagedListMachine<Category>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await categoriesApi.search(input.searchParam, input.pageNumber);
      return { items: r.categories ?? [], hasMore: !!r.hasMore };
    }),
  },
});

interface RowData {
  items: Category[];
  manage: boolean;
  onEdit: (c: Category) => void;
  onDelete: (c: Category) => void;
  labels: { edit: string; del: string; inactive: string; way: (c: Category) => string };
}

function Row({ index, style, ariaAttributes, items, manage, onEdit, onDelete, labels }: RowComponentProps<RowData>) {
  const c = items[index];
  if (!c) return null;
  return (
    <ItemRow style={style} {...ariaAttributes} data-testid={`category-${c.id}`}>
      <RowInfo>
        <strong>
          {c.categoryName}
          {c.displayName ? ` · ${c.displayName}` : ''}
        </strong>
        <Muted>
          {labels.way(c)}
          {c.isActive ? '' : ` · ${labels.inactive}`}
        </Muted>
      </RowInfo>
      {manage && <RowActions editLabel={labels.edit} deleteLabel={labels.del} onEdit={() => onEdit(c)} onDelete={() => onDelete(c)} />}
    </ItemRow>
  );
}

export default function CategoriesPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageCatalog);
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove } = usePagedCrudList<
    Category,
    CategoryEvent
  >({
    machine: categoriesListMachine,
    event: 'category',
    change: (e) => (e.action === 'delete' ? (e.categoryId ? { remove: e.categoryId } : null) : e.category ? { upsert: e.category } : null),
    matches: (c, s) => !fold(s) || fold(c.categoryName).includes(fold(s)),
  });

  const rowProps = useMemo<RowData>(
    () => ({
      items,
      manage,
      onEdit: (c) => setEditing(c),
      onDelete: (c) => setDeleting(c),
      labels: {
        edit: t('catalog.actions.edit'),
        del: t('catalog.actions.delete'),
        inactive: t('catalog.category.inactive'),
        way: (c) => t(`catalog.category.ways.${c.mustaccio}`),
      },
    }),
    [items, manage, t, setEditing, setDeleting],
  );

  return (
    <ListPage
      title={t('catalog.category.title')}
      search={{ value: text, onChange: setText, label: t('catalog.category.search') }}
      add={{ label: t('catalog.category.add'), onClick: () => setEditing('new'), allowed: manage }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('catalog.category.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 64, rowProps, onScroll }}
    >
      {editing !== null && <CategoryModal category={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={upsert} />}
      <ConfirmDelete
        item={deleting}
        title={t('catalog.category.deleteTitle')}
        body={t('catalog.category.deleteBody', { name: deleting?.categoryName ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(c) => categoriesApi.remove(c.id)}
        onRemoved={(c) => remove(c.id)}
      />
    </ListPage>
  );
}
