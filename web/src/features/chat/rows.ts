// The message list's rows: an optional loader on top, a day separator before the first
// message of each day, then the messages. Rows are keyed by identity.
import { formatDay } from '../../app/format';
import type { Message } from '../../api/types';

export type ChatRow =
  | { kind: 'loader'; key: string }
  | { kind: 'day'; key: string; day: string }
  | { kind: 'message'; key: string; message: Message };

export function buildRows(messages: readonly Message[], loadingOlder: boolean): ChatRow[] {
  const rows: ChatRow[] = [];
  if (loadingOlder) rows.push({ kind: 'loader', key: 'loader' });
  let lastDay = '';
  for (const m of messages) {
    const day = formatDay(m.createdAt);
    if (day !== lastDay) {
      rows.push({ kind: 'day', key: `day-${day}`, day });
      lastDay = day;
    }
    rows.push({ kind: 'message', key: `m-${m.id}`, message: m });
  }
  return rows;
}
