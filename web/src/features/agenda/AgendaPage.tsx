// /advscheduler and /Kanban: the agenda as a calendar or as a kanban board, toggled by
// two header buttons (spec section 2). The calendar and its library load on demand,
// so the kanban board and the first bundle do without them.
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Button } from '../../components/primitives';
import { Splash } from '../../components/Splash';
import { Header, Page, Title } from '../../components/pageStyle';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { KanbanBoard } from './KanbanBoard';
import { AgendaTaskModal } from './AgendaTaskModal';
import { Switcher } from './style';

const CalendarView = lazy(() => import('./CalendarView'));

export type AgendaView = 'calendar' | 'kanban';

export const agendaPaths: Record<AgendaView, string> = { calendar: '/advscheduler', kanban: '/Kanban' };

export default function AgendaPage({ view }: { view: AgendaView }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { can } = usePermissions();
  // The agenda-task modal, opened by the header's "new task" button.
  const [taskOpen, setTaskOpen] = useState(false);
  return (
    <Page>
      <Header>
        <Title>{t('agenda.title')}</Title>
        <Switcher role="group" aria-label={t('agenda.views.switcher')}>
          {(['calendar', 'kanban'] as const).map((v) => (
            <Button
              key={v}
              type="button"
              $variant={v === view ? undefined : 'ghost'}
              aria-pressed={v === view}
              onClick={() => v !== view && navigate(agendaPaths[v])}
            >
              {t(`agenda.views.${v}`)}
            </Button>
          ))}
        </Switcher>
        {can(perms.createScheduledMessage) && (
          <Button type="button" onClick={() => setTaskOpen(true)}>
            {t('agenda.task.newTask')}
          </Button>
        )}
      </Header>
      {taskOpen && <AgendaTaskModal onClose={() => setTaskOpen(false)} />}
      {view === 'calendar' ? (
        <Suspense fallback={<Splash />}>
          <CalendarView />
        </Suspense>
      ) : (
        <KanbanBoard />
      )}
    </Page>
  );
}
