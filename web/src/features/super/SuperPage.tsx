// /Super (spec section 2, Super section): the hosting operator's tenant list — each
// company with its users, connections and tickets — with "new company" (the company
// and its first admin, POST /tenants) and disable / enable (PUT /tenants/{id}). Only
// tenants:manage holders (profile super) reach it; the server refuses everyone else.
// The realtime "tenant" event keeps every super's list current.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { tenantsApi } from '../../api/endpoints';
import { useResource } from '../../app/resources';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { toastError } from '../../app/errors';
import { formatDay } from '../../app/format';
import { toast } from '../../components/toast/toastStore';
import { Badge, Button, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Spinner } from '../../components/Splash';
import { Header, Page, Title } from '../../components/pageStyle';
import type { Tenant, TenantEvent } from '../../api/types';
import { TenantModal } from './TenantModal';
import { Table, TableWrap } from './style';

export default function SuperPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageTenants);
  const list = useResource(manage ? 'tenants' : null, tenantsApi.list);
  const [adding, setAdding] = useState(false);
  const [disabling, setDisabling] = useState<Tenant | null>(null);
  const [busy, setBusy] = useState(false);

  useRealtimeEvent<TenantEvent>('tenant', () => list.reload());
  useResync(() => list.reload());

  const setDisabled = async (tenant: Tenant, disabled: boolean) => {
    setBusy(true);
    try {
      await tenantsApi.setDisabled(tenant.id, disabled);
      toast.success(t(disabled ? 'tenants.disabled' : 'tenants.enabled'));
      setDisabling(null);
      list.reload();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!manage) {
    return (
      <Page>
        <Header>
          <Title>{t('tenants.title')}</Title>
        </Header>
        <Muted>{t('backendErrors.ERR_NO_PERMISSION')}</Muted>
      </Page>
    );
  }

  const tenants = list.data?.tenants ?? [];
  return (
    <Page>
      <Header>
        <Title>{t('tenants.title')}</Title>
        <Button type="button" onClick={() => setAdding(true)}>
          {t('tenants.add')}
        </Button>
      </Header>
      {list.loading && !list.data ? (
        <Spinner />
      ) : tenants.length === 0 ? (
        <Muted>{t('tenants.empty')}</Muted>
      ) : (
        <TableWrap>
          <Table aria-label={t('tenants.title')}>
            <thead>
              <tr>
                <th scope="col">{t('tenants.columns.name')}</th>
                <th scope="col">{t('tenants.columns.state')}</th>
                <th scope="col" className="num">
                  {t('tenants.columns.users')}
                </th>
                <th scope="col" className="num">
                  {t('tenants.columns.connections')}
                </th>
                <th scope="col" className="num">
                  {t('tenants.columns.tickets')}
                </th>
                <th scope="col" className="num">
                  {t('tenants.columns.open')}
                </th>
                <th scope="col" className="num">
                  {t('tenants.columns.pending')}
                </th>
                <th scope="col">{t('tenants.columns.created')}</th>
                <th scope="col">{t('tenants.columns.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {tenants.map((c) => (
                <tr key={c.id} data-testid={`tenant-${c.id}`}>
                  <th scope="row">{c.name}</th>
                  <td>
                    <Badge $tone={c.disabled ? 'danger' : 'success'}>{t(c.disabled ? 'tenants.state.disabled' : 'tenants.state.enabled')}</Badge>
                  </td>
                  <td className="num">{c.users}</td>
                  <td className="num">{c.connections}</td>
                  <td className="num">{c.tickets}</td>
                  <td className="num">{c.openTickets}</td>
                  <td className="num">{c.pendingTickets}</td>
                  <td>{c.createdAt ? formatDay(c.createdAt) : ''}</td>
                  <td>
                    {c.disabled ? (
                      <Button type="button" $small $variant="ghost" disabled={busy} onClick={() => void setDisabled(c, false)}>
                        {t('tenants.enable', { name: c.name })}
                      </Button>
                    ) : (
                      <Button type="button" $small $variant="ghost" disabled={busy} onClick={() => setDisabling(c)}>
                        {t('tenants.disable', { name: c.name })}
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </TableWrap>
      )}
      {adding && (
        <TenantModal
          onClose={() => setAdding(false)}
          onSaved={(c) => {
            toast.success(t('tenants.created', { name: c.name }));
            list.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={!!disabling}
        title={t('tenants.confirmDisable.title')}
        busy={busy}
        confirmLabel={disabling ? t('tenants.disable', { name: disabling.name }) : undefined}
        onConfirm={() => disabling && void setDisabled(disabling, true)}
        onClose={() => setDisabling(null)}
      >
        {disabling && t('tenants.confirmDisable.message', { name: disabling.name })}
      </ConfirmDialog>
    </Page>
  );
}
