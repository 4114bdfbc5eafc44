// /Support (spec section 2): the version, the health of this node (/readyz) and of
// every node of the cluster (GET /cluster: membership, readiness, hosted actors), and
// a link to the documentation. cluster:view holders (admin, super) see the node list;
// the refresh button asks again (the view is a snapshot, not a stream).
import { useTranslation } from 'react-i18next';
import { supportApi } from '../../api/endpoints';
import { apiBase } from '../../api/client';
import { useResource } from '../../app/resources';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { appVersion } from '../../app/version';
import { Badge, Button, Muted } from '../../components/primitives';
import { Spinner } from '../../components/Splash';
import { Header, Page, Title } from '../../components/pageStyle';
import type { ClusterMember } from '../../api/types';
import { DocsLink, Hint, Section, Table, TableWrap } from './style';

// The project's documentation, versioned with the code: the server serves the copy
// embedded in its binary (docs/*.md rendered, GET /docs/), so the link works offline
// and matches the running version.
export const docsURL = `${apiBase}/docs/`;

const tone: Record<ClusterMember['state'], 'success' | 'danger' | 'muted'> = {
  alive: 'success',
  'not ready': 'danger',
  unreachable: 'danger',
};

export default function SupportPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const view = can(perms.viewCluster);
  const ready = useResource('support:ready', () => supportApi.ready().then(() => true).catch(() => false));
  const cluster = useResource(view ? 'support:cluster' : null, supportApi.cluster);

  return (
    <Page>
      <Header>
        <Title>{t('support.title')}</Title>
        <Button
          type="button"
          $variant="ghost"
          onClick={() => {
            ready.reload();
            if (view) cluster.reload();
          }}
        >
          {t('support.refresh')}
        </Button>
      </Header>
      <Section>
        <h2>{t('support.version', { version: appVersion })}</h2>
        {ready.data !== undefined && (
          <p data-testid="support-ready">
            <Badge $tone={ready.data ? 'success' : 'danger'}>{ready.data ? t('support.state.alive') : t('support.state.not ready')}</Badge>{' '}
            {ready.data ? t('support.ready') : t('support.notReady')}
          </p>
        )}
      </Section>
      {view && (
        <Section aria-labelledby="support-nodes">
          <h2 id="support-nodes">
            {t('support.nodes')}
            {cluster.data && <Muted> — {t(`support.mode.${cluster.data.mode}`)}</Muted>}
          </h2>
          {cluster.loading && !cluster.data ? (
            <Spinner />
          ) : cluster.error ? (
            <Muted role="alert">{t('support.unavailable')}</Muted>
          ) : (
            <TableWrap>
              <Table aria-labelledby="support-nodes">
                <thead>
                  <tr>
                    <th scope="col">{t('support.columns.node')}</th>
                    <th scope="col">{t('support.columns.address')}</th>
                    <th scope="col">{t('support.columns.state')}</th>
                    <th scope="col">{t('support.columns.version')}</th>
                    <th scope="col" className="num">
                      {t('support.columns.tickets')}
                    </th>
                    <th scope="col" className="num">
                      {t('support.columns.connections')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {(cluster.data?.members ?? []).map((m) => (
                    <tr key={m.id} data-testid={`node-${m.state.replace(' ', '-')}`}>
                      <th scope="row">
                        {m.node || m.id}
                        {m.self && <Muted> ({t('support.self')})</Muted>}
                      </th>
                      <td>{m.address}</td>
                      <td>
                        <Badge $tone={tone[m.state]}>{t(`support.state.${m.state}`)}</Badge>
                      </td>
                      <td>{m.version ?? ''}</td>
                      <td className="num">{m.actors.ticket ?? 0}</td>
                      <td className="num">{m.actors.connection ?? 0}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </TableWrap>
          )}
        </Section>
      )}
      <Section>
        <h2>{t('support.docs')}</h2>
        <Hint>
          <DocsLink href={docsURL} target="_blank" rel="noreferrer">
            {t('support.docsHint')}
          </DocsLink>
        </Hint>
      </Section>
    </Page>
  );
}
