// The page of a path no route matches, inside the main layout.
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageBody, PageTitle } from './style';

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <PageBody>
      <PageTitle>{t('pages.titles.notFound')}</PageTitle>
      <p>{t('pages.notFound')}</p>
      <Link to="/tickets">{t('pages.backToTickets')}</Link>
    </PageBody>
  );
}
