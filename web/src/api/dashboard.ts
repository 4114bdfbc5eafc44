// The dashboard's calls (GET /dashboard and its CSV export; docs/api.md). Both need
// dashboard:view on the server.
import { http } from './client';
import type { ID } from './types';

export interface DashboardCount {
  id?: ID;
  key?: string;
  n: number;
}

export interface DashboardLatency {
  count: number;
  median: number; // seconds
  p90: number;
}

export interface DashboardSatisfaction {
  id?: ID;
  totalsum: number;
  totalcount: number;
  score: number;
  icon: 0 | 1 | 2 | 3; // none, below 7, 7 to under 9, 9 and up (spec section 9)
}

export interface DashboardMoney {
  count: number;
  cents: number;
}

export interface DashboardDay {
  date: string;
  opened: number;
  resolved: number;
  messagesIn: number;
  messagesOut: number;
}

export interface Dashboard {
  from: string;
  to: string;
  byStatus: Record<'open' | 'pending' | 'closed', number>;
  byQueue: DashboardCount[];
  byUser: DashboardCount[];
  byChannel: DashboardCount[];
  opened: number;
  resolved: number;
  messagesIn: number;
  messagesOut: number;
  firstResponse: DashboardLatency;
  resolution: DashboardLatency;
  satisfaction: DashboardSatisfaction;
  satisfactionByUser: DashboardSatisfaction[];
  satisfactionByQueue: DashboardSatisfaction[];
  opportunities: { won: DashboardMoney; lost: DashboardMoney; open: DashboardMoney };
  series: DashboardDay[];
}

export interface DashboardFilter {
  dateFrom: string; // YYYY-MM-DD
  dateTo: string;
  queueIds: ID[];
}

function query(f: DashboardFilter): string {
  const p = new URLSearchParams({ dateFrom: f.dateFrom, dateTo: f.dateTo });
  if (f.queueIds.length > 0) p.set('queueIds', JSON.stringify(f.queueIds));
  return p.toString();
}

export const dashboardApi = {
  get: (f: DashboardFilter): Promise<Dashboard> => http.get<Dashboard>(`/dashboard?${query(f)}`),
  exportCsv: (f: DashboardFilter): Promise<string> => http.get<string>(`/dashboard/export?${query(f)}`),
};
