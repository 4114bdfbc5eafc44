// The flow editor: a palette of node kinds dragged onto a React Flow canvas, exits
// connected to entries, the selected node's fields in a side panel, and a save that
// shows the server's per-node errors on the nodes (ERR_FLOW_INVALID).
import { useCallback, useMemo, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  addEdge,
  Background,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesState,
  useReactFlow,
  type Connection,
  type Edge,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { flowsApi, type Flow, type FlowDocNode, type FlowKind, type FlowNodeData } from '../../api/flows';
import { isApiError } from '../../api/errors';
import type { ID } from '../../api/types';
import { toast } from '../../components/toast/toastStore';
import { toastError } from '../../app/errors';
import { Button, Field, Input, Row, Switch } from '../../components/primitives';
import { MultiSelect } from '../../components/MultiSelect';
import { Header, Page, Title } from '../../components/pageStyle';
import { flowKinds, isFlowKind, newNode, nodeErrors, starterDocument, toDocument, validationKey } from './graph';
import { FlowNodeView, type EditorNode } from './FlowNodeView';
import { NodePanel, type Named } from './NodePanel';
import { Canvas, EditorGrid, ErrorList, PaletteItem, Panel } from './style';

const dragType = 'application/x-atende-flow-kind';

const nodeTypes = Object.fromEntries(flowKinds.map((k) => [k, FlowNodeView]));

export interface FlowEditorProps {
  flow: Flow | null;
  tags: Named[];
  queues: Named[];
  users: Named[];
  connections: Named[];
  onSaved: (f: Flow) => void;
  onBack: () => void;
}

function toEditorNodes(nodes: FlowDocNode[]): EditorNode[] {
  return nodes.map((n) => ({ id: n.id, type: n.type, position: n.position, data: { ...n.data } }));
}

function Editor({ flow, tags, queues, users, connections, onSaved, onBack }: FlowEditorProps) {
  const { t } = useTranslation();
  const doc = flow?.dataJson ?? starterDocument();
  const [nodes, setNodes, onNodesChange] = useNodesState<EditorNode>(toEditorNodes(doc.nodes));
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(
    doc.edges.map((e) => ({ id: e.id, source: e.source, sourceHandle: e.sourceHandle ?? 'out', target: e.target })),
  );
  const [name, setName] = useState(flow?.name ?? '');
  const [description, setDescription] = useState(flow?.description ?? '');
  const [active, setActive] = useState(flow?.isActive ?? true);
  const [connectionIds, setConnectionIds] = useState<ID[]>(flow?.connectionIds ?? []);
  const [queueIds, setQueueIds] = useState<ID[]>(flow?.queueIds ?? []);
  const [selected, setSelected] = useState<string | null>(null);
  const [flowErrors, setFlowErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const { screenToFlowPosition } = useReactFlow();

  const onConnect = useCallback(
    (c: Connection) =>
      setEdges((es) =>
        addEdge(
          { ...c, id: `e-${c.source}-${c.sourceHandle ?? 'out'}` },
          // One edge per exit: a new connection from an exit replaces the old one.
          es.filter((e) => !(e.source === c.source && (e.sourceHandle ?? 'out') === (c.sourceHandle ?? 'out'))),
        ),
      ),
    [setEdges],
  );

  const onDragOver = (e: DragEvent) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    const kind = e.dataTransfer.getData(dragType);
    if (!isFlowKind(kind)) return;
    const position = screenToFlowPosition({ x: e.clientX, y: e.clientY });
    setNodes((ns) => {
      const n = newNode(kind, position, ns);
      setSelected(n.id);
      return [...ns, { id: n.id, type: n.type, position: n.position, data: n.data }];
    });
  };

  const current = nodes.find((n) => n.id === selected) ?? null;
  const changeData = (data: FlowNodeData) =>
    setNodes((ns) => ns.map((n) => (n.id === selected ? { ...n, data: { ...data, error: undefined } } : n)));
  const removeNode = () => {
    setNodes((ns) => ns.filter((n) => n.id !== selected));
    setEdges((es) => es.filter((e) => e.source !== selected && e.target !== selected));
    setSelected(null);
  };

  const save = async () => {
    setSaving(true);
    setFlowErrors({});
    const body = {
      name,
      description,
      isActive: active,
      dataJson: toDocument(
        nodes.map((n) => ({ id: n.id, type: n.type as FlowKind, position: n.position, data: n.data })),
        edges.map((e) => ({ id: e.id, source: e.source, sourceHandle: e.sourceHandle, target: e.target })),
      ),
      connectionIds,
      queueIds,
    };
    try {
      const saved = flow ? await flowsApi.update(flow.id, body) : await flowsApi.create(body);
      setNodes((ns) => ns.map((n) => ({ ...n, data: { ...n.data, error: undefined } })));
      toast.success(t('bizflow.saved'));
      onSaved(saved);
    } catch (err) {
      if (isApiError(err) && (err.code === 'ERR_FLOW_INVALID' || err.code === 'ERR_VALIDATION')) {
        const { nodes: bad, flow: rest } = nodeErrors(err.fields);
        setNodes((ns) => ns.map((n) => ({ ...n, data: { ...n.data, error: bad[n.id] } })));
        setFlowErrors(rest);
        if (Object.keys(bad).length > 0 && Object.keys(rest).length === 0) setFlowErrors({ nodes: '' });
      } else {
        toastError(err);
      }
    } finally {
      setSaving(false);
    }
  };

  const badNodes = nodes.filter((n) => n.data.error);
  const named = useMemo(() => ({ tags, queues, users }), [tags, queues, users]);

  return (
    <Page>
      <Header>
        <Title>{flow ? flow.name : t('bizflow.new')}</Title>
        <Button type="button" $variant="ghost" onClick={onBack}>
          {t('bizflow.back')}
        </Button>
        <Button type="button" onClick={save} disabled={saving} data-testid="flow-save">
          {saving ? t('bizflow.saving') : t('bizflow.save')}
        </Button>
      </Header>
      <Row $gap={12} $wrap>
        <Field>
          {t('bizflow.name')}
          <Input value={name} onChange={(e) => setName(e.target.value)} data-testid="flow-name" />
        </Field>
        <Field>
          {t('bizflow.description')}
          <Input value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <Field>
          {t('bizflow.active')}
          <Switch checked={active} onChange={(e) => setActive(e.target.checked)} />
        </Field>
        <MultiSelect label={t('bizflow.connections')} choices={connections} value={connectionIds} onChange={setConnectionIds} />
        <MultiSelect label={t('bizflow.queues')} choices={queues} value={queueIds} onChange={setQueueIds} />
      </Row>
      {(Object.keys(flowErrors).length > 0 || badNodes.length > 0) && (
        <div role="alert" data-testid="flow-errors">
          <strong>{t('bizflow.errorsTitle')}</strong>
          <ErrorList>
            {Object.entries(flowErrors)
              .filter(([, v]) => v)
              .map(([k, v]) => (
                <li key={k}>
                  {t(`bizflow.fieldNames.${k}` as 'bizflow.fieldNames.name', { defaultValue: k })}:{' '}
                  {t(`bizflow.validation.${validationKey(v)}` as 'bizflow.validation.invalid')}
                </li>
              ))}
            {badNodes.map((n) => (
              <li key={n.id}>
                <button type="button" onClick={() => setSelected(n.id)}>
                  {t(`bizflow.kinds.${n.type as FlowKind}`)} ({n.id})
                </button>
                : {t(`bizflow.validation.${validationKey(n.data.error ?? '')}` as 'bizflow.validation.invalid')}
              </li>
            ))}
          </ErrorList>
        </div>
      )}
      <EditorGrid>
        <Panel aria-labelledby="flow-palette-title">
          <h2 id="flow-palette-title">{t('bizflow.palette')}</h2>
          <small>{t('bizflow.paletteHint')}</small>
          {flowKinds
            .filter((k) => k !== 'start')
            .map((k) => (
              <PaletteItem
                key={k}
                draggable
                data-testid={`palette-${k}`}
                onDragStart={(e) => {
                  e.dataTransfer.setData(dragType, k);
                  e.dataTransfer.effectAllowed = 'move';
                }}
              >
                {t(`bizflow.kinds.${k}`)}
              </PaletteItem>
            ))}
        </Panel>
        <Canvas onDragOver={onDragOver} onDrop={onDrop} aria-label={t('bizflow.canvas')} role="region" data-testid="flow-canvas">
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={onConnect}
            onNodeClick={(_, n) => setSelected(n.id)}
            onPaneClick={() => setSelected(null)}
            fitView
            proOptions={{ hideAttribution: true }}
          >
            <Background />
            <Controls />
          </ReactFlow>
        </Canvas>
        <Panel aria-label={t('bizflow.selectNode')} data-testid="flow-panel">
          {current ? (
            <NodePanel
              key={current.id}
              kind={current.type as FlowKind}
              data={current.data}
              onChange={changeData}
              onRemove={removeNode}
              {...named}
            />
          ) : (
            <p>{t('bizflow.selectNode')}</p>
          )}
        </Panel>
      </EditorGrid>
    </Page>
  );
}

export function FlowEditor(props: FlowEditorProps) {
  return (
    <ReactFlowProvider>
      <Editor {...props} />
    </ReactFlowProvider>
  );
}
