// /announcements: searchable, virtualised list (GET /announcements/, 20 a page, newest
// first) with add, edit and delete for announcements:manage (supervision profiles);
// everyone else reads and opens them. The realtime "announcement" event keeps it
// current in every browser.
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { announcementsApi } from '../../api/endpoints';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { formatDay } from '../../app/format';
import { Icon } from '../../components/Icon';
import { Badge, IconButton, Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { ContactRow as ItemRow, RowInfo } from '../../components/pageStyle';
import type { Announcement, AnnouncementEvent } from '../../api/types';
import { fold } from '../tags/fold';
import { AnnouncementDialog } from './AnnouncementDialog';
import { AnnouncementModal } from './AnnouncementModal';
import { PriorityDot } from './style';

export const announcementsListMachine = createPagedListMachine<Announcement>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await announcementsApi.search(input.searchParam, input.pageNumber);
      return { items: r.records ?? [], hasMore: !!r.hasMore };
    }),
  },
});

function matches(a: Announcement, search: string): boolean {
  const s = fold(search);
  return !s || fold(a.title).includes(s) || fold(a.text).includes(s);
}

interface RowData {
  items: Announcement[];
  manage: boolean;
  onOpen: (a: Announcement) => void;
  onEdit: (a: Announcement) => void;
  onDelete: (a: Announcement) => void;
  labels: { edit: string; del: string; inactive: string; open: string };
}

function Row({ index, style, ariaAttributes, items, manage, onOpen, onEdit, onDelete, labels }: RowComponentProps<RowData>) {
  const a = items[index];
  if (!a) return null;
  return (
    <ItemRow style={style} {...ariaAttributes} data-testid={`announcement-${a.id}`}>
      <PriorityDot $priority={a.priority} aria-hidden />
      <RowInfo>
        <strong>{a.title}</strong>
        <Muted title={a.text}>
          {formatDay(a.createdAt)} · {a.text}
        </Muted>
      </RowInfo>
      {!a.status && <Badge $tone="muted">{labels.inactive}</Badge>}
      <IconButton type="button" aria-label={labels.open} title={labels.open} onClick={() => onOpen(a)}>
        <Icon name="info" />
      </IconButton>
      {manage && <RowActions editLabel={labels.edit} deleteLabel={labels.del} onEdit={() => onEdit(a)} onDelete={() => onDelete(a)} />}
    </ItemRow>
  );
}

export default function AnnouncementsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageAnnouncements);
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove } = usePagedCrudList<
    Announcement,
    AnnouncementEvent
  >({
    machine: announcementsListMachine,
    event: 'announcement',
    change: (e) => (e.action === 'delete' ? (e.announcementId ? { remove: e.announcementId } : null) : e.announcement ? { upsert: e.announcement } : null),
    matches,
  });
  const [shown, setShown] = useState<Announcement | null>(null);

  const rowProps = useMemo<RowData>(
    () => ({
      items,
      manage,
      onOpen: (a) => setShown(a),
      onEdit: (a) => setEditing(a),
      onDelete: (a) => setDeleting(a),
      labels: {
        edit: t('announcements.actions.edit'),
        del: t('announcements.actions.delete'),
        inactive: t('announcements.inactive'),
        open: t('announcements.popupHint'),
      },
    }),
    [items, manage, t, setEditing, setDeleting],
  );

  return (
    <ListPage
      title={t('announcements.title')}
      search={{ value: text, onChange: setText, label: t('announcements.search') }}
      add={{ label: t('announcements.actions.add'), onClick: () => setEditing('new'), allowed: manage }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('announcements.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 64, rowProps, onScroll }}
    >
      {editing !== null && (
        <AnnouncementModal
          announcement={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={upsert}
        />
      )}
      <AnnouncementDialog announcement={shown} onClose={() => setShown(null)} />
      <ConfirmDelete
        item={deleting}
        title={t('announcements.delete.title')}
        body={t('announcements.delete.body', { title: deleting?.title ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(a) => announcementsApi.remove(a.id)}
        onRemoved={(a) => remove(a.id)}
      />
    </ListPage>
  );
}
