// Bizflow (GET/POST /flows, GET/PUT/DELETE /flows/{id}; docs/api.md, "Bizflow flows" and
// docs/flows.md): types and calls. dataJson is the editor's React Flow document.
import { http } from './client';
import type { ID } from './types';

export type FlowKind = 'start' | 'message' | 'wait' | 'branch' | 'tag' | 'queue' | 'transfer' | 'http' | 'ai' | 'end';

export interface FlowRule {
  id: string;
  match: 'keywords' | 'regex';
  value: string;
}

// The fields of every kind; each kind reads its own (engine.FlowNodeData).
export interface FlowNodeData {
  text?: string;
  mediaUrl?: string;
  buttons?: string[];
  timeoutSeconds?: number;
  rules?: FlowRule[];
  tagId?: ID;
  queueId?: ID;
  userId?: ID;
  method?: 'GET' | 'POST';
  url?: string;
  body?: string;
  [key: string]: unknown;
}

export interface FlowDocNode {
  id: string;
  type: FlowKind;
  position: { x: number; y: number };
  data: FlowNodeData;
}

export interface FlowDocEdge {
  id: string;
  source: string;
  sourceHandle?: string | null;
  target: string;
}

export interface FlowDocument {
  nodes: FlowDocNode[];
  edges: FlowDocEdge[];
}

export interface FlowInput {
  name: string;
  description: string;
  isActive: boolean;
  dataJson: FlowDocument;
  connectionIds: ID[];
  queueIds: ID[];
}

export interface Flow extends FlowInput {
  id: ID;
  createdAt: string;
  updatedAt: string;
}

// The realtime "flow" event (flows:manage holders only).
export interface FlowEvent {
  action: 'create' | 'update' | 'delete';
  flow?: Flow;
  flowId?: ID;
}

export const flowsApi = {
  list: (): Promise<{ flows: Flow[]; count: number; hasMore: boolean }> => http.get('/flows'),
  get: (id: ID): Promise<Flow> => http.get<Flow>(`/flows/${id}`),
  create: (body: FlowInput): Promise<Flow> => http.post<Flow>('/flows', { body }),
  update: (id: ID, body: FlowInput): Promise<Flow> => http.put<Flow>(`/flows/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/flows/${id}`),
};
