// The wait panel (GET /supervision/waitpanel) and the client maps (GET /maps/contacts,
// GET /maps/config): types and calls (docs/api.md, "Supervision").
import { http } from './client';
import type { ID } from './types';

export interface WaitPanelTicket {
  id: ID;
  queueId: ID;
  contactName: string;
  channel: string;
  unreadMessages: number;
  waitingSince: string;
}

export interface WaitPanelQueue {
  id: ID; // 0: tickets with no queue
  name: string;
  color: string;
  pending: number;
  open: number;
  longestWait: WaitPanelTicket | null;
  online: ID[];
}

export interface WaitPanelAttendant {
  id: ID;
  name: string;
  profile: string;
  queueIds: ID[];
  open: number;
  online: boolean;
  onlineSince?: string;
}

export interface WaitPanel {
  queues: WaitPanelQueue[];
  attendants: WaitPanelAttendant[];
  waiting: WaitPanelTicket[];
  pending: number;
  open: number;
  at: string;
}

export interface MapContact {
  contactId: ID;
  name: string;
  number: string;
  value: string;
  ticketId: ID; // 0: none
  lat: number;
  lng: number;
}

export interface InvalidLocation {
  contactId: ID;
  name: string;
  value: string;
}

export interface MapContactPage {
  contacts: MapContact[];
  invalid: InvalidLocation[];
  invalidCount: number;
  hasMore: boolean;
  nextCursor?: ID;
}

export interface MapConfig {
  tileUrl: string;
  attribution: string;
}

export const supervisionApi = {
  waitPanel: (): Promise<WaitPanel> => http.get<WaitPanel>('/supervision/waitpanel'),
};

export const mapsApi = {
  contacts: (after = 0): Promise<MapContactPage> => http.get<MapContactPage>('/maps/contacts', { query: { after: after || undefined } }),
  config: (): Promise<MapConfig> => http.get<MapConfig>('/maps/config'),
};
