// Connection statuses (spec section 4) and what the page derives from them.
import type { Connection } from '../../api/types';

const statuses = ['DISCONNECTED', 'OPENING', 'qrcode', 'PAIRING', 'CONNECTED', 'TIMEOUT', 'STALLED'] as const;
export type ConnStatus = (typeof statuses)[number];

export function statusOf(s: string | undefined): ConnStatus | 'unknown' {
  return (statuses as readonly string[]).includes(s ?? '') ? (s as ConnStatus) : 'unknown';
}

// Statuses that count as needing attention (spec section 4): every one but CONNECTED.
const attention = new Set<string>(['qrcode', 'PAIRING', 'DISCONNECTED', 'TIMEOUT', 'OPENING', 'STALLED']);

export function needsAttention(c: Pick<Connection, 'status'>): boolean {
  return attention.has(c.status);
}

// The QR dialog shows while the session waits for a scan.
export function awaitingScan(c: Pick<Connection, 'status'>): boolean {
  return c.status === 'qrcode' || c.status === 'PAIRING';
}

export type RoleLabel = 'default' | 'outbound' | 'none';

// The card's label: Padrão (the tenant's default), Disparo (outbound), else Sem Função
// Específica.
export function roleOf(c: Pick<Connection, 'isDefault' | 'outChannel'>): RoleLabel {
  if (c.isDefault) return 'default';
  if (c.outChannel) return 'outbound';
  return 'none';
}

export interface SessionState {
  id: number;
  status: string;
  qrcode?: string;
  number?: string;
  updatedAt?: string;
}

const time = (iso: string | undefined) => {
  const n = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(n) ? -Infinity : n;
};

// withSession lays a session state (whatsappSession event) over a connection unless the
// connection is newer: a row answered by POST/PUT or a "whatsapp" event may have been
// read before the session moved on, and must not undo the newer status.
export function withSession(c: Connection, s: SessionState | undefined): Connection {
  if (!s || s.id !== c.id || time(s.updatedAt) < time(c.updatedAt)) return c;
  return { ...c, status: s.status, qrcode: s.qrcode ?? '', number: s.number || c.number, updatedAt: s.updatedAt ?? c.updatedAt };
}

// The whatsappSession event carries a session's new state; merge it into the list.
export function applySession(list: Connection[], s: SessionState): Connection[] {
  return list.map((c) => (c.id === s.id ? withSession(c, { ...s, updatedAt: s.updatedAt ?? c.updatedAt }) : c));
}
