// The routes of spec section 2. The inbox (/ and /tickets/:ticketId?) is in the first
// bundle; every other page is loaded on demand.
import { lazy, Suspense, type ReactNode } from 'react';
import { Outlet, type RouteObject } from 'react-router';
import { PrivateRoute, PublicRoute } from './guards';
import { AppShell } from './AppShell';
import { MainLayout } from '../features/layout/MainLayout';
import { TicketsPage } from '../features/tickets/TicketsPage';
import { Splash } from '../components/Splash';

const LoginPage = lazy(() => import('../features/login/LoginPage'));
const UpgradeInfoPage = lazy(() => import('../features/upgrade/UpgradeInfoPage'));
const NotFoundPage = lazy(() => import('../features/notFound/NotFoundPage'));
const ContactsPage = lazy(() => import('../features/contacts/ContactsPage'));
const ConnectionsPage = lazy(() => import('../features/connections/ConnectionsPage'));
const UsersPage = lazy(() => import('../features/users/UsersPage'));
const QuickAnswersPage = lazy(() => import('../features/quickAnswers/QuickAnswersPage'));
const SettingsPage = lazy(() => import('../features/settings/SettingsPage'));
const QueuesPage = lazy(() => import('../features/queues/QueuesPage'));
const TagsPage = lazy(() => import('../features/tags/TagsPage'));
const AnnouncementsPage = lazy(() => import('../features/announcements/AnnouncementsPage'));
const AgendaPage = lazy(() => import('../features/agenda/AgendaPage'));
const CatalogPage = lazy(() => import('../features/catalog/CatalogPage'));
const CategoriesPage = lazy(() => import('../features/catalog/CategoriesPage'));
const ScheduledMessagesPage = lazy(() => import('../features/scheduledMessages/ScheduledMessagesPage'));
const SuperPage = lazy(() => import('../features/super/SuperPage'));
const SupportPage = lazy(() => import('../features/super/SupportPage'));
const GoogleCalendarPage = lazy(() => import('../features/googleCalendar/GoogleCalendarPage'));
const AttendantCallPage = lazy(() => import('../features/videoCall/AttendantCallPage'));
const CustomerCallPage = lazy(() => import('../features/videoCall/CustomerCallPage'));
const DashboardPage = lazy(() => import('../features/dashboard/DashboardPage'));
const ChatsPage = lazy(() => import('../features/internalChat/ChatsPage'));
const WaitPanelPage = lazy(() => import('../features/waitpanel/WaitPanelPage'));
const ClientMapPage = lazy(() => import('../features/clientmap/ClientMapPage'));
const MessagingApiPage = lazy(() => import('../features/messagingApi/MessagingApiPage'));
const NewTicketPage = lazy(() => import('../features/tickets/NewTicketPage'));
const BotsPage = lazy(() => import('../features/bots/BotsPage'));
const BizFlowPage = lazy(() => import('../features/bizflow/BizFlowPage'));
const AIConfigPage = lazy(() => import('../features/ai/AIConfigPage'));
const NLPConfigPage = lazy(() => import('../features/ai/NLPConfigPage'));
const CampaignPage = lazy(() => import('../features/campaigns/CampaignPage'));
const BroadcastsPage = lazy(() => import('../features/campaigns/BroadcastsPage'));
const GroupsPage = lazy(() => import('../features/groups/GroupsPage'));
const GroupJoinPage = lazy(() => import('../features/groups/GroupJoinPage'));

function Lazy({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Splash />}>{children}</Suspense>;
}

export const routes: RouteObject[] = [
  // The customer's video call page: public, authorised by the link's call token; no
  // session of the app (docs/calls.md).
  {
    path: '/call/:token',
    element: (
      <Lazy>
        <CustomerCallPage />
      </Lazy>
    ),
  },
  {
    element: <AppShell />,
    children: [
      // The attendant's video call popout: signed in, without the main layout.
      {
        path: '/video-call/:callId',
        element: (
          <PrivateRoute>
            <Lazy>
              <AttendantCallPage />
            </Lazy>
          </PrivateRoute>
        ),
      },
      {
        path: '/login',
        element: (
          <PublicRoute>
            <Lazy>
              <LoginPage />
            </Lazy>
          </PublicRoute>
        ),
      },
      {
        path: '/groupjoin',
        element: (
          <PublicRoute>
            <Lazy>
              <GroupJoinPage />
            </Lazy>
          </PublicRoute>
        ),
      },
      {
        // The wait panel's wall-screen mode: the whole screen, no drawer or top bar.
        path: '/waitpanel/wall',
        element: (
          <PrivateRoute>
            <Lazy>
              <WaitPanelPage wall />
            </Lazy>
          </PrivateRoute>
        ),
      },
      {
        path: '/',
        element: (
          <PrivateRoute>
            <MainLayout>
              <Outlet />
            </MainLayout>
          </PrivateRoute>
        ),
        children: [
          { index: true, element: <TicketsPage /> },
          { path: 'tickets/:ticketId?', element: <TicketsPage /> },
          {
            path: 'contacts',
            element: (
              <Lazy>
                <ContactsPage />
              </Lazy>
            ),
          },
          ...(
            [
              ['users', UsersPage],
              ['quickAnswers', QuickAnswersPage],
              ['Settings', SettingsPage],
              ['Queues', QueuesPage],
              ['Tags', TagsPage],
              ['connections', ConnectionsPage],
              ['announcements', AnnouncementsPage],
              ['catalog', CatalogPage],
              ['Bots', BotsPage],
              ['Categories', CategoriesPage],
              ['scheduledMessages', ScheduledMessagesPage],
              ['Super', SuperPage],
              ['Support', SupportPage],
              ['tableaux', DashboardPage],
              ['googlecalendar', GoogleCalendarPage],
              ['MessagingAPI', MessagingApiPage],
              ['newticket', NewTicketPage],
              ['BizFlow', BizFlowPage],
              ['iaconfig', AIConfigPage],
              ['NLPConfig', NLPConfigPage],
              ['Campaign', CampaignPage],
              ['Broadcasts', BroadcastsPage],
              ['Groups', GroupsPage],
            ] as const
          ).map(([path, Page]) => ({
            path,
            element: (
              <Lazy>
                <Page />
              </Lazy>
            ),
          })),
          ...(['calendar', 'kanban'] as const).map((view) => ({
            path: view === 'calendar' ? 'advscheduler' : 'Kanban',
            element: (
              <Lazy>
                <AgendaPage view={view} />
              </Lazy>
            ),
          })),
          {
            path: 'chats/:id?',
            element: (
              <Lazy>
                <ChatsPage />
              </Lazy>
            ),
          },
          {
            path: 'waitpanel',
            element: (
              <Lazy>
                <WaitPanelPage />
              </Lazy>
            ),
          },
          ...(['ClientMap', 'LeafletMap'] as const).map((path) => ({
            path,
            element: (
              <Lazy>
                <ClientMapPage variant={path === 'LeafletMap' ? 'leaflet' : 'client'} />
              </Lazy>
            ),
          })),
          {
            path: 'upgradeinfo',
            element: (
              <Lazy>
                <UpgradeInfoPage />
              </Lazy>
            ),
          },
          {
            path: '*',
            element: (
              <Lazy>
                <NotFoundPage />
              </Lazy>
            ),
          },
        ],
      },
    ],
  },
];
