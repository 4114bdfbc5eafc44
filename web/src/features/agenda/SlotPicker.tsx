// The booking modal's slot picker: a resource's owner (any user of the tenant), then
// one of their positions, then one of its free future slots. The slots come from
// POST /futureslots (those without a booking); they are read again on the "slots"
// event of that resource, so a slot another attendant just took leaves the list.
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usersApi } from '../../api/endpoints';
import type { ID } from '../../api/types';
import { useResource } from '../../app/resources';
import { useRealtimeEvent } from '../../app/realtime';
import { Field, Row, Select } from '../../components/primitives';
import { bookingApi, type Position, type Slot } from '../booking/api';

export interface PickedSlot {
  slotId: ID;
  date: string; // YYYY-MM-DD in the tenant's zone
  hour: string; // HH:mm
}

export function SlotPicker({ picked, onPick }: { picked: PickedSlot | null; onPick: (s: PickedSlot | null) => void }) {
  const { t } = useTranslation();
  const users = useResource('users:list', usersApi.list);
  const [userId, setUserId] = useState<ID | 0>(0);
  const [positions, setPositions] = useState<Position[]>([]);
  const [positionId, setPositionId] = useState<ID | 0>(0);
  const [free, setFree] = useState<Slot[]>([]);

  useEffect(() => {
    setPositions([]);
    setPositionId(0);
    if (!userId) return;
    let live = true;
    bookingApi.positions(userId).then(
      (r) => {
        if (!live) return;
        setPositions(r.currPositions);
        setPositionId(r.currPositions[0]?.positionId ?? 0);
      },
      () => live && setPositions([]),
    );
    return () => {
      live = false;
    };
  }, [userId]);

  const loadSlots = useCallback(() => {
    if (!userId || !positionId) {
      setFree([]);
      return;
    }
    bookingApi.futureSlots(positionId, userId).then(
      (r) => setFree(r.futureSlots.filter((s) => !s.booked)),
      () => setFree([]),
    );
  }, [userId, positionId]);
  useEffect(loadSlots, [loadSlots]);
  useRealtimeEvent<{ positionId?: ID }>('slots', (e) => e.positionId === positionId && loadSlots());

  // A picked slot that is no longer free (taken elsewhere) is dropped.
  useEffect(() => {
    if (picked && !free.some((s) => s.slotId === picked.slotId)) onPick(null);
  }, [free, picked, onPick]);

  const pick = (raw: string) => {
    const s = free.find((x) => String(x.slotId) === raw);
    onPick(s ? { slotId: s.slotId, date: s.slotDate, hour: s.slotHour } : null);
  };

  return (
    <Row $gap={12} $wrap>
      <Field>
        {t('agenda.slot.owner')}
        <Select name="slotOwner" value={userId} onChange={(e) => setUserId(Number(e.target.value))}>
          <option value={0}>{t('agenda.slot.none')}</option>
          {(users.data ?? []).map((u) => (
            <option key={u.id} value={u.id}>
              {u.name}
            </option>
          ))}
        </Select>
      </Field>
      {userId !== 0 && (
        <Field>
          {t('agenda.slot.position')}
          <Select name="slotPosition" value={positionId} onChange={(e) => setPositionId(Number(e.target.value))}>
            {positions.length === 0 && <option value={0}>{t('agenda.slot.noPosition')}</option>}
            {positions.map((p) => (
              <option key={p.positionId} value={p.positionId}>
                {p.positionName}
              </option>
            ))}
          </Select>
        </Field>
      )}
      {positionId !== 0 && (
        <Field>
          {t('agenda.slot.slot')}
          <Select name="slotId" value={picked?.slotId ?? ''} onChange={(e) => pick(e.target.value)}>
            <option value="">{free.length ? t('agenda.slot.choose') : t('agenda.slot.noneFree')}</option>
            {free.map((s) => (
              <option key={s.slotId} value={s.slotId}>
                {`${s.slotDate.split('-').reverse().join('/')} ${s.slotHour}`}
              </option>
            ))}
          </Select>
        </Field>
      )}
    </Row>
  );
}
