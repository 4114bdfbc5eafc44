import { handlesOf, newNode, newNodeId, nodeErrors, starterDocument, toDocument, validationKey, flowKinds } from './graph';

describe('flow graph helpers', () => {
  it('lists the exits of each kind as the server does (engine.FlowHandles)', () => {
    expect(handlesOf('start', {})).toEqual(['out']);
    expect(handlesOf('wait', {})).toEqual(['reply', 'timeout']);
    expect(handlesOf('branch', { rules: [{ id: 'yes', match: 'keywords', value: 'sim' }] })).toEqual(['yes', 'else']);
    expect(handlesOf('http', {})).toEqual(['ok', 'fail', 'error']);
    expect(handlesOf('ai', {})).toEqual(['out', 'error']);
    expect(handlesOf('transfer', {})).toEqual([]);
    expect(handlesOf('end', {})).toEqual([]);
  });

  it('gives new nodes free ids and their defaults', () => {
    expect(newNodeId('message', [{ id: 'message-1' }, { id: 'message-3' }])).toBe('message-2');
    const n = newNode('wait', { x: 1, y: 2 }, []);
    expect(n).toEqual({ id: 'wait-1', type: 'wait', position: { x: 1, y: 2 }, data: { timeoutSeconds: 300 } });
    expect(flowKinds[0]).toBe('start');
  });

  it('splits the server errors into node and flow messages', () => {
    expect(nodeErrors({ 'nodes.a': 'Unreachable', name: 'Required' })).toEqual({ nodes: { a: 'Unreachable' }, flow: { name: 'Required' } });
    expect(nodeErrors(undefined)).toEqual({ nodes: {}, flow: {} });
    expect(validationKey('Cycle without a wait')).toBe('cycle');
    expect(validationKey('something new')).toBe('invalid');
  });

  it('saves the graph without the editor state', () => {
    const doc = starterDocument();
    const nodes = doc.nodes.map((n) => ({ ...n, position: { x: n.position.x + 0.4, y: n.position.y }, data: { ...n.data, error: 'Unreachable' } }));
    const out = toDocument(nodes, [{ id: 'e', source: 'start-1', sourceHandle: null, target: 'end-1' }]);
    expect(out.nodes[0]).toEqual({ id: 'start-1', type: 'start', position: { x: 40, y: 120 }, data: {} });
    expect(out.edges).toEqual([{ id: 'e', source: 'start-1', sourceHandle: 'out', target: 'end-1' }]);
  });
});
