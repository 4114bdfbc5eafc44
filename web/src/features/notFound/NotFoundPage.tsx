// Pages of spec section 2 that are not built yet: a titled page that says so.
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageBody, PageTitle } from './style';

export type PlaceholderPageName =
  | 'connections'
  | 'contacts'
  | 'users'
  | 'catalog'
  | 'quickAnswers'
  | 'scheduledMessages'
  | 'bots'
  | 'settings'
  | 'queues'
  | 'campaign'
  | 'categories'
  | 'nlpConfig'
  | 'support'
  | 'super'
  | 'agenda'
  | 'broadcasts'
  | 'tags'
  | 'bizFlow'
  | 'kanban'
  | 'chats'
  | 'groups'
  | 'messagingApi'
  | 'announcements'
  | 'waitPanel'
  | 'clientMap'
  | 'leafletMap'
  | 'newTicket'
  | 'dashboard'
  | 'googleCalendar'
  | 'iaConfig'
  | 'groupJoin'
  | 'notFound';

export default function PlaceholderPage({ name }: { name: PlaceholderPageName }) {
  const { t } = useTranslation();
  return (
    <PageBody>
      <PageTitle>{t(`pages.titles.${name}`)}</PageTitle>
      <p>{name === 'notFound' ? t('pages.notFound') : t('pages.comingSoon')}</p>
      <Link to="/tickets">{t('pages.backToTickets')}</Link>
    </PageBody>
  );
}
