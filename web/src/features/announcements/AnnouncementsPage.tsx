// /announcements: searchable, virtualised list (GET /announcements/, 20 a page, newest
// first) with add, edit and delete for announcements:manage (supervision profiles);
// everyone else reads and opens them. The realtime "announcement" event keeps it
// current in every browser.
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import { List, type RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { announcementsApi } from '../../api/endpoints';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { toastError } from '../../app/errors';
import { formatDay } from '../../app/format';
import { Icon } from '../../components/Icon';
import { Badge, Button, IconButton, Input, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Spinner } from '../../components/Splash';
import type { Announcement, AnnouncementEvent } from '../../api/types';
import { ContactRow as ItemRow, Header, ListArea, Page, RowInfo, Title } from '../contacts/style';
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
      {manage && (
        <>
          <IconButton type="button" aria-label={labels.edit} title={labels.edit} onClick={() => onEdit(a)}>
            <Icon name="edit" />
          </IconButton>
          <IconButton type="button" aria-label={labels.del} title={labels.del} onClick={() => onDelete(a)}>
            <Icon name="delete" />
          </IconButton>
        </>
      )}
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
    <Page>
      <Header>
        <Title>{t('announcements.title')}</Title>
        <Input
          type="search"
          value={text}
          aria-label={t('announcements.search')}
          placeholder={t('announcements.search')}
          onChange={(e) => setText(e.target.value)}
          style={{ maxWidth: 280 }}
        />
        {manage && (
          <Button type="button" onClick={() => setEditing('new')}>
            <Icon name="add" size={18} />
            {t('announcements.actions.add')}
          </Button>
        )}
      </Header>
      <ListArea>
        {loading && items.length === 0 ? (
          <Spinner />
        ) : items.length === 0 ? (
          <Muted>{t('announcements.empty')}</Muted>
        ) : (
          <List
            aria-label={t('announcements.title')}
            rowComponent={Row}
            rowCount={items.length}
            rowHeight={64}
            rowProps={rowProps}
            onScroll={onScroll}
            style={{ height: '100%' }}
          />
        )}
      </ListArea>
      {editing !== null && (
        <AnnouncementModal
          announcement={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={upsert}
        />
      )}
      <AnnouncementDialog announcement={shown} onClose={() => setShown(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title={t('announcements.delete.title')}
        confirmLabel={t('common.actions.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const a = deleting;
          setDeleting(null);
          if (a)
            announcementsApi.remove(a.id).then(
              () => remove(a.id),
              toastError,
            );
        }}
      >
        {t('announcements.delete.body', { title: deleting?.title ?? '' })}
      </ConfirmDialog>
    </Page>
  );
}
