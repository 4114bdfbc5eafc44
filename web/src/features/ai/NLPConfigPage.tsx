// /NLPConfig: the tenant's NLP intents — a name, example phrases and the queue a new
// ticket goes to when its first message shows the intent (docs/ai.md). ai:manage
// holders only.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { aiApi, queuesApi } from '../../api/endpoints';
import { useResource } from '../../app/resources';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Button, Field, Input, Muted, Row, Select, TextArea } from '../../components/primitives';
import { Header, Page, Title } from '../../components/pageStyle';
import type { AIIntent, AIIntentInput, ID } from '../../api/types';
import { Form, IntentItem } from './style';

const blank = { name: '', examples: '', queueId: 0 as ID };

export default function NLPConfigPage() {
  const { t } = useTranslation();
  const intents = useResource('aiIntents', aiApi.intents);
  const queues = useResource('queues', queuesApi.list);
  const [editing, setEditing] = useState<AIIntent | null>(null);
  const [form, setForm] = useState(blank);
  const [busy, setBusy] = useState(false);
  const [removing, setRemoving] = useState<AIIntent | null>(null);

  const edit = (i: AIIntent | null) => {
    setEditing(i);
    setForm(i ? { name: i.name, examples: i.examples.join('\n'), queueId: i.queueId } : blank);
  };
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const input: AIIntentInput = { name: form.name, examples: form.examples.split('\n'), queueId: Number(form.queueId) };
    setBusy(true);
    try {
      if (editing) await aiApi.updateIntent(editing.id, input);
      else await aiApi.createIntent(input);
      toast.success(t('ai.intents.saved'));
      edit(null);
      intents.reload();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (i: AIIntent) => {
    setRemoving(null);
    try {
      await aiApi.deleteIntent(i.id);
      toast.success(t('ai.intents.deleted'));
      intents.reload();
    } catch (err) {
      toastError(err);
    }
  };
  const queueName = (id: ID) => queues.data?.find((q) => q.id === id)?.name ?? String(id);

  return (
    <Page>
      <Header>
        <Title>{t('ai.intents.title')}</Title>
      </Header>
      <Muted>{t('ai.intents.intro')}</Muted>
      <Form onSubmit={(e) => void onSubmit(e)}>
        <Field>
          {t('ai.intents.name')}
          <Input name="name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </Field>
        <Field>
          {t('ai.intents.examples')}
          <TextArea name="examples" required rows={4} value={form.examples} onChange={(e) => setForm({ ...form, examples: e.target.value })} />
        </Field>
        <Field>
          {t('ai.intents.queue')}
          <Select name="queueId" required value={form.queueId || ''} onChange={(e) => setForm({ ...form, queueId: Number(e.target.value) })}>
            <option value="" disabled>
              {t('ai.intents.queue')}
            </option>
            {(queues.data ?? []).map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </Select>
        </Field>
        <Row $gap={8}>
          <Button type="submit" disabled={busy}>
            {editing ? t('ai.intents.save') : t('ai.intents.add')}
          </Button>
          {editing && (
            <Button type="button" $variant="secondary" onClick={() => edit(null)}>
              {t('ai.intents.cancel')}
            </Button>
          )}
        </Row>
      </Form>
      {intents.data?.length === 0 && <Muted>{t('ai.intents.empty')}</Muted>}
      <ul style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {(intents.data ?? []).map((i) => (
          <IntentItem key={i.id}>
            <div>
              <strong>{i.name}</strong> — {queueName(i.queueId)}
              <br />
              <Muted>{i.examples.join(' · ')}</Muted>
            </div>
            <Row $gap={8}>
              <Button type="button" $variant="secondary" onClick={() => edit(i)}>
                {t('ai.intents.edit')}
              </Button>
              <Button type="button" $variant="secondary" onClick={() => setRemoving(i)}>
                {t('ai.intents.delete')}
              </Button>
            </Row>
          </IntentItem>
        ))}
      </ul>
      <ConfirmDialog
        open={removing !== null}
        title={t('ai.intents.delete')}
        onClose={() => setRemoving(null)}
        onConfirm={() => removing && void remove(removing)}
      >
        {removing ? t('ai.intents.confirmDelete', { name: removing.name }) : null}
      </ConfirmDialog>
    </Page>
  );
}
