import { useTranslation } from 'react-i18next';
import { appVersion } from '../../app/version';
import { PageBody, PageTitle } from '../notFound/style';

export default function UpgradeInfoPage() {
  const { t } = useTranslation();
  return (
    <PageBody>
      <PageTitle>{t('pages.upgradeInfo.title')}</PageTitle>
      <h2>{t('pages.upgradeInfo.version', { version: appVersion })}</h2>
      <p>{t('pages.upgradeInfo.summary')}</p>
    </PageBody>
  );
}
