// /scheduledMessages: the tenant's scheduled messages by send time (GET
// /scheduledMessages/, 20 a page) with their status (pending, sent, error and the
// error's text), add, edit and delete. Users and userplus change only their own;
// superv and upward anybody's; a sent one is not changed. The realtime
// "scheduledMessage" event keeps it current, a timer firing included.
import { useMemo } from 'react';
import { tenantTimeZone } from '../../app/format';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { scheduledMessagesApi } from '../../api/endpoints';
import { usePermissions, useSession } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { errorText } from '../../app/errors';
import { Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { ContactRow as ItemRow, RowInfo } from '../../components/pageStyle';
import type { Schedule, ScheduleEvent } from '../../api/types';
import { fold } from '../tags/fold';
import { ScheduleModal } from './ScheduleModal';

export const scheduledMessagesListMachine = createPagedListMachine<Schedule>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await scheduledMessagesApi.search(input.searchParam, input.pageNumber);
      return { items: r.schedules ?? [], hasMore: !!r.hasMore };
    }),
  },
});

function matches(s: Schedule, search: string): boolean {
  const q = fold(search);
  return !q || fold(s.message).includes(q) || s.phoneNumber.includes(q) || fold(s.contact?.name ?? '').includes(q);
}

interface RowData {
  items: Schedule[];
  canChange: (s: Schedule) => boolean;
  onEdit: (s: Schedule) => void;
  onDelete: (s: Schedule) => void;
  when: (s: Schedule) => string;
  status: (s: Schedule) => string;
  labels: { edit: string; del: string };
}

function Row({ index, style, ariaAttributes, items, canChange, onEdit, onDelete, when, status, labels }: RowComponentProps<RowData>) {
  const s = items[index];
  if (!s) return null;
  return (
    <ItemRow style={style} {...ariaAttributes} data-testid={`schedule-${s.id}`} data-status={s.status}>
      <RowInfo>
        <strong>
          {when(s)} · {s.contact?.name ?? s.phoneNumber}
        </strong>
        <Muted title={s.message}>
          {status(s)} · {s.message}
        </Muted>
      </RowInfo>
      {canChange(s) && <RowActions editLabel={labels.edit} deleteLabel={labels.del} onEdit={() => onEdit(s)} onDelete={() => onDelete(s)} />}
    </ItemRow>
  );
}

export default function ScheduledMessagesPage() {
  const { t, i18n } = useTranslation();
  const { can } = usePermissions();
  const { user } = useSession();
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove } = usePagedCrudList<
    Schedule,
    ScheduleEvent
  >({
    machine: scheduledMessagesListMachine,
    event: 'scheduledMessage',
    change: (e) =>
      e.action === 'delete' ? (e.scheduledMessageId ? { remove: e.scheduledMessageId } : null) : e.scheduledMessage ? { upsert: e.scheduledMessage } : null,
    matches,
  });

  const rowProps = useMemo<RowData>(() => {
    const fmt = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short', timeZone: tenantTimeZone });
    return {
      items,
      canChange: (s) =>
        s.status !== 'sent' && (can(perms.manageScheduledMessages) || (can(perms.editOwnScheduledMessage) && s.userId === user?.id)),
      onEdit: (s) => setEditing(s),
      onDelete: (s) => setDeleting(s),
      when: (s) => fmt.format(new Date(s.sendAt)),
      status: (s) =>
        s.errorMessage
          ? `${t(`scheduling.status.${s.status}`)}: ${errorText(new Error(s.errorMessage))}`
          : t(`scheduling.status.${s.status}`),
      labels: { edit: t('scheduling.actions.edit'), del: t('scheduling.actions.delete') },
    };
  }, [items, can, user, t, i18n, setEditing, setDeleting]);

  return (
    <ListPage
      title={t('scheduling.title')}
      search={{ value: text, onChange: setText, label: t('scheduling.search') }}
      add={{ label: t('scheduling.actions.add'), onClick: () => setEditing('new'), allowed: can(perms.createScheduledMessage) }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('scheduling.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 64, rowProps, onScroll }}
    >
      {editing !== null && <ScheduleModal schedule={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={upsert} />}
      <ConfirmDelete
        item={deleting}
        title={t('scheduling.delete.title')}
        body={t('scheduling.delete.body', { when: deleting ? rowProps.when(deleting) : '' })}
        onClose={() => setDeleting(null)}
        remove={(s) => scheduledMessagesApi.remove(s.id)}
        onRemoved={(s) => remove(s.id)}
      />
    </ListPage>
  );
}
