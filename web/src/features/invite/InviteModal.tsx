// Invite a colleague to the ticket (spec section 2, chat header; PUT /ticketinvite/{id}):
// a user picker of the tenant's staff, less the caller and the ticket's holder. The
// server decides who may invite and whom (403 / 404 come back as toasts).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, Select } from '../../components/primitives';
import { useResource } from '../../app/resources';
import { useUser } from '../../app/session';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { ticketInviteApi, usersApi } from '../../api/endpoints';
import type { Ticket } from '../../api/types';

export function InviteModal({ ticket, onClose }: { ticket: Ticket; onClose: () => void }) {
  const { t } = useTranslation();
  const me = useUser();
  const users = useResource('users:list', usersApi.list);
  const [userId, setUserId] = useState('');
  const [busy, setBusy] = useState(false);
  const choices = (users.data ?? []).filter((u) => u.id !== me.id && u.id !== ticket.userId);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const chosen = choices.find((u) => String(u.id) === userId);
    if (!chosen) return;
    setBusy(true);
    ticketInviteApi
      .invite(ticket.id, chosen.id, me.id)
      .then(() => {
        toast.success(t('invite.sent', { name: chosen.name }));
        onClose();
      })
      .catch(toastError)
      .finally(() => setBusy(false));
  };
  return (
    <Dialog
      open
      onClose={onClose}
      title={t('invite.title')}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="invite-form" disabled={!userId || busy}>
            {t('invite.send')}
          </Button>
        </>
      }
    >
      <form id="invite-form" onSubmit={submit}>
        <Field>
          {t('invite.user')}
          <Select name="userId" value={userId} onChange={(e) => setUserId(e.target.value)}>
            <option value="">{t('invite.choose')}</option>
            {choices.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </Select>
        </Field>
      </form>
    </Dialog>
  );
}
