// The web's twins of rules the server decides in Go. Each is checked against a golden
// file the Go tests write (src/app/golden, see rules.test.ts), so the two cannot drift:
// a change on either side fails a test until both agree.
import type { AppraisalData, ID, Ticket } from '../api/types';
import { actions, can, permissionTable } from './permissions';

// Viewer is who looks at a ticket: the signed-in user, as engine.Principal sees them.
export interface Viewer {
  userId: ID;
  companyId: ID;
  profile: string;
  queueIds: readonly ID[];
}

export function viewerOf(user: { id: ID; companyId: ID; profile: string; queues?: readonly { id: ID }[] }): Viewer {
  return { userId: user.id, companyId: user.companyId, profile: user.profile, queueIds: (user.queues ?? []).map((q) => q.id) };
}

// seesTicket is engine.SeesTicket: showall profiles see every ticket of their tenant;
// the others see closed tickets, tickets with no queue, tickets in one of their queues,
// tickets assigned to them and tickets they are a guest of. A ticket that names another
// tenant is never seen; an unknown profile sees nothing.
export function seesTicket(
  v: Viewer,
  t: Pick<Ticket, 'status' | 'queueId' | 'userId' | 'guests'> & { companyId?: ID },
): boolean {
  if (!(v.userId > 0) || !(v.companyId > 0) || !Object.prototype.hasOwnProperty.call(permissionTable, v.profile)) return false;
  if (t.companyId != null && t.companyId !== v.companyId) return false;
  if (can(v.profile, actions.showAllTickets) || t.status === 'closed') return true;
  const queue = t.queueId ?? 0;
  return (
    queue === 0 ||
    v.queueIds.includes(queue) ||
    (t.userId != null && t.userId !== 0 && t.userId === v.userId) ||
    isGuest(t, v.userId)
  );
}

// isGuest is engine.Ticket.HasGuest: user accepted an invitation to the ticket.
export function isGuest(t: Pick<Ticket, 'guests'>, user: ID | null | undefined): boolean {
  return user != null && user !== 0 && (t.guests ?? []).includes(user);
}

// Satisfaction icons of engine.SatisfactionScore.
export type SatisfactionLevel = 'low' | 'medium' | 'high';

// satisfactionScore is engine.SatisfactionScore: totalsum / (3 × totalcount) × 10 and
// its icon, chosen by exact integer comparison (a score of exactly 7 or 9 is never
// pushed below its threshold by floating-point rounding). Null: no answers yet.
export function satisfactionScore(a: AppraisalData | null | undefined): { score: number; level: SatisfactionLevel } | null {
  if (!a || !(a.totalcount > 0)) return null;
  const num = a.totalsum * 10;
  const den = a.totalcount * 3;
  const level: SatisfactionLevel = num < 7 * den ? 'low' : num < 9 * den ? 'medium' : 'high';
  return { score: num / den, level };
}
