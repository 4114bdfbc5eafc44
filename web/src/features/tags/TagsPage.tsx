// /Tags: searchable, virtualised tag list (GET /tags?searchParam=, one page holds every
// match). Every profile may create tags (tags:create); editing and deleting need
// tags:manage. The realtime "tags" event keeps the list current in every browser.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { tagsApi } from '../../api/endpoints';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent } from '../../app/realtime';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { invalidateResource } from '../../app/resources';
import { Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { ContactRow as ItemRow, RowInfo } from '../../components/pageStyle';
import type { Tag, TagEvent } from '../../api/types';
import { TagModal } from './TagModal';
import { TagChip } from './style';
import { fold } from './fold';

export const tagsListMachine = createPagedListMachine<Tag>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await tagsApi.search(input.searchParam);
      return { items: r.tags ?? [], hasMore: false as boolean };
    }),
  },
});

interface RowData {
  items: Tag[];
  manage: boolean;
  onEdit: (t: Tag) => void;
  onDelete: (t: Tag) => void;
  labels: { edit: string; del: string };
}

function Row({ index, style, ariaAttributes, items, manage, onEdit, onDelete, labels }: RowComponentProps<RowData>) {
  const tag = items[index];
  if (!tag) return null;
  return (
    <ItemRow style={style} {...ariaAttributes} data-testid={`tag-${tag.id}`}>
      <RowInfo>
        <span>
          <TagChip $color={tag.color}>{tag.name}</TagChip>
        </span>
      </RowInfo>
      <Muted>{tag.color}</Muted>
      {manage && <RowActions editLabel={labels.edit} deleteLabel={labels.del} onEdit={() => onEdit(tag)} onDelete={() => onDelete(tag)} />}
    </ItemRow>
  );
}

export default function TagsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageTags);
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, upsert, remove } = usePagedCrudList<Tag, TagEvent>({
    machine: tagsListMachine,
    event: 'tags',
    change: (e) => (e.action === 'delete' ? (e.tagId ? { remove: e.tagId } : null) : e.tag ? { upsert: e.tag } : null),
    matches: (tag, search) => fold(tag.name).includes(fold(search)),
  });
  useRealtimeEvent('tags', () => invalidateResource('tags'));

  const rowProps = useMemo<RowData>(
    () => ({
      items,
      manage,
      onEdit: (tag) => setEditing(tag),
      onDelete: (tag) => setDeleting(tag),
      labels: { edit: t('tags.actions.edit'), del: t('tags.actions.delete') },
    }),
    [items, manage, t, setEditing, setDeleting],
  );

  return (
    <ListPage
      title={t('tags.title')}
      search={{ value: text, onChange: setText, label: t('tags.search') }}
      add={{ label: t('tags.actions.add'), onClick: () => setEditing('new'), allowed: can(perms.createTag) }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('tags.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 52, rowProps }}
    >
      {editing !== null && <TagModal tag={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={upsert} />}
      <ConfirmDelete
        item={deleting}
        title={t('tags.delete.title')}
        body={t('tags.delete.body', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(tag) => tagsApi.remove(tag.id)}
        onRemoved={(tag) => remove(tag.id)}
      />
    </ListPage>
  );
}
