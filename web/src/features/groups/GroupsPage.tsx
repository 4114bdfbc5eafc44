// /Groups: the tenant's sequential WhatsApp group batches with their live progress,
// and the Group modal of a new batch (groups:manage: admin and super).
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Muted } from '../../components/primitives';
import { Header, Page, Title } from '../../components/pageStyle';
import { BatchProgress } from './BatchProgress';
import { GroupModal } from './GroupModal';
import { useGroupBatches } from './useGroupBatches';
import { List } from './style';

export default function GroupsPage() {
  const { t } = useTranslation();
  const { items, loading, upsert } = useGroupBatches();
  const [creating, setCreating] = useState(false);
  return (
    <Page>
      <Header>
        <Title>{t('groups.title')}</Title>
        <Button type="button" onClick={() => setCreating(true)}>
          {t('groups.new')}
        </Button>
      </Header>
      <List>
        {!loading && items.length === 0 && <Muted>{t('groups.empty')}</Muted>}
        {items.map((b) => (
          <BatchProgress key={b.id} batch={b} />
        ))}
      </List>
      {creating && <GroupModal onClose={() => setCreating(false)} onSaved={upsert} />}
    </Page>
  );
}
