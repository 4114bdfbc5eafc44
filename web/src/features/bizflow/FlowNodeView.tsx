// One node of the canvas: its kind, a one-line summary, the server's error for it,
// an entry handle (every kind but start) and one labelled exit handle per way out.
import { Handle, Position, type NodeProps, type Node } from '@xyflow/react';
import { useTranslation } from 'react-i18next';
import type { FlowKind, FlowNodeData } from '../../api/flows';
import { handlesOf, validationKey } from './graph';
import { Exit, Exits, NodeBox, NodeError, NodeSummary } from './style';

export type EditorNodeData = FlowNodeData & { error?: string };
export type EditorNode = Node<EditorNodeData, FlowKind>;

const fixedHandles = ['out', 'reply', 'timeout', 'else', 'ok', 'fail', 'error'] as const;

function summary(kind: FlowKind, d: FlowNodeData): string {
  switch (kind) {
    case 'message':
    case 'ai':
    case 'end':
      return d.text ?? '';
    case 'wait':
      return `${d.timeoutSeconds ?? 0} s`;
    case 'http':
      return `${d.method ?? 'GET'} ${d.url ?? ''}`;
    case 'branch':
      return (d.rules ?? []).map((r) => r.value).join(' | ');
    default:
      return '';
  }
}

export function FlowNodeView({ id, type, data, selected }: NodeProps<EditorNode>) {
  const { t } = useTranslation();
  const kind = type as FlowKind;
  const exits = handlesOf(kind, data);
  const line = summary(kind, data);
  return (
    <NodeBox $error={!!data.error} $selected={!!selected} data-testid={`flow-node-${id}`} data-kind={kind}>
      {kind !== 'start' && <Handle type="target" position={Position.Left} />}
      <strong>{t(`bizflow.kinds.${kind}`)}</strong>
      {line && <NodeSummary title={line}>{line}</NodeSummary>}
      {data.error && <NodeError role="alert">{t(`bizflow.validation.${validationKey(data.error)}` as 'bizflow.validation.invalid')}</NodeError>}
      {exits.length > 0 && (
        <Exits>
          {exits.map((h) => (
            <Exit key={h} data-testid={`flow-exit-${id}-${h}`}>
              {(fixedHandles as readonly string[]).includes(h) ? t(`bizflow.handles.${h as (typeof fixedHandles)[number]}`) : h}
              <Handle type="source" position={Position.Right} id={h} style={{ top: '50%' }} />
            </Exit>
          ))}
        </Exits>
      )}
    </NodeBox>
  );
}
