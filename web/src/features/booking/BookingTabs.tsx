// The booking tabs of the user modal (spec section 2): Recurso (the user's position and
// its place), Agenda (available grade and future slots, moved between two lists) and
// Grelha (a week of half-hour cells, Monday to Saturday, 07:00–19:00). Places and
// positions load 1 s after the modal opens (spec section 9). Times are the tenant's
// wall times, 'YYYY-MM-DD HH:mm'.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, Field, Input, Muted, Row, Select, Switch } from '../../components/primitives';
import { toast } from '../../components/toast/toastStore';
import { toastError } from '../../app/errors';
import { useRealtimeEvent } from '../../app/realtime';
import { isApiError } from '../../api/errors';
import type { ID } from '../../api/types';
import { bookingApi, slotKey, type Place, type Position, type Slot } from './api';
import { addDays, afternoonFrom, gridHours, mondayOf, nowInZone, weekDays, weekdayIndex } from './grid';

export type BookingTab = 'resource' | 'agenda' | 'grid';

// The delay before places and positions are fetched (spec section 9).
export const resourceLoadDelayMs = 1000;

// rawError is the server's own text for the grid's failure toast (spec section 8: the
// raw error), with the field messages of a validation answer.
export function rawError(err: unknown): string {
  if (isApiError(err)) {
    const fields = err.fields ? ` ${Object.entries(err.fields).map(([k, v]) => `${k}: ${v}`).join(', ')}` : '';
    return `${err.code ?? err.status}${fields}`;
  }
  return err instanceof Error ? err.message : String(err);
}

interface Props {
  tab: BookingTab;
  userId: ID;
  onClose: () => void;
  /** places:manage: the Recurso tab also adds and deletes places. */
  canManagePlaces?: boolean;
  /** The clock, for tests; the grid opens on the current week of the tenant. */
  now?: () => Date;
}

export function BookingTabs({ tab, userId, onClose, canManagePlaces = false, now = () => new Date() }: Props) {
  const { t } = useTranslation();
  const [places, setPlaces] = useState<Place[] | null>(null);
  const [positions, setPositions] = useState<Position[] | null>(null);
  // Bumped by every "slots" event of this user: the open pane reloads from the server,
  // so a colleague's save (or a booking) shows without reopening the modal.
  const [slotsVersion, setSlotsVersion] = useState(0);
  useRealtimeEvent<{ userId?: ID }>('slots', (e) => e.userId === userId && setSlotsVersion((v) => v + 1));
  useRealtimeEvent<{ action?: string; place?: Place; placeId?: ID }>('place', (e) => {
    if (e.action === 'create' && e.place) {
      const p = e.place;
      setPlaces((l) => (l && !l.some((x) => x.placeId === p.placeId) ? [...l, p] : l));
    } else if (e.action === 'delete') setPlaces((l) => l && l.filter((x) => x.placeId !== e.placeId));
  });
  useRealtimeEvent<{ position?: Position }>('position', (e) => {
    const p = e.position;
    if (!p || p.userId !== userId) return;
    setPositions((l) => (l ? (l.some((x) => x.positionId === p.positionId) ? l.map((x) => (x.positionId === p.positionId ? p : x)) : [...l, p]) : l));
  });

  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      bookingApi.places().then((r) => live && setPlaces(r.currPlaces ?? []), toastError);
      bookingApi.positions(userId).then((r) => live && setPositions(r.currPositions ?? []), toastError);
    }, resourceLoadDelayMs);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [userId]);

  if (places === null || positions === null) return <Muted role="status">{t('booking.loading')}</Muted>;
  const position = positions[0] ?? null;
  if (tab === 'resource')
    return (
      <ResourcePane
        userId={userId}
        places={places}
        position={position}
        onClose={onClose}
        canManagePlaces={canManagePlaces}
        onPlaces={setPlaces}
        onSaved={(p) => setPositions((l) => [p, ...(l ?? []).filter((x) => x.positionId !== p.positionId)])}
      />
    );
  if (!position) return <Muted role="status">{t('booking.noPosition')}</Muted>;
  if (tab === 'grid') return <GridPane userId={userId} position={position} onClose={onClose} now={now} version={slotsVersion} />;
  return <AgendaPane userId={userId} position={position} onClose={onClose} version={slotsVersion} />;
}

// coord reads a typed coordinate; empty or not a number is null, which the server
// answers with Required rather than taking it for 0.
const coord = (v: string): number | null => {
  const n = Number(v.trim().replace(',', '.'));
  return v.trim() === '' || !Number.isFinite(n) ? null : n;
};

function ResourcePane({
  userId,
  places,
  position,
  onClose,
  onSaved,
  canManagePlaces,
  onPlaces,
}: {
  userId: ID;
  places: Place[];
  position: Position | null;
  onClose: () => void;
  onSaved: (p: Position) => void;
  canManagePlaces: boolean;
  onPlaces: (l: Place[]) => void;
}) {
  const { t } = useTranslation();
  const [placeId, setPlaceId] = useState<ID>(position?.placeId ?? places[0]?.placeId ?? 0);
  const [name, setName] = useState(position?.positionName ?? '');
  const [color, setColor] = useState(position?.positionColor ?? '#1976d2');
  const [busy, setBusy] = useState(false);
  const [newPlace, setNewPlace] = useState({ name: '', lat: '', lng: '' });
  // Places are managed here, beside the only form that uses them (places:manage).
  const addPlace = async () => {
    try {
      const p = await bookingApi.createPlace({ placeName: newPlace.name.trim(), placeLat: coord(newPlace.lat), placeLng: coord(newPlace.lng) });
      onPlaces([...places, p]);
      setPlaceId(p.placeId);
      setNewPlace({ name: '', lat: '', lng: '' });
    } catch (err) {
      toastError(err);
    }
  };
  const deletePlace = async (p: Place) => {
    try {
      await bookingApi.deletePlace(p.placeId);
      const rest = places.filter((x) => x.placeId !== p.placeId);
      onPlaces(rest);
      if (placeId === p.placeId) setPlaceId(rest[0]?.placeId ?? 0);
    } catch (err) {
      toastError(err);
    }
  };
  const save = async () => {
    setBusy(true);
    try {
      const saved = await bookingApi.savePosition({
        positionId: position?.positionId,
        userId,
        placeId,
        positionName: name.trim(),
        positionColor: color,
      });
      onSaved(saved);
      toast.success(t('booking.resource.saved'));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Pane>
      <Field>
        {t('booking.resource.place')}
        <Select value={String(placeId)} onChange={(e) => setPlaceId(Number(e.target.value))} name="placeId">
          {places.length === 0 && <option value="0">{t('booking.resource.noPlace')}</option>}
          {places.map((p) => (
            <option key={p.placeId} value={String(p.placeId)}>
              {p.placeName}
            </option>
          ))}
        </Select>
      </Field>
      {canManagePlaces && (
        <PlaceBox aria-label={t('booking.places.title')}>
          <legend>{t('booking.places.title')}</legend>
          {places.map((p) => (
            <Row key={p.placeId} $gap={8}>
              <span>{p.placeName}</span>
              <Button type="button" $variant="ghost" $small onClick={() => deletePlace(p)}>
                {t('booking.places.delete', { name: p.placeName })}
              </Button>
            </Row>
          ))}
          <Row $gap={8} $wrap>
            <Input
              aria-label={t('booking.places.name')}
              placeholder={t('booking.places.name')}
              value={newPlace.name}
              onChange={(e) => setNewPlace((v) => ({ ...v, name: e.target.value }))}
            />
            <Input
              aria-label={t('booking.places.lat')}
              placeholder={t('booking.places.lat')}
              inputMode="decimal"
              value={newPlace.lat}
              onChange={(e) => setNewPlace((v) => ({ ...v, lat: e.target.value }))}
            />
            <Input
              aria-label={t('booking.places.lng')}
              placeholder={t('booking.places.lng')}
              inputMode="decimal"
              value={newPlace.lng}
              onChange={(e) => setNewPlace((v) => ({ ...v, lng: e.target.value }))}
            />
            <Button type="button" $small onClick={addPlace}>
              {t('booking.places.add')}
            </Button>
          </Row>
        </PlaceBox>
      )}
      <Field>
        {t('booking.resource.name')}
        <Input value={name} onChange={(e) => setName(e.target.value)} name="positionName" autoComplete="off" />
      </Field>
      <Field>
        {t('booking.resource.color')}
        <Input type="color" value={color} onChange={(e) => setColor(e.target.value)} name="positionColor" />
      </Field>
      <CloseSave onClose={onClose} onSave={save} busy={busy} />
    </Pane>
  );
}

// A copy of set with keys added (on) or taken out (off).
function withKeys(set: Set<string>, keys: string[], on: boolean): Set<string> {
  const next = new Set(set);
  for (const k of keys) {
    if (on) next.add(k);
    else next.delete(k);
  }
  return next;
}

// The Close and Save buttons that end the Recurso and Grelha tabs.
function CloseSave({ onClose, onSave, busy }: { onClose: () => void; onSave: () => void; busy: boolean }) {
  const { t } = useTranslation();
  return (
    <Actions>
      <Button type="button" $variant="ghost" onClick={onClose}>
        {t('booking.actions.close')}
      </Button>
      <Button type="button" onClick={onSave} disabled={busy}>
        {t('booking.actions.save')}
      </Button>
    </Actions>
  );
}

function GridPane({
  userId,
  position,
  onClose,
  now,
  version,
}: {
  userId: ID;
  position: Position;
  onClose: () => void;
  now: () => Date;
  version: number;
}) {
  const { t } = useTranslation();
  // The grid opens on the current week, or on the next one on a Sunday (the grid has
  // no Sunday, so the current week holds nothing left to change).
  const [monday, setMonday] = useState(() => {
    const today = nowInZone(now()).slice(0, 10);
    return mondayOf(weekdayIndex(today) === 6 ? addDays(today, 1) : today);
  });
  const [on, setOn] = useState<Set<string>>(new Set());
  const [booked, setBooked] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    bookingApi.futureSlots(position.positionId, userId).then((r) => {
      const slots = r.futureSlots ?? [];
      setOn(new Set(slots.map(slotKey)));
      setBooked(new Set(slots.filter((s) => s.booked).map(slotKey)));
    }, toastError);
  }, [position.positionId, userId]);
  useEffect(load, [load, version]);

  const days = weekDays(monday);
  const current = nowInZone(now());
  const toggle = (key: string) =>
    setOn((s) => {
      const next = new Set(s);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const save = async () => {
    const end = addDays(monday, 7);
    const toInsert = [...on].filter((k) => k >= monday && k < end && k > current).sort();
    setBusy(true);
    try {
      await bookingApi.insertByGrid([{ userId, positionId: position.positionId, weekStart: monday, toInsert }]);
      toast.success(t('booking.grid.saved'));
    } catch (err) {
      toast.error(rawError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Pane>
      <Row $gap={8}>
        <Button type="button" $variant="ghost" $small onClick={() => setMonday((m) => addDays(m, -7))}>
          {t('booking.grid.previousWeek')}
        </Button>
        <Muted>{t('booking.grid.week', { from: days[0], to: days[5] })}</Muted>
        <Button type="button" $variant="ghost" $small onClick={() => setMonday((m) => addDays(m, 7))}>
          {t('booking.grid.nextWeek')}
        </Button>
      </Row>
      <GridTable role="grid" aria-label={t('booking.tabs.grid')}>
        <thead>
          <tr>
            <th />
            {days.map((d, i) => (
              <th key={d} scope="col">
                {t(`booking.grid.days.${i}` as 'booking.grid.days.0')} {d.slice(8, 10)}/{d.slice(5, 7)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {gridHours.map((h) => (
            <tr key={h}>
              <th scope="row">{h}</th>
              {days.map((d, i) => {
                const key = `${d} ${h}`;
                const label = t('booking.grid.cell', { day: t(`booking.grid.days.${i}` as 'booking.grid.days.0'), hour: `${d} ${h}` });
                return (
                  <td key={key}>
                    <Cell
                      type="button"
                      aria-label={label}
                      aria-pressed={on.has(key)}
                      $on={on.has(key)}
                      $color={position.positionColor}
                      disabled={key <= current || booked.has(key)}
                      onClick={() => toggle(key)}
                      data-slot={key}
                    />
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </GridTable>
      <CloseSave onClose={onClose} onSave={save} busy={busy} />
    </Pane>
  );
}

function AgendaPane({ userId, position, onClose, version }: { userId: ID; position: Position; onClose: () => void; version: number }) {
  const { t } = useTranslation();
  const [days, setDays] = useState(14);
  const [loaded, setLoaded] = useState<{ available: Slot[]; future: Slot[] }>({ available: [], future: [] });
  // Pending moves, by slot key: added to the schedule, removed from it.
  const [added, setAdded] = useState<Set<string>>(new Set());
  const [removed, setRemoved] = useState<Set<string>>(new Set());
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [day, setDay] = useState('');
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    Promise.all([bookingApi.availableSlots(position.positionId, userId, days), bookingApi.futureSlots(position.positionId, userId)]).then(
      ([a, f]) => {
        setLoaded({ available: a.availableSlots ?? [], future: f.futureSlots ?? [] });
        setAdded(new Set());
        setRemoved(new Set());
        setPicked(new Set());
      },
      toastError,
    );
  }, [position.positionId, userId, days]);
  useEffect(load, [load, version]);

  const available = useMemo(
    () => [...loaded.available.map(slotKey).filter((k) => !added.has(k)), ...removed].sort(),
    [loaded.available, added, removed],
  );
  const bookedKeys = useMemo(() => new Set(loaded.future.filter((s) => s.booked).map(slotKey)), [loaded.future]);
  const future = useMemo(
    () => [...loaded.future.map(slotKey).filter((k) => !removed.has(k)), ...added].sort(),
    [loaded.future, added, removed],
  );
  const availableDays = useMemo(() => [...new Set(available.map((k) => k.slice(0, 10)))], [available]);

  const pick = (key: string) => setPicked((s) => withKeys(s, [key], !s.has(key)));
  // The switches select in the available grade: all of it, or one day, or the mornings
  // (before 12:30) or afternoons (from 12:30) of the chosen day (of every day when none).
  const select = (keep: (k: string) => boolean, checked: boolean) => setPicked((s) => withKeys(s, available.filter(keep), checked));
  const inDay = (k: string) => !day || k.startsWith(day);
  // A move to the future slots adds the keys the server does not have yet and takes
  // back pending removals; a move back does the mirror image.
  const move = (toFuture: boolean) => {
    const keys = [...picked].filter((k) => (toFuture ? available : future).includes(k) && !bookedKeys.has(k));
    const fromServerFuture = new Set(loaded.future.map(slotKey));
    const pendingIn = toFuture ? setAdded : setRemoved;
    const pendingOut = toFuture ? setRemoved : setAdded;
    pendingIn((a) => withKeys(a, keys.filter((k) => fromServerFuture.has(k) !== toFuture), true));
    pendingOut((r) => withKeys(r, keys, false));
    setPicked(new Set());
  };
  const save = async () => {
    setBusy(true);
    try {
      await bookingApi.insertAvailability([{ userId, positionId: position.positionId, toInsert: [...added].sort(), toRemove: [...removed].sort() }]);
      toast.success(t('booking.agenda.saved'));
      load();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const list = (keys: string[], label: string) => (
    <SlotList aria-label={label}>
      <legend>{label}</legend>
      {keys.length === 0 && <Muted>{t('booking.agenda.empty')}</Muted>}
      {keys.map((k) => (
        <label key={k}>
          <input type="checkbox" checked={picked.has(k)} disabled={bookedKeys.has(k) && !removed.has(k)} onChange={() => pick(k)} />
          {k} {bookedKeys.has(k) && <Muted>({t('booking.agenda.booked')})</Muted>}
        </label>
      ))}
    </SlotList>
  );
  return (
    <Pane>
      <Row $gap={12} $wrap>
        <label>
          <Switch onChange={(e) => select(() => true, e.target.checked)} /> {t('booking.agenda.all')}
        </label>
        <label>
          {t('booking.agenda.chooseDay')}{' '}
          <Select value={day} onChange={(e) => setDay(e.target.value)} name="day">
            <option value="">—</option>
            {availableDays.map((d) => (
              <option key={d} value={d}>
                {t(`booking.grid.days.${weekdayIndex(d)}` as 'booking.grid.days.0')} {d}
              </option>
            ))}
          </Select>
        </label>
        <label>
          <Switch disabled={!day} onChange={(e) => select((k) => k.startsWith(day), e.target.checked)} /> {t('booking.agenda.day')}
        </label>
        <label>
          <Switch onChange={(e) => select((k) => inDay(k) && k.slice(11) < afternoonFrom, e.target.checked)} /> {t('booking.agenda.morning')}
        </label>
        <label>
          <Switch onChange={(e) => select((k) => inDay(k) && k.slice(11) >= afternoonFrom, e.target.checked)} /> {t('booking.agenda.afternoon')}
        </label>
      </Row>
      <Lists>
        {list(available, t('booking.agenda.available'))}
        <MoveButtons>
          <Button type="button" $small aria-label={t('booking.agenda.add')} title={t('booking.agenda.add')} onClick={() => move(true)}>
            →
          </Button>
          <Button type="button" $small aria-label={t('booking.agenda.remove')} title={t('booking.agenda.remove')} onClick={() => move(false)}>
            ←
          </Button>
        </MoveButtons>
        {list(future, t('booking.agenda.future'))}
      </Lists>
      <Actions>
        <Button type="button" $variant="ghost" onClick={load}>
          {t('booking.agenda.reset')}
        </Button>
        <Button type="button" $variant="ghost" onClick={() => setDays((d) => Math.min(d + 14, 120))}>
          {t('booking.agenda.moreDates')}
        </Button>
        <Button type="button" $variant="ghost" onClick={onClose}>
          {t('booking.actions.close')}
        </Button>
        <Button type="button" onClick={save} disabled={busy}>
          {t('booking.actions.save')}
        </Button>
      </Actions>
    </Pane>
  );
}

const Pane = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
`;

const PlaceBox = styled.fieldset`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
`;

const Actions = styled.div`
  display: flex;
  justify-content: flex-end;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space.sm}px;
`;

const GridTable = styled.table`
  border-collapse: collapse;
  font-size: 12px;
  th,
  td {
    padding: 1px 2px;
    text-align: center;
  }
`;

const Cell = styled.button<{ $on: boolean; $color: string }>`
  width: 44px;
  height: 14px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: 2px;
  background: ${({ $on, $color }) => ($on ? $color : 'transparent')};
  cursor: pointer;
  &:disabled {
    cursor: not-allowed;
    opacity: 0.5;
  }
`;

const Lists = styled.div`
  display: grid;
  grid-template-columns: 1fr auto 1fr;
  gap: ${({ theme }) => theme.space.sm}px;
`;

const SlotList = styled.fieldset`
  max-height: 320px;
  overflow-y: auto;
  display: flex;
  flex-direction: column;
  font-size: 13px;
`;

const MoveButtons = styled.div`
  display: flex;
  flex-direction: column;
  justify-content: center;
  gap: ${({ theme }) => theme.space.sm}px;
`;
