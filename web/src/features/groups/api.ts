// Sequential WhatsApp groups: REST calls and types (docs/api.md, "Groups";
// docs/groups.md). A batch creates `count` groups named "<name> NNN" from the root of
// the numbering; its progress comes over the socket as the "groupBatch" event.
import { http } from '../../api/client';
import type { ID } from '../../api/types';

export type BatchStatus = 'running' | 'finished';
export type GroupStatus = 'pending' | 'created' | 'error';

export interface GroupBatchInput {
  name: string;
  root: string; // the first group's number, up to 3 digits ("001")
  admin1: string;
  admin2: string;
  count: number;
  maxParticipants: number;
  connectionId: ID;
  mediaPath: string;
  mediaType: string;
}

export interface Group {
  seq: number;
  name: string;
  status: GroupStatus;
  jid?: string;
  inviteLink?: string;
  participants: number;
  joined: number;
  error?: string;
}

export interface GroupBatch {
  id: ID;
  connectionId: ID;
  name: string;
  root: number;
  admin1: string;
  admin2: string;
  count: number;
  maxParticipants: number;
  token: string;
  status: BatchStatus;
  created: number;
  failed: number;
  joined: number;
  createdAt: string;
  groups: Group[];
}

export interface GroupBatchEvent {
  action: 'create' | 'update';
  batch?: GroupBatch;
}

export const groupsApi = {
  list: (): Promise<{ batches: GroupBatch[] }> => http.get('/groups'),
  create: (body: GroupBatchInput): Promise<GroupBatch> => http.post<GroupBatch>('/groups', { body }),
  // The group picture: a JPEG, uploaded before the batch is created.
  uploadPicture: (file: File): Promise<{ mediaPath: string; mediaType: string }> => {
    const form = new FormData();
    form.append('file', file, file.name);
    return http.post('/groups/media', { form });
  },
  // Public: the invite link of the next group with room, counting the visitor.
  join: (token: string): Promise<{ inviteLink: string }> => http.post(`/groupjoin/${encodeURIComponent(token)}`),
};

// joinLink is the public page that sends each visitor to the next group with room.
export function joinLink(token: string, origin: string = window.location.origin): string {
  return `${origin}/groupjoin?b=${encodeURIComponent(token)}`;
}
