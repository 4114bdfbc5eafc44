// Transfer a ticket to a user or a queue (spec section 5: both optional; submit only
// with a ticket id). The connection choice shows only with ticket-options:transferWhatsapp
// and once the connections are loaded: when they cannot be (the route is missing, the
// call failed) or there are none, the modal simply offers user and queue.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, Select } from '../../components/primitives';
import { useResource } from '../../app/resources';
import { usePermissions } from '../../app/session';
import { actions } from '../../app/permissions';
import { connectionsApi, queuesApi, usersApi } from '../../api/endpoints';
import type { ID } from '../../api/types';
import type { TransferTarget } from '../../machines/ticket.machine';

const num = (v: string): ID | null => (v ? Number(v) : null);

export function TransferModal({
  ticketId,
  open,
  onClose,
  onSubmit,
}: {
  ticketId: ID | null;
  open: boolean;
  onClose: () => void;
  onSubmit: (target: TransferTarget) => void;
}) {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const mayChooseConn = can(actions.transferWhatsapp);
  const users = useResource(open ? 'users:list' : null, usersApi.list);
  const queues = useResource(open ? 'queues' : null, queuesApi.list);
  const conns = useResource(open && mayChooseConn ? 'connections' : null, connectionsApi.list);
  const connList = Array.isArray(conns.data) ? conns.data : [];
  const canConn = mayChooseConn && !conns.error && connList.length > 0;
  const [userId, setUserId] = useState('');
  const [queueId, setQueueId] = useState('');
  const [whatsappId, setWhatsappId] = useState('');

  const target: TransferTarget = { userId: num(userId), queueId: num(queueId), whatsappId: canConn ? num(whatsappId) : null };
  const hasTarget = target.userId != null || target.queueId != null || target.whatsappId != null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!ticketId || !hasTarget) return;
    onSubmit(target);
    onClose();
  };

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={t('tickets.transfer.title')}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="transfer-form" disabled={!ticketId || !hasTarget}>
            {t('tickets.transfer.submit')}
          </Button>
        </>
      }
    >
      <form id="transfer-form" onSubmit={submit}>
        <Field>
          {t('tickets.transfer.user')}
          <Select value={userId} onChange={(e) => setUserId(e.target.value)}>
            <option value="">{t('tickets.transfer.none')}</option>
            {(users.data ?? []).map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </Select>
        </Field>
        <Field>
          {t('tickets.transfer.queue')}
          <Select value={queueId} onChange={(e) => setQueueId(e.target.value)}>
            <option value="">{t('tickets.transfer.none')}</option>
            {(queues.data ?? []).map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </Select>
        </Field>
        {canConn && (
          <Field>
            {t('tickets.transfer.connection')}
            <Select value={whatsappId} onChange={(e) => setWhatsappId(e.target.value)}>
              <option value="">{t('tickets.transfer.none')}</option>
              {connList.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </Select>
          </Field>
        )}
      </form>
    </Dialog>
  );
}
