// /Tags: searchable, virtualised tag list (GET /tags?searchParam=, one page holds every
// match). Every profile may create tags (tags:create); editing and deleting need
// tags:manage. The realtime "tags" event keeps the list current in every browser.
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { List, type RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { tagsApi } from '../../api/endpoints';
import { useDebounced } from '../../app/hooks';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { invalidateResource } from '../../app/resources';
import { toastError } from '../../app/errors';
import { Icon } from '../../components/Icon';
import { Button, IconButton, Input, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Spinner } from '../../components/Splash';
import type { Tag, TagEvent } from '../../api/types';
import { ContactRow as ItemRow, Header, ListArea, Page, RowInfo, Title } from '../contacts/style';
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
      {manage && (
        <>
          <IconButton type="button" aria-label={labels.edit} title={labels.edit} onClick={() => onEdit(tag)}>
            <Icon name="edit" />
          </IconButton>
          <IconButton type="button" aria-label={labels.del} title={labels.del} onClick={() => onDelete(tag)}>
            <Icon name="delete" />
          </IconButton>
        </>
      )}
    </ItemRow>
  );
}

export default function TagsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageTags);
  const list = useActorRef(tagsListMachine, { input: {} });
  const items = useSelector(list, (s) => s.context.items);
  const loading = useSelector(list, (s) => s.hasTag('loading'));
  const [text, setText] = useState('');
  const search = useDebounced(text.trim(), 500);
  const [editing, setEditing] = useState<Tag | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Tag | null>(null);

  useEffect(() => {
    if (list.getSnapshot().context.searchParam !== search) list.send({ type: 'list.search', searchParam: search });
  }, [list, search]);

  useRealtimeEvent<TagEvent>('tags', (e) => {
    invalidateResource('tags');
    if (e.action === 'delete') {
      if (e.tagId) list.send({ type: 'list.remove', id: e.tagId });
    } else if (e.tag) {
      const ctx = list.getSnapshot().context;
      if (ctx.items.some((x) => x.id === e.tag!.id) || fold(e.tag.name).includes(fold(ctx.searchParam)))
        list.send({ type: 'list.upsert', item: e.tag });
    }
  });
  useResync(() => list.send({ type: 'list.refresh' }));

  const rowProps = useMemo<RowData>(
    () => ({
      items,
      manage,
      onEdit: (tag) => setEditing(tag),
      onDelete: (tag) => setDeleting(tag),
      labels: { edit: t('tags.actions.edit'), del: t('tags.actions.delete') },
    }),
    [items, manage, t],
  );

  return (
    <Page>
      <Header>
        <Title>{t('tags.title')}</Title>
        <Input
          type="search"
          value={text}
          aria-label={t('tags.search')}
          placeholder={t('tags.search')}
          onChange={(e) => setText(e.target.value)}
          style={{ maxWidth: 280 }}
        />
        {can(perms.createTag) && (
          <Button type="button" onClick={() => setEditing('new')}>
            <Icon name="add" size={18} />
            {t('tags.actions.add')}
          </Button>
        )}
      </Header>
      <ListArea>
        {loading && items.length === 0 ? (
          <Spinner />
        ) : items.length === 0 ? (
          <Muted>{t('tags.empty')}</Muted>
        ) : (
          <List aria-label={t('tags.title')} rowComponent={Row} rowCount={items.length} rowHeight={52} rowProps={rowProps} style={{ height: '100%' }} />
        )}
      </ListArea>
      {editing !== null && (
        <TagModal
          tag={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(tag) => list.send({ type: 'list.upsert', item: tag })}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('tags.delete.title')}
        confirmLabel={t('common.actions.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const tag = deleting;
          setDeleting(null);
          if (tag)
            tagsApi.remove(tag.id).then(
              () => list.send({ type: 'list.remove', id: tag.id }),
              toastError,
            );
        }}
      >
        {t('tags.delete.body', { name: deleting?.name ?? '' })}
      </ConfirmDialog>
    </Page>
  );
}
