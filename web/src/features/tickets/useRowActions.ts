import { useCallback, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useUser, usePermissions } from '../../app/session';
import { toastError } from '../../app/errors';
import { runTicketCommand } from './ticketCommands';
import type { ID, Ticket } from '../../api/types';
import type { TransferTarget } from '../../machines/ticket.machine';

// The row buttons' behaviour: open/spy navigate, accept and transfer go through the
// ticket machine and then navigate as spec section 4 says.
export function useRowActions() {
  const navigate = useNavigate();
  const user = useUser();
  const { list } = usePermissions();
  const [transferring, setTransferring] = useState<Ticket | null>(null);
  const ctx = useMemo(() => ({ userId: user.id, permissions: list }), [user.id, list]);

  const onOpen = useCallback((id: ID) => navigate(`/tickets/${id}`), [navigate]);
  const onSpy = onOpen;
  const onAccept = useCallback(
    (ticket: Ticket) =>
      runTicketCommand(ticket, ctx, { type: 'ticket.accept' }, {
        onChanged: (e) => navigate(e.openForMe ? `/tickets/${e.ticket.id}` : '/tickets'),
        onFailed: toastError,
      }),
    [ctx, navigate],
  );
  const onTransfer = useCallback((ticket: Ticket) => setTransferring(ticket), []);
  const submitTransfer = useCallback(
    (target: TransferTarget) => {
      if (!transferring) return;
      runTicketCommand(transferring, ctx, { type: 'ticket.transfer', ...target }, {
        onChanged: () => navigate('/tickets'),
        onFailed: toastError,
      });
    },
    [ctx, navigate, transferring],
  );
  return {
    actions: { onOpen, onSpy, onAccept, onTransfer },
    transferring,
    closeTransfer: () => setTransferring(null),
    submitTransfer,
  };
}
