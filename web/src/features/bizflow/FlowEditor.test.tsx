import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import type { Flow } from '../../api/flows';
import { FlowEditor } from './FlowEditor';
import { NodePanel } from './NodePanel';

// React Flow reads each node's transform through DOMMatrixReadOnly, which jsdom
// lacks: an identity matrix is what an unscaled canvas has.
class DOMMatrixStub {
  m22 = 1;
  constructor(_init?: string) {}
}
if (!('DOMMatrixReadOnly' in window)) {
  (window as unknown as { DOMMatrixReadOnly: unknown }).DOMMatrixReadOnly = DOMMatrixStub;
}

const flow: Flow = {
  id: 7,
  name: 'Boas-vindas',
  description: '',
  isActive: true,
  connectionIds: [],
  queueIds: [],
  createdAt: '',
  updatedAt: '',
  dataJson: {
    nodes: [
      { id: 'start-1', type: 'start', position: { x: 0, y: 0 }, data: {} },
      { id: 'message-1', type: 'message', position: { x: 200, y: 0 }, data: { text: 'Olá' } },
      { id: 'end-1', type: 'end', position: { x: 400, y: 0 }, data: { text: '' } },
    ],
    edges: [{ id: 'e1', source: 'start-1', sourceHandle: 'out', target: 'message-1' }],
  },
};

function open(f: Flow | null = flow) {
  const onSaved = vi.fn();
  renderWithProviders(<FlowEditor flow={f} tags={[]} queues={[]} users={[]} connections={[]} onSaved={onSaved} onBack={() => {}} />);
  return { onSaved };
}

describe('FlowEditor', () => {
  beforeEach(() => toastStore.clear());

  it('shows the server errors on the nodes it names', async () => {
    const { calls } = mockFetch(
      route('PUT', '/flows/7', {
        status: 400,
        body: { error: 'ERR_FLOW_INVALID', fields: { 'nodes.message-1': 'Missing branch', 'nodes.end-1': 'Unreachable' } },
      }),
    );
    const { onSaved } = open();
    await userEvent.click(screen.getByTestId('flow-save'));
    await waitFor(() => expect(screen.getByTestId('flow-node-end-1')).toHaveTextContent('Inalcançável a partir do início'));
    expect(screen.getByTestId('flow-node-message-1')).toHaveTextContent('Uma saída não está ligada');
    expect(screen.getByTestId('flow-errors')).toHaveTextContent('Enviar mensagem (message-1)');
    expect(onSaved).not.toHaveBeenCalled();
    const body = calls[0].body as { dataJson: { nodes: { data: Record<string, unknown> }[]; edges: unknown[] }; name: string };
    expect(body.name).toBe('Boas-vindas');
    expect(body.dataJson.nodes).toHaveLength(3);
    expect(body.dataJson.edges).toEqual([{ id: 'e1', source: 'start-1', sourceHandle: 'out', target: 'message-1' }]);
  });

  it('creates a new flow from the starter graph and reports it saved', async () => {
    const { calls } = mockFetch(route('POST', '/flows', (c) => ({ status: 201, body: { ...flow, ...(c.body as object), id: 9 } })));
    const { onSaved } = open(null);
    await userEvent.type(screen.getByTestId('flow-name'), 'Novo');
    await userEvent.click(screen.getByTestId('flow-save'));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    const body = calls[0].body as { name: string; dataJson: { nodes: { type: string }[]; edges: unknown[] } };
    expect(body.name).toBe('Novo');
    expect(body.dataJson.nodes.map((n) => n.type)).toEqual(['start', 'end']);
    expect(body.dataJson.edges).toHaveLength(1);
  });

  it('adds a node dropped from the palette', async () => {
    mockFetch();
    open();
    const data = new Map<string, string>();
    const dataTransfer = { setData: (k: string, v: string) => data.set(k, v), getData: (k: string) => data.get(k) ?? '', effectAllowed: '', dropEffect: '' };
    fireEvent.dragStart(screen.getByTestId('palette-wait'), { dataTransfer });
    fireEvent.dragOver(screen.getByTestId('flow-canvas'), { dataTransfer });
    fireEvent.drop(screen.getByTestId('flow-canvas'), { dataTransfer, clientX: 100, clientY: 100 });
    await waitFor(() => expect(screen.getByTestId('flow-node-wait-1')).toBeInTheDocument());
    // The dropped node is selected: its fields are in the side panel.
    expect(screen.getByTestId('flow-panel')).toHaveTextContent('Aguardar resposta');
  });
});

describe('NodePanel', () => {
  it('edits a branch: rules with keywords or a regex', async () => {
    const onChange = vi.fn();
    renderWithProviders(
      <NodePanel kind="branch" data={{ rules: [{ id: 'r1', match: 'keywords', value: '' }] }} onChange={onChange} onRemove={() => {}} tags={[]} queues={[]} users={[]} />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar regra' }));
    expect(onChange).toHaveBeenLastCalledWith({
      rules: [
        { id: 'r1', match: 'keywords', value: '' },
        { id: 'r2', match: 'keywords', value: '' },
      ],
    });
    await userEvent.selectOptions(screen.getByLabelText('Comparação (r1)'), 'regex');
    expect(onChange).toHaveBeenLastCalledWith({ rules: [{ id: 'r1', match: 'regex', value: '' }] });
  });

  it('edits a message: text and at most three buttons', async () => {
    const onChange = vi.fn();
    renderWithProviders(<NodePanel kind="message" data={{ text: '', buttons: ['a', 'b', 'c'] }} onChange={onChange} onRemove={() => {}} tags={[]} queues={[]} users={[]} />);
    expect(screen.queryByRole('button', { name: 'Adicionar botão' })).toBeNull();
    fireEvent.change(screen.getByLabelText('Texto'), { target: { value: 'Oi' } });
    expect(onChange).toHaveBeenLastCalledWith({ text: 'Oi', buttons: ['a', 'b', 'c'] });
  });
});
