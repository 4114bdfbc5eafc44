// Campaigns and broadcasts: REST calls and types (docs/api.md, "Campaigns and
// broadcasts"; docs/campaigns.md). One engine serves both: a broadcast is kind
// 'broadcast' (one connection, picked contacts, credits), a campaign kind 'campaign'.
import { http } from '../../api/client';
import type { ID } from '../../api/types';

export type CampaignKind = 'campaign' | 'broadcast';
export type CampaignStatus = 'scheduled' | 'running' | 'paused' | 'cancelled' | 'finished';
export type SendStatus = 'pending' | 'sent' | 'error';

export interface CampaignButtons {
  url1Caption?: string;
  url1?: string;
  url2Caption?: string;
  url2?: string;
  phoneCaption?: string;
  phone?: string;
  message?: string;
  destination?: string;
}

export interface CampaignMessage {
  seq: number;
  body: string;
  mediaType?: string;
  mediaPath?: string;
}

export interface CsvContact {
  number: string;
  name?: string;
  params: string[];
}

export interface CsvLineError {
  line: number;
  message: string;
  text: string;
}

export interface CsvPreview {
  contacts: CsvContact[];
  errors: CsvLineError[];
}

export interface LatLngPoint {
  lat: number;
  lng: number;
}

export interface CampaignInput {
  kind: CampaignKind;
  name?: string;
  planName?: string;
  contactIds?: ID[];
  tagIds?: ID[];
  groups?: boolean;
  leads?: boolean;
  polygon?: LatLngPoint[];
  csv?: CsvContact[];
  nameFilter?: string;
  includeDefault?: boolean;
  sendFrom?: ID[];
  channelFilter?: string;
  // A wall-clock time of the tenant's zone ("2026-11-27T09:00") or RFC 3339.
  startAt?: string;
  messages: CampaignMessage[];
  buttons?: CampaignButtons;
}

export interface Campaign {
  id: ID;
  kind: CampaignKind;
  name: string;
  planName: string;
  status: CampaignStatus;
  startAt: string;
  total: number;
  sent: number;
  errors: number;
  pending: number;
  nextSendAt: string;
  // An error code while sending waits (ERR_DAILY_MAX_REACHED, ERR_UNAVAILABLE, ERR_NO_CREDITS).
  waitReason: string;
  createdAt: string;
}

export interface CampaignSend {
  id: ID;
  contactId: ID;
  contactName: string;
  number: string;
  seq: number;
  connectionId: ID;
  status: SendStatus;
  error: string;
  sentAt: string;
}

export interface CampaignEvent {
  action: 'create' | 'update';
  campaign?: Campaign;
}

export const campaignsApi = {
  list: (kind: CampaignKind): Promise<{ campaigns: Campaign[] }> => http.get('/campaigns', { query: { kind } }),
  create: (body: CampaignInput): Promise<Campaign> => http.post<Campaign>('/campaigns', { body }),
  sends: (id: ID, status?: SendStatus, after?: ID): Promise<{ sends: CampaignSend[]; hasMore: boolean }> =>
    http.get(`/campaigns/${id}/sends`, { query: { status, after, limit: 200 } }),
  pause: (id: ID): Promise<Campaign> => http.post<Campaign>(`/campaigns/${id}/pause`),
  resume: (id: ID): Promise<Campaign> => http.post<Campaign>(`/campaigns/${id}/resume`),
  cancel: (id: ID): Promise<Campaign> => http.post<Campaign>(`/campaigns/${id}/cancel`),
  previewCsv: (file: File): Promise<CsvPreview> => {
    const form = new FormData();
    form.append('file', file, file.name);
    return http.post<CsvPreview>('/campaigns/csv', { form });
  },
  uploadMedia: (file: File): Promise<{ mediaPath: string; mediaType: string }> => {
    const form = new FormData();
    form.append('file', file, file.name);
    return http.post('/campaigns/media', { form });
  },
  credits: (): Promise<{ credits: number }> => http.get('/campaigns/credits'),
  setCredits: (credits: number): Promise<{ credits: number }> => http.put('/campaigns/credits', { body: { credits } }),
  // The per-contact report as a CSV file, saved by the browser.
  downloadReport: async (id: ID): Promise<void> => {
    const res = await fetch(`/campaigns/${id}/report.csv`, { headers: { Authorization: `Bearer ${http.token ?? ''}` } });
    if (!res.ok) throw new Error(`report ${res.status}`);
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = `campaign-${id}.csv`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    URL.revokeObjectURL(url);
  },
};

// progress is the share of sends with an outcome, 0 to 100.
export function progress(c: Pick<Campaign, 'total' | 'sent' | 'errors'>): number {
  if (c.total <= 0) return 100;
  return Math.round(((c.sent + c.errors) * 100) / c.total);
}
