// The flow graph as the editor holds it: node kinds, the handles each kind's edges
// leave by (the twin of engine.FlowHandles; the server judges the graph on save),
// new nodes with their defaults, and the server's per-node errors.
import type { FlowDocNode, FlowDocument, FlowKind, FlowNodeData } from '../../api/flows';

// The palette, in order (engine.FlowKinds).
export const flowKinds: FlowKind[] = ['start', 'message', 'wait', 'branch', 'tag', 'queue', 'transfer', 'http', 'ai', 'end'];

export function isFlowKind(s: string): s is FlowKind {
  return (flowKinds as string[]).includes(s);
}

// handlesOf lists the ways out of a node: each needs exactly one edge.
export function handlesOf(kind: FlowKind, data: FlowNodeData): string[] {
  switch (kind) {
    case 'start':
    case 'message':
    case 'tag':
    case 'queue':
      return ['out'];
    case 'wait':
      return ['reply', 'timeout'];
    case 'branch':
      return [...(data.rules ?? []).map((r) => r.id), 'else'];
    case 'http':
      return ['ok', 'fail', 'error'];
    case 'ai':
      return ['out', 'error'];
    default:
      return [];
  }
}

// defaults are a new node's fields.
export function defaults(kind: FlowKind): FlowNodeData {
  switch (kind) {
    case 'message':
      return { text: '', buttons: [] };
    case 'wait':
      return { timeoutSeconds: 300 };
    case 'branch':
      return { rules: [{ id: 'r1', match: 'keywords', value: '' }] };
    case 'http':
      return { method: 'GET', url: 'https://', timeoutSeconds: 10 };
    case 'ai':
    case 'end':
      return { text: '' };
    default:
      return {};
  }
}

// newNodeId is an id no node of nodes has: kind-n.
export function newNodeId(kind: FlowKind, nodes: { id: string }[]): string {
  const taken = new Set(nodes.map((n) => n.id));
  for (let i = 1; ; i++) {
    const id = `${kind}-${i}`;
    if (!taken.has(id)) return id;
  }
}

export function newNode(kind: FlowKind, position: { x: number; y: number }, nodes: { id: string }[]): FlowDocNode {
  return { id: newNodeId(kind, nodes), type: kind, position, data: defaults(kind) };
}

// nodeErrors picks the server's per-node messages out of an ERR_FLOW_INVALID
// answer's fields ("nodes.<id>": message); the rest are the flow's own.
export function nodeErrors(fields: Record<string, string> | undefined): { nodes: Record<string, string>; flow: Record<string, string> } {
  const nodes: Record<string, string> = {};
  const flow: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (k.startsWith('nodes.')) nodes[k.slice('nodes.'.length)] = v;
    else flow[k] = v;
  }
  return { nodes, flow };
}

// validationKey is the i18n leaf of a server validation message ("Cycle without a
// wait" → cycleWithoutAWait); unknown messages fall back to "invalid".
const messageKeys: Record<string, string> = {
  Required: 'required',
  'Too Long!': 'tooLong',
  'Too Short!': 'tooShort',
  'Unknown kind': 'unknownKind',
  'No start': 'noStart',
  'More than one start': 'manyStarts',
  'Too many nodes': 'tooMany',
  'Duplicate id': 'duplicateId',
  'Edge to a missing node': 'badEdge',
  'Unknown branch': 'badHandle',
  'Missing branch': 'missingBranch',
  'Branch connected twice': 'twoEdges',
  Unreachable: 'unreachable',
  'Cycle without a wait': 'cycle',
  'Invalid regex': 'badRegex',
  'Invalid URL': 'badUrl',
  'Out of range': 'outOfRange',
  'Invalid method': 'badMethod',
  Malformed: 'malformed',
  'Already exists': 'alreadyExists',
};

export function validationKey(message: string): string {
  return messageKeys[message] ?? 'invalid';
}

// toDocument strips what the editor adds to a node (its error, selection) so the
// saved document holds only the graph and the layout.
export function toDocument(nodes: FlowDocNode[], edges: FlowDocument['edges']): FlowDocument {
  return {
    nodes: nodes.map((n) => {
      const { error: _error, ...data } = n.data as FlowNodeData & { error?: string };
      return { id: n.id, type: n.type, position: { x: Math.round(n.position.x), y: Math.round(n.position.y) }, data };
    }),
    edges: edges.map((e) => ({ id: e.id, source: e.source, sourceHandle: e.sourceHandle ?? 'out', target: e.target })),
  };
}

// starterDocument is a new flow: a start node and an end node, connected.
export function starterDocument(): FlowDocument {
  return {
    nodes: [
      { id: 'start-1', type: 'start', position: { x: 40, y: 120 }, data: {} },
      { id: 'end-1', type: 'end', position: { x: 420, y: 120 }, data: { text: '' } },
    ],
    edges: [{ id: 'e-start-1-out', source: 'start-1', sourceHandle: 'out', target: 'end-1' }],
  };
}
