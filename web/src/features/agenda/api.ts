// The calendar's and the kanban board's calls (docs/api.md, "Agenda: bookings and
// kanban"): POST /agenda/kanboard, POST /agenda/kanboard/{id}, GET/POST /agenda/bookings,
// and the agenda tasks of GET /agenda/ within the calendar's visible range.
import { http } from '../../api/client';
import type { ID } from '../../api/types';

// A booking of spec section 3. Times are RFC 3339 UTC; the app shows them in the
// tenant's zone. label is '✅ Fechou' or '❌ Desqualificado' once concluded or
// cancelled (archived then takes it off the board).
export interface Booking {
  id: ID;
  bookingId: ID;
  columnId: ID;
  bookingName: string;
  bookingTypeName: string;
  bookingTypeInfo: string;
  bookingTzidFrom: string;
  bookingTzidTo: string;
  userId: ID;
  username: string;
  description: string;
  tagJson: string;
  positionName: string;
  positionColor: string;
  contactId: ID;
  name: string;
  contactNumber: string;
  contactCpf: string;
  contactDob: string;
  profilePicUrl: string;
  distance: string;
  status: number;
  label: string;
  archived: boolean;
  // The booking scheduler's slot the booking holds, when it took one.
  slot?: { slotId: ID; positionId: ID; userId: ID };
}

export type ColumnKind = 'open' | 'won' | 'lost';

export interface KanbanColumn {
  id: ID;
  name: string;
  position: number;
  kind: ColumnKind;
  short: boolean;
  ConfirmedBooking: Booking[];
}

export type BoardSize = 'large' | 'short';

// The booking modal: date YYYY-MM-DD and time HH:MM in the tenant's zone.
export interface BookingInput {
  description: string;
  date: string;
  time: string;
  duration?: number;
  bookingName?: string;
  tagJson?: string;
  contactId?: ID;
  userId?: ID;
  // A free slot of the booking scheduler to take (its time replaces date and time).
  slotId?: ID;
}

// An agenda task as GET /agenda/ answers it (the scheduling contract of issue 11).
export interface AgendaTask {
  id: ID;
  taskName: string;
  contactId: ID | null;
  contact: { id: ID; name: string; number: string } | null;
  message: string;
  userId: ID | null;
  ticketId: ID | null;
  sendAt: string;
  tagFilter: ID[];
  status: 'pending' | 'sent' | 'error';
  errorMessage?: string;
}

interface AgendaTaskPage {
  tasks: AgendaTask[];
  count: number;
  hasMore: boolean;
}

export type BookingEvent = { action: 'create' | 'update'; booking: Booking };
export type AgendaEvent = { action: 'create' | 'update' | 'delete'; task?: AgendaTask; taskId?: ID };

// The most task pages one calendar range reads (20 a page): a day, week or month of
// one tenant's tasks fits; beyond it the calendar shows the first 400.
export const maxTaskPages = 20;

export const agendaApi = {
  board: (size: BoardSize): Promise<KanbanColumn[]> => http.post<KanbanColumn[]>('/agenda/kanboard', { body: { size } }),
  move: (id: ID, from: ID, to: ID): Promise<Booking> =>
    http.post<Booking>(`/agenda/kanboard/${id}`, { body: { id, from, to } }),
  bookings: async (from: Date, to: Date): Promise<Booking[]> =>
    (
      await http.get<{ bookings: Booking[] }>('/agenda/bookings', {
        query: { from: from.toISOString(), to: to.toISOString() },
      })
    ).bookings ?? [],
  createBooking: (body: BookingInput): Promise<Booking> => http.post<Booking>('/agenda/bookings', { body }),
  // tasks reads every page of GET /agenda/ bounded to [from, to).
  tasks: async (from: Date, to: Date): Promise<AgendaTask[]> => {
    const out: AgendaTask[] = [];
    for (let pageNumber = 1; pageNumber <= maxTaskPages; pageNumber++) {
      const page = await http.get<AgendaTaskPage>('/agenda/', {
        query: { pageNumber, from: from.toISOString(), to: to.toISOString() },
      });
      out.push(...(page.tasks ?? []));
      if (!page.hasMore) break;
    }
    return out;
  },
};

// Tag level colours of spec section 9: '1'–'5' green, '6'–'8' yellow, '9'–'10' red.
export type TagTone = 'green' | 'yellow' | 'red' | 'none';

export function tagTone(tagJson: string): TagTone {
  const n = /^(10|[1-9])$/.test(tagJson) ? Number(tagJson) : 0;
  if (n === 0) return 'none';
  if (n <= 5) return 'green';
  if (n <= 8) return 'yellow';
  return 'red';
}

// Status 26 shows a reduced card (spec section 3).
export const reducedStatus = 26;

// The body of POST /agenda (docs/api.md section 2.8b). sendAt is the form's wall-clock
// value (YYYY-MM-DDTHH:MM), read by the server in the tenant's zone; userId null is the
// caller; contactId may be null only with a ticketId.
export interface AgendaTaskInput {
  taskName: string;
  contactId: ID | null;
  message: string;
  userId: ID | null;
  ticketId: ID | null;
  sendAt: string;
  tagFilter: ID[];
}

export const agendaTaskApi = {
  create: (body: AgendaTaskInput): Promise<AgendaTask> => http.post<AgendaTask>('/agenda', { body }),
};
