// /waitpanel: the wait panel and attendance radar (docs/supervision.md). Pending
// tickets per queue with the longest wait, who is online in each queue, the tickets
// waiting longest, and each attendant's presence and open tickets. The snapshot comes
// from GET /supervision/waitpanel and is read again when the socket reports a ticket or
// presence change (no polling); the waiting clocks tick in the browser from the
// snapshot's timestamps. /waitpanel/wall shows the same full screen in large type,
// without the drawer, for a wall display.
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { useRealtimeEvent, useResync, useRoom } from '../../app/realtime';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { Button, Muted } from '../../components/primitives';
import type { WaitPanel, WaitPanelAttendant, WaitPanelQueue } from '../../api/supervision';
import { waitPanelMachine } from './waitPanel.machine';
import { formatWait, waitedMs } from './format';
import { Big, Clock, Panel, PanelHeader, Presence, QueueCard, QueueGrid, Section, Soft, Table, Totals } from './style';

const pendingRoom = { kind: 'tickets', status: 'pending' } as const;
const openRoom = { kind: 'tickets', status: 'open' } as const;
const noQueueColor = '#5b6570';

// useNow ticks once a second while mounted (the waiting clocks).
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(id);
  }, []);
  return now;
}

function Wait({ since, now, offset }: { since: string; now: number; offset: number }) {
  return <Clock>{formatWait(waitedMs(since, now, offset))}</Clock>;
}

function QueueTile({ q, names, now, offset }: { q: WaitPanelQueue; names: Map<number, string>; now: number; offset: number }) {
  const { t } = useTranslation();
  const name = q.id === 0 ? t('supervision.waitPanel.noQueue') : q.name;
  const online = q.online.map((id) => names.get(id) ?? `#${id}`);
  return (
    <QueueCard $color={q.id === 0 ? noQueueColor : q.color || noQueueColor} data-testid={`waitpanel-queue-${q.id}`}>
      <h2>{name}</h2>
      <Soft>{t('supervision.waitPanel.pending')}</Soft>
      <Big data-testid="queue-pending">{q.pending}</Big>
      <span>
        {t('supervision.waitPanel.longestWait')}:{' '}
        {q.longestWait ? <Wait since={q.longestWait.waitingSince} now={now} offset={offset} /> : <Soft>{t('supervision.waitPanel.nobodyWaiting')}</Soft>}
      </span>
      <span>{t('supervision.waitPanel.openCount', { count: q.open })}</span>
      {q.id !== 0 && (
        <span data-testid="queue-online">
          {online.length === 0 ? <Soft>{t('supervision.waitPanel.nobodyOnline')}</Soft> : t('supervision.waitPanel.onlineIn', { names: online.join(', ') })}
        </span>
      )}
    </QueueCard>
  );
}

function sortAttendants(list: WaitPanelAttendant[]): WaitPanelAttendant[] {
  return [...list].sort((a, b) => Number(b.online) - Number(a.online) || b.open - a.open || a.name.localeCompare(b.name));
}

function PanelBody({ panel, offset, wall }: { panel: WaitPanel; offset: number; wall: boolean }) {
  const { t } = useTranslation();
  const now = useNow();
  const names = useMemo(() => new Map(panel.attendants.map((a) => [a.id, a.name])), [panel.attendants]);
  const queueNames = useMemo(() => new Map(panel.queues.map((q) => [q.id, q.id === 0 ? t('supervision.waitPanel.noQueue') : q.name])), [panel.queues, t]);
  const online = panel.attendants.filter((a) => a.online).length;
  return (
    <>
      <Totals>
        <div>
          <dt>{t('supervision.waitPanel.pending')}</dt>
          <dd data-testid="total-pending">{panel.pending}</dd>
        </div>
        <div>
          <dt>{t('supervision.waitPanel.open')}</dt>
          <dd>{panel.open}</dd>
        </div>
        <div>
          <dt>{t('supervision.waitPanel.online')}</dt>
          <dd data-testid="total-online">{online}</dd>
        </div>
      </Totals>
      <Section aria-labelledby="waitpanel-queues">
        <h2 id="waitpanel-queues">{t('supervision.waitPanel.queues')}</h2>
        {panel.queues.length === 0 ? (
          <Muted>{t('supervision.waitPanel.noQueues')}</Muted>
        ) : (
          <QueueGrid>
            {panel.queues.map((q) => (
              <QueueTile key={q.id} q={q} names={names} now={now} offset={offset} />
            ))}
          </QueueGrid>
        )}
      </Section>
      <Section aria-labelledby="waitpanel-waiting">
        <h2 id="waitpanel-waiting">{t('supervision.waitPanel.waitingList')}</h2>
        {panel.waiting.length === 0 ? (
          <Muted>{t('supervision.waitPanel.waitingEmpty')}</Muted>
        ) : (
          <Table>
            <thead>
              <tr>
                <th scope="col">{t('supervision.waitPanel.contact')}</th>
                <th scope="col">{t('supervision.waitPanel.queue')}</th>
                <th scope="col">{t('supervision.waitPanel.waitingFor')}</th>
              </tr>
            </thead>
            <tbody>
              {panel.waiting.map((tk) => (
                <tr key={tk.id} data-testid={`waitpanel-ticket-${tk.id}`}>
                  <td>{wall ? tk.contactName : <Link to={`/tickets/${tk.id}`}>{tk.contactName || `#${tk.id}`}</Link>}</td>
                  <td>{queueNames.get(tk.queueId) ?? t('supervision.waitPanel.noQueue')}</td>
                  <td>
                    <Wait since={tk.waitingSince} now={now} offset={offset} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Section>
      <Section id="radar" aria-labelledby="waitpanel-radar">
        <h2 id="waitpanel-radar">{t('supervision.waitPanel.radar')}</h2>
        <Table>
          <thead>
            <tr>
              <th scope="col">{t('supervision.waitPanel.attendant')}</th>
              <th scope="col">{t('supervision.waitPanel.status')}</th>
              <th scope="col">{t('supervision.waitPanel.queues')}</th>
              <th scope="col">{t('supervision.waitPanel.openTickets')}</th>
            </tr>
          </thead>
          <tbody>
            {sortAttendants(panel.attendants).map((a) => (
              <tr key={a.id} data-testid={`radar-user-${a.id}`} data-online={a.online}>
                <td>{a.name}</td>
                <td>
                  <Presence $online={a.online}>{t(a.online ? 'supervision.waitPanel.onlineLabel' : 'supervision.waitPanel.offlineLabel')}</Presence>
                </td>
                <td>{a.queueIds.map((id) => queueNames.get(id) ?? `#${id}`).join(', ')}</td>
                <td>{a.open}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      </Section>
    </>
  );
}

// Live is the panel's data side, mounted only for those allowed to read it.
function Live({ wall }: { wall: boolean }) {
  const { t } = useTranslation();
  const actor = useActorRef(waitPanelMachine);
  const panel = useSelector(actor, (s) => s.context.panel);
  const offset = useSelector(actor, (s) => s.context.clockOffset);
  const failed = useSelector(actor, (s) => s.matches('failed'));
  const changed = () => actor.send({ type: 'panel.changed' });
  useRoom(pendingRoom);
  useRoom(openRoom);
  useRealtimeEvent('ticket', changed);
  useRealtimeEvent('presence', changed);
  useResync(changed);
  if (failed) {
    return (
      <Muted role="alert">
        {t('supervision.loadError')}{' '}
        <Button type="button" $small onClick={() => actor.send({ type: 'panel.retry' })}>
          {t('supervision.retry')}
        </Button>
      </Muted>
    );
  }
  return panel ? <PanelBody panel={panel} offset={offset} wall={wall} /> : <Muted>{t('supervision.loading')}</Muted>;
}

export default function WaitPanelPage({ wall = false }: { wall?: boolean }) {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const allowed = can(perms.supervisionMenu);
  const fullScreen = () => {
    void document.documentElement.requestFullscreen?.().catch(() => undefined);
  };
  return (
    <Panel as={wall ? 'main' : 'div'} $wall={wall} aria-labelledby="waitpanel-title" data-testid="waitpanel">
      <PanelHeader>
        <h1 id="waitpanel-title">{t('supervision.waitPanel.title')}</h1>
        {wall ? (
          <>
            <Button type="button" $variant="secondary" onClick={fullScreen}>
              {t('supervision.waitPanel.fullScreen')}
            </Button>
            <Link to="/waitpanel">{t('supervision.waitPanel.exitWall')}</Link>
          </>
        ) : (
          <Link to="/waitpanel/wall">{t('supervision.waitPanel.wallScreen')}</Link>
        )}
      </PanelHeader>
      {allowed ? <Live wall={wall} /> : <Muted role="alert">{t('supervision.noPermission')}</Muted>}
    </Panel>
  );
}
