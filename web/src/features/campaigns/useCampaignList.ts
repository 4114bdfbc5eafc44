// The tenant's campaigns (or broadcasts), kept current by the realtime "campaign"
// event (progress of every send included) and read again after a reconnect.
import { useCallback, useEffect, useState } from 'react';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { errorText } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { campaignsApi, type Campaign, type CampaignEvent, type CampaignKind } from './api';

export function useCampaignList(kind: CampaignKind) {
  const [items, setItems] = useState<Campaign[]>([]);
  const [loading, setLoading] = useState(true);
  const load = useCallback(() => {
    campaignsApi.list(kind).then(
      (r) => {
        setItems(r.campaigns ?? []);
        setLoading(false);
      },
      (e: unknown) => {
        setLoading(false);
        toast.error(errorText(e));
      },
    );
  }, [kind]);
  useEffect(load, [load]);
  useResync(load);
  const upsert = useCallback(
    (c: Campaign) => {
      if (c.kind !== kind) return;
      setItems((list) => {
        const i = list.findIndex((x) => x.id === c.id);
        if (i < 0) return [c, ...list];
        const next = list.slice();
        next[i] = c;
        return next;
      });
    },
    [kind],
  );
  useRealtimeEvent<CampaignEvent>('campaign', (e) => {
    if (e.campaign) upsert(e.campaign);
  });
  return { items, loading, upsert };
}
