// New ticket: search a contact (from 3 characters, debounced) and open a ticket for it.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Field, Input, Muted } from '../../components/primitives';
import { MenuItem } from '../../components/Popover';
import { Avatar } from '../../components/Avatar';
import { contactSearchMinChars, useContactSearch } from '../contacts/useContactSearch';
import { useUser } from '../../app/session';
import { toastError } from '../../app/errors';
import { connectionsApi, ticketsApi } from '../../api/endpoints';
import { ticketStore } from '../../machines/ticketStore';
import { toast } from '../../components/toast/toastStore';
import type { Contact } from '../../api/types';
import { reachingConnection } from './reach';

export function NewTicketModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const user = useUser();
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const found = useContactSearch(text, open);
  const [busy, setBusy] = useState(false);

  const create = async (c: Contact) => {
    setBusy(true);
    try {
      // The connection is chosen by what can reach the contact, not left to the
      // tenant's default (which may be the web chat, useless for a phone number).
      const whatsappId = reachingConnection(c.number, await connectionsApi.list());
      if (whatsappId === null) {
        toast.error(t('tickets.newTicket.noChannel', { name: c.name }));
        return;
      }
      const ticket = await ticketsApi.create({ contactId: c.id, userId: user.id, status: 'open', whatsappId });
      ticketStore.upsert(ticket);
      onClose();
      navigate(`/tickets/${ticket.id}`);
    } catch (e) {
      toastError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} title={t('tickets.newTicket.title')}>
      <Field>
        {t('tickets.newTicket.search')}
        <Input value={text} onChange={(e) => setText(e.target.value)} placeholder={t('tickets.newTicket.placeholder')} />
      </Field>
      {text.trim().length > 0 && text.trim().length < contactSearchMinChars && <Muted>{t('tickets.newTicket.minChars')}</Muted>}
      <div role="listbox" aria-label={t('tickets.newTicket.results')}>
        {found.map((c) => (
          <MenuItem key={c.id} type="button" role="option" disabled={busy} onClick={() => void create(c)}>
            <Avatar name={c.name} src={c.profilePicUrl} size={28} />
            <span>{c.name}</span>
            <Muted>{c.number}</Muted>
          </MenuItem>
        ))}
      </div>
    </Dialog>
  );
}
