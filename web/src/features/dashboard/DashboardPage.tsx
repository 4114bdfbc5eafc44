// /tableaux: the supervisors' dashboard (dashboard:view). Numbers come from GET
// /dashboard (the server sums its projections); the page listens to the socket's
// ticket and message events in the notification room and reloads when they arrive
// (the dashboard machine gathers a burst into one reload) — no polling. The chart is
// ECharts, loaded on demand (SeriesChart).
import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMachine } from '@xstate/react';
import { fromPromise } from 'xstate';
import { dashboardApi, type DashboardFilter, type DashboardSatisfaction } from '../../api/dashboard';
import { queuesApi, usersApi } from '../../api/endpoints';
import type { ID } from '../../api/types';
import { errorText } from '../../app/errors';
import { actions as perms } from '../../app/permissions';
import { usePermissions } from '../../app/session';
import { useRealtimeEvent, useResync, useRoom } from '../../app/realtime';
import { useResource } from '../../app/resources';
import { Icon, type IconName } from '../../components/Icon';
import { Button, Field, Input, Muted, Select } from '../../components/primitives';
import { Header, Page, Title } from '../../components/pageStyle';
import { dashboardMachine } from './dashboard.machine';
import { SeriesChart } from './SeriesChart';
import { Card, CardTitle, Detail, Figure, Filters, Grid, Mood, Scroll, Table } from './style';

export const liveDashboardMachine = dashboardMachine.provide({
  actors: { load: fromPromise(({ input }: { input: DashboardFilter }) => dashboardApi.get(input)) },
});

// localDate is d as YYYY-MM-DD in the browser's calendar.
export function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export function defaultFilter(now = new Date()): DashboardFilter {
  const from = new Date(now);
  from.setDate(from.getDate() - 29);
  return { dateFrom: localDate(from), dateTo: localDate(now), queueIds: [] };
}

// duration shows seconds as 45s, 12m 05s, 3h 20m, 2d 4h.
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  const p = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${p(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${p(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

type Level = 'low' | 'medium' | 'high';
const levels: Record<number, Level> = { 1: 'low', 2: 'medium', 3: 'high' };
const moodIcon: Record<Level, IconName> = { low: 'moodBad', medium: 'moodNeutral', high: 'mood' };

function Satisfaction({ s }: { s: DashboardSatisfaction }) {
  const { t } = useTranslation();
  const level = levels[s.icon];
  if (!level) return <Muted>{t('dashboard.satisfaction.none')}</Muted>;
  return (
    <Mood $level={level}>
      <Icon name={moodIcon[level]} size={22} label={t(`dashboard.satisfaction.levels.${level}`)} />
      {s.score.toFixed(1)}
    </Mood>
  );
}

// CountCard is a titled table of (key, label, count) rows.
function CountCard({ title, rows }: { title: string; rows: [string, string, number][] }) {
  return (
    <Card>
      <CardTitle>{title}</CardTitle>
      <Table>
        <tbody>
          {rows.map(([key, label, n]) => (
            <tr key={key}>
              <th scope="row">{label}</th>
              <td>{n}</td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

export default function DashboardPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  if (!can(perms.viewDashboard)) {
    return (
      <Page>
        <Title>{t('dashboard.title')}</Title>
        <p>{t('dashboard.noPermission')}</p>
      </Page>
    );
  }
  return <DashboardView />;
}

// DashboardView is the dashboard of a user with dashboard:view.
function DashboardView() {
  const { t, i18n } = useTranslation();
  const [draft, setDraft] = useState<DashboardFilter>(() => defaultFilter());
  const [state, send] = useMachine(liveDashboardMachine, { input: { filter: draft } });
  const queues = useResource('queues', queuesApi.list);
  const users = useResource('users', usersApi.list);
  useRoom({ kind: 'notification' });
  useRealtimeEvent('ticket', () => send({ type: 'dashboard.changed' }));
  useRealtimeEvent('appMessage', () => send({ type: 'dashboard.changed' }));
  useResync(() => send({ type: 'dashboard.changed' }));
  const [exporting, setExporting] = useState(false);

  const queueName = useMemo(() => new Map((queues.data ?? []).map((q) => [q.id, q.name])), [queues.data]);
  const userName = useMemo(() => new Map((users.data ?? []).map((u) => [u.id, u.name])), [users.data]);
  const money = useMemo(() => new Intl.NumberFormat(i18n.language, { style: 'currency', currency: 'BRL' }), [i18n.language]);
  const nameOf = (m: Map<ID, string>, id: ID | undefined, none: string) => (id ? (m.get(id) ?? `#${id}`) : none);
  const chartLabels = useMemo(
    () => ({
      title: t('dashboard.chart.title'),
      opened: t('dashboard.kpi.opened'),
      resolved: t('dashboard.kpi.resolved'),
      messagesIn: t('dashboard.kpi.messagesIn'),
      messagesOut: t('dashboard.kpi.messagesOut'),
    }),
    [t],
  );

  const d = state.context.data;
  const apply = (e: FormEvent) => {
    e.preventDefault();
    send({ type: 'dashboard.filter', filter: draft });
  };
  const exportCsv = async () => {
    setExporting(true);
    try {
      const csv = await dashboardApi.exportCsv(state.context.filter);
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `dashboard-${state.context.filter.dateFrom}-${state.context.filter.dateTo}.csv`;
      a.click();
      URL.revokeObjectURL(url);
    } finally {
      setExporting(false);
    }
  };

  return (
    <Page>
      <Header>
        <Title>{t('dashboard.title')}</Title>
        <Button type="button" onClick={() => void exportCsv()} disabled={exporting || !d}>
          {t('dashboard.export')}
        </Button>
      </Header>
      <Filters onSubmit={apply} aria-label={t('dashboard.filters')}>
        <Field>
          {t('dashboard.from')}
          <Input type="date" value={draft.dateFrom} max={draft.dateTo} required onChange={(e) => setDraft({ ...draft, dateFrom: e.target.value })} />
        </Field>
        <Field>
          {t('dashboard.to')}
          <Input type="date" value={draft.dateTo} min={draft.dateFrom} required onChange={(e) => setDraft({ ...draft, dateTo: e.target.value })} />
        </Field>
        <Field>
          {t('dashboard.queue')}
          <Select
            value={draft.queueIds[0] ?? ''}
            onChange={(e) => setDraft({ ...draft, queueIds: e.target.value ? [Number(e.target.value)] : [] })}
          >
            <option value="">{t('dashboard.allQueues')}</option>
            {(queues.data ?? []).map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" $variant="primary">
          {t('dashboard.apply')}
        </Button>
        {state.hasTag('busy') && <Muted role="status">{t('dashboard.loading')}</Muted>}
      </Filters>
      {state.context.error != null && <p role="alert">{errorText(state.context.error)}</p>}
      {d && (
        <Scroll data-testid="dashboard" tabIndex={0} role="region" aria-label={t('dashboard.title')}>
          <Grid>
            <Card>
              <CardTitle>{t('dashboard.kpi.opened')}</CardTitle>
              <Figure data-testid="dash-opened">{d.opened}</Figure>
            </Card>
            <Card>
              <CardTitle>{t('dashboard.kpi.resolved')}</CardTitle>
              <Figure data-testid="dash-resolved">{d.resolved}</Figure>
            </Card>
            <Card>
              <CardTitle>{t('dashboard.kpi.messages')}</CardTitle>
              <Figure data-testid="dash-messages-in">{d.messagesIn}</Figure>
              <Detail>{t('dashboard.kpi.messagesOutCount', { count: d.messagesOut })}</Detail>
            </Card>
            <Card>
              <CardTitle>{t('dashboard.kpi.firstResponse')}</CardTitle>
              <Figure>{d.firstResponse.count ? duration(d.firstResponse.median) : '—'}</Figure>
              <Detail>{t('dashboard.kpi.p90', { value: d.firstResponse.count ? duration(d.firstResponse.p90) : '—' })}</Detail>
            </Card>
            <Card>
              <CardTitle>{t('dashboard.kpi.resolution')}</CardTitle>
              <Figure data-testid="dash-resolution">{d.resolution.count ? duration(d.resolution.median) : '—'}</Figure>
              <Detail>{t('dashboard.kpi.p90', { value: d.resolution.count ? duration(d.resolution.p90) : '—' })}</Detail>
            </Card>
            <Card>
              <CardTitle>{t('dashboard.kpi.satisfaction')}</CardTitle>
              <Figure>
                <Satisfaction s={d.satisfaction} />
              </Figure>
              <Detail>{t('dashboard.kpi.answers', { count: d.satisfaction.totalcount })}</Detail>
            </Card>
          </Grid>
          <Grid>
            {(['won', 'lost', 'open'] as const).map((k) => (
              <Card key={k}>
                <CardTitle>{t(`dashboard.opportunities.${k}`)}</CardTitle>
                <Figure>{money.format(d.opportunities[k].cents / 100)}</Figure>
                <Detail>{t('dashboard.opportunities.count', { count: d.opportunities[k].count })}</Detail>
              </Card>
            ))}
          </Grid>
          <Card>
            <CardTitle>{t('dashboard.chart.title')}</CardTitle>
            <SeriesChart series={d.series} labels={chartLabels} />
          </Card>
          <Grid>
            <Card>
              <CardTitle>{t('dashboard.byStatus')}</CardTitle>
              <Table>
                <tbody>
                  {(['pending', 'open', 'closed'] as const).map((st) => (
                    <tr key={st}>
                      <th scope="row">{t(`dashboard.status.${st}`)}</th>
                      <td data-testid={`dash-status-${st}`}>{d.byStatus[st]}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Card>
            <CountCard title={t('dashboard.byQueue')} rows={d.byQueue.map((c) => [String(c.id ?? 0), nameOf(queueName, c.id, t('dashboard.noQueue')), c.n])} />
            <CountCard title={t('dashboard.byUser')} rows={d.byUser.map((c) => [String(c.id ?? 0), nameOf(userName, c.id, t('dashboard.noUser')), c.n])} />
            <CountCard title={t('dashboard.byChannel')} rows={d.byChannel.map((c) => [c.key ?? '', c.key ?? '', c.n])} />
          </Grid>
          <Grid>
            {(
              [
                ['satisfactionByUser', d.satisfactionByUser, userName, 'dashboard.noUser'],
                ['satisfactionByQueue', d.satisfactionByQueue, queueName, 'dashboard.noQueue'],
              ] as const
            ).map(([key, rows, names, none]) => (
              <Card key={key}>
                <CardTitle>{t(`dashboard.${key}`)}</CardTitle>
                {rows.length === 0 ? (
                  <Muted>{t('dashboard.satisfaction.none')}</Muted>
                ) : (
                  <Table>
                    <tbody>
                      {rows.map((s) => (
                        <tr key={s.id ?? 0}>
                          <th scope="row">{nameOf(names, s.id, t(none))}</th>
                          <td>
                            <Satisfaction s={s} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </Table>
                )}
              </Card>
            ))}
          </Grid>
        </Scroll>
      )}
    </Page>
  );
}
