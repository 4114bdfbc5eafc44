// /BizFlow: the tenant's flows (flows:manage, superv and up) and the editor of one.
// The realtime "flow" event keeps the list current in every supervisor's browser.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { connectionsApi, queuesApi, tagsApi, usersApi } from '../../api/endpoints';
import { flowsApi, type Flow } from '../../api/flows';
import { useResource } from '../../app/resources';
import { useRealtimeEvent } from '../../app/realtime';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { toastError } from '../../app/errors';
import { Badge, Button, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Header, ListArea, Page, Title } from '../../components/pageStyle';
import { FlowEditor } from './FlowEditor';
import { FlowList, FlowRow } from './style';

const loadFlows = () => flowsApi.list().then((r) => r.flows);

export default function BizFlowPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const allowed = can(perms.manageFlows);
  const flows = useResource(allowed ? 'bizflow:flows' : null, loadFlows);
  const tags = useResource(allowed ? 'bizflow:tags' : null, tagsApi.list);
  const queues = useResource(allowed ? 'bizflow:queues' : null, queuesApi.list);
  const users = useResource(allowed ? 'bizflow:users' : null, usersApi.list);
  const connections = useResource(allowed ? 'bizflow:connections' : null, connectionsApi.list);
  const [editing, setEditing] = useState<Flow | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Flow | null>(null);
  useRealtimeEvent('flow', () => flows.reload());

  if (editing !== null) {
    return (
      <FlowEditor
        key={editing === 'new' ? 'new' : editing.id}
        flow={editing === 'new' ? null : editing}
        tags={tags.data ?? []}
        queues={queues.data ?? []}
        users={users.data ?? []}
        connections={connections.data ?? []}
        onSaved={(f) => {
          flows.reload();
          setEditing(f);
        }}
        onBack={() => setEditing(null)}
      />
    );
  }
  const list = flows.data ?? [];
  return (
    <Page>
      <Header>
        <Title>{t('bizflow.title')}</Title>
        {allowed && (
          <Button type="button" onClick={() => setEditing('new')} data-testid="flow-new">
            {t('bizflow.new')}
          </Button>
        )}
      </Header>
      <Muted>{t('bizflow.subtitle')}</Muted>
      <ListArea>
        {list.length === 0 && !flows.loading ? (
          <p>{t('bizflow.empty')}</p>
        ) : (
          <FlowList aria-label={t('bizflow.list')}>
            {list.map((f) => (
              <FlowRow key={f.id} data-testid={`flow-${f.id}`}>
                <strong>{f.name}</strong>
                <Badge $tone={f.isActive ? 'success' : 'muted'}>{f.isActive ? t('bizflow.active') : t('bizflow.inactive')}</Badge>
                <Muted>{t('bizflow.nodeCount', { count: f.dataJson.nodes.length })}</Muted>
                <span style={{ flex: 1 }} />
                <Button type="button" $small onClick={() => setEditing(f)}>
                  {t('bizflow.edit')}
                </Button>
                <Button type="button" $small $variant="danger" onClick={() => setDeleting(f)}>
                  {t('bizflow.delete')}
                </Button>
              </FlowRow>
            ))}
          </FlowList>
        )}
      </ListArea>
      <ConfirmDialog
        open={deleting !== null}
        title={t('bizflow.deleteTitle')}
        confirmLabel={t('bizflow.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          try {
            await flowsApi.remove(deleting.id);
            flows.reload();
          } catch (err) {
            toastError(err);
          }
          setDeleting(null);
        }}
      >
        {t('bizflow.deleteBody', { name: deleting?.name ?? '' })}
      </ConfirmDialog>
    </Page>
  );
}
