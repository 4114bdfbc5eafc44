// The side panel: the selected node's fields, by kind. Every change goes to onChange
// as the node's whole new data.
import { useTranslation } from 'react-i18next';
import type { FlowKind, FlowNodeData, FlowRule } from '../../api/flows';
import type { ID } from '../../api/types';
import { Button, Field, Input, Row, Select, TextArea } from '../../components/primitives';

export interface Named {
  id: ID;
  name: string;
}

export interface NodePanelProps {
  kind: FlowKind;
  data: FlowNodeData;
  onChange: (data: FlowNodeData) => void;
  onRemove: () => void;
  tags: Named[];
  queues: Named[];
  users: Named[];
}

function nextRuleId(rules: FlowRule[]): string {
  const taken = new Set(rules.map((r) => r.id));
  for (let i = 1; ; i++) if (!taken.has(`r${i}`)) return `r${i}`;
}

export function NodePanel({ kind, data, onChange, onRemove, tags, queues, users }: NodePanelProps) {
  const { t } = useTranslation();
  const set = (patch: Partial<FlowNodeData>) => onChange({ ...data, ...patch });
  const idSelect = (label: string, value: ID | undefined, items: Named[], key: 'tagId' | 'queueId' | 'userId') => (
    <Field>
      {label}
      <Select value={value ?? 0} onChange={(e) => set({ [key]: Number(e.target.value) || undefined })}>
        <option value={0}>{t('bizflow.fields.none')}</option>
        {items.map((i) => (
          <option key={i.id} value={i.id}>
            {i.name}
          </option>
        ))}
      </Select>
    </Field>
  );
  const rules = data.rules ?? [];
  const buttons = data.buttons ?? [];
  return (
    <>
      <h2>{t(`bizflow.kinds.${kind}`)}</h2>
      {(kind === 'message' || kind === 'ai' || kind === 'end') && (
        <Field>
          {kind === 'ai' ? t('bizflow.fields.prompt') : kind === 'end' ? t('bizflow.fields.endText') : t('bizflow.fields.text')}
          <TextArea value={data.text ?? ''} onChange={(e) => set({ text: e.target.value })} />
        </Field>
      )}
      {kind === 'message' && (
        <>
          <Field>
            {t('bizflow.fields.mediaUrl')}
            <Input value={data.mediaUrl ?? ''} onChange={(e) => set({ mediaUrl: e.target.value || undefined })} />
          </Field>
          <fieldset>
            <legend>{t('bizflow.fields.buttons')}</legend>
            {buttons.map((b, i) => (
              <Row key={i} $gap={4}>
                <Input
                  aria-label={t('bizflow.fields.button', { n: i + 1 })}
                  value={b}
                  onChange={(e) => set({ buttons: buttons.map((x, j) => (j === i ? e.target.value : x)) })}
                />
                <Button type="button" $small $variant="ghost" onClick={() => set({ buttons: buttons.filter((_, j) => j !== i) })}>
                  {t('bizflow.fields.remove')}
                </Button>
              </Row>
            ))}
            {buttons.length < 3 && (
              <Button type="button" $small onClick={() => set({ buttons: [...buttons, ''] })}>
                {t('bizflow.fields.addButton')}
              </Button>
            )}
          </fieldset>
        </>
      )}
      {(kind === 'wait' || kind === 'http') && (
        <Field>
          {t('bizflow.fields.timeoutSeconds')}
          <Input
            type="number"
            min={1}
            value={data.timeoutSeconds ?? ''}
            onChange={(e) => set({ timeoutSeconds: Number(e.target.value) || 0 })}
          />
        </Field>
      )}
      {kind === 'branch' && (
        <fieldset>
          <legend>{t('bizflow.fields.rules')}</legend>
          {rules.map((r, i) => {
            const update = (patch: Partial<FlowRule>) => set({ rules: rules.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
            return (
              <div key={r.id} data-testid={`flow-rule-${r.id}`}>
                <Field>
                  {t('bizflow.fields.match')} ({r.id})
                  <Select value={r.match} onChange={(e) => update({ match: e.target.value as FlowRule['match'] })}>
                    <option value="keywords">{t('bizflow.fields.keywords')}</option>
                    <option value="regex">{t('bizflow.fields.regex')}</option>
                  </Select>
                </Field>
                <Field>
                  {t('bizflow.fields.value')} ({r.id})
                  <Input value={r.value} onChange={(e) => update({ value: e.target.value })} />
                </Field>
                <Button type="button" $small $variant="ghost" onClick={() => set({ rules: rules.filter((_, j) => j !== i) })}>
                  {t('bizflow.fields.remove')}
                </Button>
              </div>
            );
          })}
          <Button type="button" $small onClick={() => set({ rules: [...rules, { id: nextRuleId(rules), match: 'keywords', value: '' }] })}>
            {t('bizflow.fields.addRule')}
          </Button>
        </fieldset>
      )}
      {kind === 'tag' && idSelect(t('bizflow.fields.tag'), data.tagId, tags, 'tagId')}
      {(kind === 'queue' || kind === 'transfer') && idSelect(t('bizflow.fields.queue'), data.queueId, queues, 'queueId')}
      {kind === 'transfer' && idSelect(t('bizflow.fields.user'), data.userId, users, 'userId')}
      {kind === 'http' && (
        <>
          <Field>
            {t('bizflow.fields.method')}
            <Select value={data.method ?? 'GET'} onChange={(e) => set({ method: e.target.value as 'GET' | 'POST' })}>
              <option value="GET">GET</option>
              <option value="POST">POST</option>
            </Select>
          </Field>
          <Field>
            {t('bizflow.fields.url')}
            <Input value={data.url ?? ''} onChange={(e) => set({ url: e.target.value })} />
          </Field>
          {data.method === 'POST' && (
            <Field>
              {t('bizflow.fields.body')}
              <TextArea value={data.body ?? ''} onChange={(e) => set({ body: e.target.value })} />
            </Field>
          )}
        </>
      )}
      {kind !== 'start' && (
        <Button type="button" $variant="danger" onClick={onRemove}>
          {t('bizflow.deleteNode')}
        </Button>
      )}
    </>
  );
}
