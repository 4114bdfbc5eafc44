// The invitations a user receives (spec section 3, Invitation; the socket event
// "invitation"): each shows as a notice with the inviter, the customer and accept /
// decline. Accepting opens the ticket for both: the invitee's page goes to it (the
// server made the user its guest) and so does the inviter's when told of the accept;
// declining tells the inviter. The inviter is told of each answer by a toast. The pending
// notices are loaded from the server (GET /ticketinvite) when the page starts and after
// the socket had to resync, so a reload or a lost connection does not drop them.
import { useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { useUser } from '../../app/session';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { Avatar } from '../../components/Avatar';
import { Button } from '../../components/primitives';
import { ticketInviteApi } from '../../api/endpoints';
import type { ID, InvitationEvent } from '../../api/types';
import { NoticeActions, NoticeBody, NoticeCard, NoticeStack, NoticeTitle } from './style';

// foldInvitation keeps one notice per ticket (a new invitation to the same ticket
// replaces the older one), newest first, for the user the event is for.
export function foldInvitation(list: InvitationEvent[], e: InvitationEvent, me: ID): InvitationEvent[] {
  if (e.action !== 'create' || e.to !== me) return list;
  return [e, ...list.filter((i) => i.ticket !== e.ticket)];
}

// mergePending adds the listed invitations (newest first, as GET /ticketinvite
// answers) to the notices held, one per ticket; a notice that came by socket while the
// list was on its way stays.
export function mergePending(held: InvitationEvent[], listed: readonly InvitationEvent[], me: ID): InvitationEvent[] {
  const fromServer = [...listed].reverse().reduce((acc, e) => foldInvitation(acc, e, me), [] as InvitationEvent[]);
  const newer = held.filter((h) => !fromServer.some((l) => l.ticket === h.ticket && l.dateTime >= h.dateTime));
  return [...newer, ...fromServer.filter((l) => !newer.some((h) => h.ticket === l.ticket))];
}

export function InvitationCenter() {
  const { t } = useTranslation();
  const me = useUser();
  const navigate = useNavigate();
  const [pending, setPending] = useState<InvitationEvent[]>([]);
  const [busy, setBusy] = useState<ID | null>(null);

  // A failed load leaves the notices as they are: the socket still brings new ones.
  const load = useCallback(() => {
    ticketInviteApi
      .pending()
      .then((listed) => setPending((held) => mergePending(held, listed, me.id)))
      .catch(() => undefined);
  }, [me.id]);
  useEffect(load, [load]);
  useResync(load);

  useRealtimeEvent<InvitationEvent>('invitation', (e) => {
    if (e.action === 'create') {
      setPending((list) => foldInvitation(list, e, me.id));
      return;
    }
    if (e.to !== me.id) return;
    toast.info(t(`invite.answer.${e.action}`, { name: e.uTo, contact: e.contact }));
    if (e.action === 'accept') navigate(`/tickets/${e.ticket}`);
  });

  const drop = (ticket: ID) => setPending((list) => list.filter((i) => i.ticket !== ticket));
  const answer = (inv: InvitationEvent, accept: boolean) => {
    setBusy(inv.ticket);
    const call = accept ? ticketInviteApi.accept(inv.ticket) : ticketInviteApi.decline(inv.ticket);
    call
      .then(() => {
        drop(inv.ticket);
        if (accept) navigate(`/tickets/${inv.ticket}`);
      })
      .catch((err) => {
        drop(inv.ticket);
        toastError(err);
      })
      .finally(() => setBusy(null));
  };

  if (pending.length === 0) return null;
  return (
    <NoticeStack>
      {pending.map((inv) => (
        <NoticeCard key={inv.ticket} role="alertdialog" aria-label={t('invite.notice.title')} aria-describedby={`invite-${inv.ticket}`}>
          <Avatar name={inv.contact} src={inv.profilePic} size={36} />
          <div>
            <NoticeTitle>{t('invite.notice.title')}</NoticeTitle>
            <NoticeBody id={`invite-${inv.ticket}`}>{t('invite.notice.body', { from: inv.uFrom, contact: inv.contact })}</NoticeBody>
            <NoticeActions>
              <Button type="button" disabled={busy === inv.ticket} onClick={() => answer(inv, true)}>
                {t('invite.notice.accept')}
              </Button>
              <Button type="button" $variant="ghost" disabled={busy === inv.ticket} onClick={() => answer(inv, false)}>
                {t('invite.notice.decline')}
              </Button>
            </NoticeActions>
          </div>
        </NoticeCard>
      ))}
    </NoticeStack>
  );
}
