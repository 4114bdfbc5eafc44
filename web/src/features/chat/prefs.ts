// What the chat screen remembers between visits, in localStorage, and the keys of the
// toasts the screen shares with its header.
import { browserStore } from '../../api/storage';
import type { ID } from '../../api/types';

// The contact drawer is opened on demand: left open it takes 320 px from the
// conversation on every ticket. The attendant's last choice is kept.
const drawerKey = 'chat.contactDrawer';

export function drawerRemembered(): boolean {
  return browserStore().getItem(drawerKey) === 'open';
}

export function rememberDrawer(open: boolean): void {
  try {
    browserStore().setItem(drawerKey, open ? 'open' : 'closed');
  } catch {
    // A full or refused storage only costs the memory of the choice.
  }
}

// deletedToastKey: the deleting attendant hears of the deletion twice, from the
// command's answer and from the socket; the toast is shown once.
export const deletedToastKey = (ticketId: ID): string => `ticket.deleted.${ticketId}`;
