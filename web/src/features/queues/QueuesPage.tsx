// /Queues: the tenant's queues (GET /queue: all of them; a tenant has a handful, so the
// list is not virtualised) with add, edit and delete for queues:manage holders. The
// realtime "queue" event keeps it current in every browser.
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { queuesApi } from '../../api/endpoints';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { invalidateResource } from '../../app/resources';
import { Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { RowInfo } from '../../components/pageStyle';
import type { Queue, QueueEvent } from '../../api/types';
import { QueueModal } from './QueueModal';
import { QueueItem, QueueList, Stripe } from './style';

export const queuesListMachine = createPagedListMachine<Queue>().provide({
  actors: {
    fetchPage: fromPromise(async () => ({ items: (await queuesApi.list()) ?? [], hasMore: false as boolean })),
  },
});

const byName = (a: Queue, b: Queue) => a.name.localeCompare(b.name);

export default function QueuesPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageQueues);
  const list = useActorRef(queuesListMachine, { input: {} });
  const raw = useSelector(list, (s) => s.context.items);
  const loading = useSelector(list, (s) => s.hasTag('loading'));
  const items = useMemo(() => [...raw].sort(byName), [raw]);
  const [editing, setEditing] = useState<Queue | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Queue | null>(null);

  useRealtimeEvent<QueueEvent>('queue', (e) => {
    invalidateResource('queues');
    if (e.action === 'delete') {
      if (e.queueId) list.send({ type: 'list.remove', id: e.queueId });
    } else if (e.queue) list.send({ type: 'list.upsert', item: e.queue });
  });
  useResync(() => list.send({ type: 'list.refresh' }));

  const current = editing === 'new' ? null : editing;
  // The server's rule: a greeting is required when the tenant will have more than one
  // queue (creating while one exists; editing while two exist).
  const greetingRequired = current ? items.length >= 2 : items.length >= 1;

  return (
    <ListPage
      title={t('queues.title')}
      add={{ label: t('queues.actions.add'), onClick: () => setEditing('new'), allowed: manage }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('queues.empty')}
      content={
        <QueueList aria-label={t('queues.title')}>
          {items.map((q) => (
            <QueueItem key={q.id} data-testid={`queue-${q.id}`}>
              <Stripe $color={q.color} />
              <RowInfo>
                <strong>{q.name}</strong>
                <Muted>
                  {q.startWork && q.endWork ? t('queues.hours', { start: q.startWork, end: q.endWork }) : t('queues.noHours')}
                  {q.greetingMessage ? ` · ${q.greetingMessage}` : ''}
                </Muted>
              </RowInfo>
              {manage && (
                <RowActions
                  editLabel={t('queues.actions.edit')}
                  deleteLabel={t('queues.actions.delete')}
                  onEdit={() => setEditing(q)}
                  onDelete={() => setDeleting(q)}
                />
              )}
            </QueueItem>
          ))}
        </QueueList>
      }
    >
      {editing !== null && (
        <QueueModal
          queue={current}
          greetingRequired={greetingRequired}
          takenColors={items.filter((q) => q.id !== current?.id).map((q) => q.color)}
          onClose={() => setEditing(null)}
          onSaved={(q) => list.send({ type: 'list.upsert', item: q })}
        />
      )}
      <ConfirmDelete
        item={deleting}
        title={t('queues.delete.title')}
        body={t('queues.delete.body', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(q) => queuesApi.remove(q.id)}
        onRemoved={(q) => list.send({ type: 'list.remove', id: q.id })}
      />
    </ListPage>
  );
}
