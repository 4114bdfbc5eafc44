// Ticket history popup (POST /tickets/{id}); times in the Brazilian locale, Cuiabá zone.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Splash } from '../../components/Splash';
import { Muted } from '../../components/primitives';
import { ticketsApi } from '../../api/endpoints';
import { formatCuiaba } from '../../app/format';
import { toastError } from '../../app/errors';
import type { HistoryEntry, ID } from '../../api/types';
import { HistoryTable } from './style';

// The actions the server records (engine/ticket_history.go); anything else is shown as
// the server sent it.
const historyActions = ['create', 'accept', 'resolve', 'return', 'reopen', 'transfer', 'delete'] as const;
type HistoryAction = (typeof historyActions)[number];

const isHistoryAction = (code: string): code is HistoryAction => (historyActions as readonly string[]).includes(code);

export function HistoryModal({ ticketId, open, onClose }: { ticketId: ID; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [entries, setEntries] = useState<HistoryEntry[] | null>(null);
  useEffect(() => {
    if (!open) return;
    let live = true;
    setEntries(null);
    ticketsApi.history(ticketId).then(
      (h) => live && setEntries(h ?? []),
      (e) => {
        if (!live) return;
        toastError(e);
        setEntries([]);
      },
    );
    return () => {
      live = false;
    };
  }, [open, ticketId]);
  return (
    <Dialog open={open} onClose={onClose} title={t('chat.history.title')} width={720}>
      {entries === null ? (
        <Splash />
      ) : entries.length === 0 ? (
        <Muted>{t('chat.history.empty')}</Muted>
      ) : (
        <HistoryTable>
          <thead>
            <tr>
              <th>{t('chat.history.when')}</th>
              <th>{t('chat.history.action')}</th>
              <th>{t('chat.history.user')}</th>
              <th>{t('chat.history.queue')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((h) => (
              <tr key={h.id}>
                <td>{formatCuiaba(h.createdAt)}</td>
                <td>{isHistoryAction(h.action) ? t(`chat.history.actions.${h.action}`) : h.action}</td>
                <td>{[h.oldusername, h.newusername].filter(Boolean).join(' → ')}</td>
                <td>{[h.oldqueuename, h.newqueuename].filter(Boolean).join(' → ')}</td>
              </tr>
            ))}
          </tbody>
        </HistoryTable>
      )}
    </Dialog>
  );
}
