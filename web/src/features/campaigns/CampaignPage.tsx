// /Campaign: the tenant's campaigns with their live progress (sent, error, pending,
// next send time), pause, resume and cancel (a campaign is never removed), the
// per-contact report as CSV, and the form of a new one.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Muted } from '../../components/primitives';
import { Header, Page, Title } from '../../components/pageStyle';
import { CampaignModal } from './CampaignModal';
import { CampaignProgress } from './CampaignProgress';
import { useCampaignList } from './useCampaignList';
import { List } from './style';

export default function CampaignPage() {
  const { t } = useTranslation();
  const { items, loading, upsert } = useCampaignList('campaign');
  const [creating, setCreating] = useState(false);
  return (
    <Page>
      <Header>
        <Title>{t('outbound.campaigns.title')}</Title>
        <Button type="button" onClick={() => setCreating(true)}>
          {t('outbound.campaigns.new')}
        </Button>
      </Header>
      <List>
        {!loading && items.length === 0 && <Muted>{t('outbound.campaigns.empty')}</Muted>}
        {items.map((c) => (
          <CampaignProgress key={c.id} campaign={c} onChange={upsert} />
        ))}
      </List>
      {creating && <CampaignModal onClose={() => setCreating(false)} onSaved={upsert} />}
    </Page>
  );
}
