// The tenant's group batches, kept current by the realtime "groupBatch" event (the
// progress of each group created) and read again after a reconnect.
import { useCallback, useEffect, useState } from 'react';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { errorText } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { groupsApi, type GroupBatch, type GroupBatchEvent } from './api';

export function useGroupBatches() {
  const [items, setItems] = useState<GroupBatch[]>([]);
  const [loading, setLoading] = useState(true);
  const load = useCallback(() => {
    groupsApi.list().then(
      (r) => {
        setItems(r.batches ?? []);
        setLoading(false);
      },
      (e: unknown) => {
        setLoading(false);
        toast.error(errorText(e));
      },
    );
  }, []);
  useEffect(load, [load]);
  useResync(load);
  const upsert = useCallback((b: GroupBatch) => {
    setItems((list) => {
      const i = list.findIndex((x) => x.id === b.id);
      if (i < 0) return [b, ...list];
      const next = list.slice();
      next[i] = b;
      return next;
    });
  }, []);
  useRealtimeEvent<GroupBatchEvent>('groupBatch', (e) => {
    if (e.batch) upsert(e.batch);
  });
  return { items, loading, upsert };
}
