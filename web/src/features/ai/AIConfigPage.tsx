// /iaconfig (spec section 1, AI configuration): the tenant's OpenAI-compatible endpoint
// — base URL, API key (write-only: the server keeps it encrypted and answers only
// whether one is set), model, speech model and voice — with a test button that makes
// one request to the provider. ai:manage holders only; the provider's failures show as
// translated toasts (ERR_AI_…).
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { aiApi } from '../../api/endpoints';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { Button, Field, Input, Muted, Row, Select } from '../../components/primitives';
import { Header, Page, Title } from '../../components/pageStyle';
import type { AIConfigInput } from '../../api/types';
import { useAIConfig } from './useAIConfigured';
import { Form } from './style';

export const voices = ['alloy', 'ash', 'ballad', 'cedar', 'coral', 'echo', 'fable', 'marin', 'nova', 'onyx', 'sage', 'shimmer', 'verse'];

const empty: AIConfigInput = { baseUrl: '', apiKey: '', model: '', speechModel: 'gpt-4o-mini-tts', voice: 'alloy' };

export default function AIConfigPage() {
  const { t } = useTranslation();
  const config = useAIConfig();
  const [form, setForm] = useState<AIConfigInput>(empty);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const data = config.data;
  useEffect(() => {
    if (data) setForm((f) => ({ ...f, baseUrl: data.baseUrl ?? '', model: data.model ?? '', speechModel: data.speechModel || empty.speechModel, voice: data.voice || empty.voice }));
  }, [data]);

  const set = (k: keyof AIConfigInput) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const run = async (what: 'save' | 'test') => {
    setBusy(true);
    try {
      if (what === 'save') {
        await aiApi.save(form);
        setForm((f) => ({ ...f, apiKey: '' }));
        config.reload();
        toast.success(t('ai.config.saved'));
      } else {
        await aiApi.test(form);
        toast.success(t('ai.config.testOk'));
      }
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void run('save');
  };

  return (
    <Page>
      <Header>
        <Title>{t('ai.config.title')}</Title>
        <Muted role="status">{data?.configured ? t('ai.config.configured') : t('ai.config.notConfigured')}</Muted>
      </Header>
      <Muted>{t('ai.config.intro')}</Muted>
      <Form onSubmit={onSubmit} aria-labelledby={`${id}-t`}>
        <Field>
          {t('ai.config.baseUrl')}
          <Input name="baseUrl" type="url" required value={form.baseUrl} onChange={set('baseUrl')} placeholder="https://api.openai.com/v1" />
        </Field>
        <Field>
          {t('ai.config.apiKey')}
          <Input name="apiKey" type="password" autoComplete="off" value={form.apiKey} onChange={set('apiKey')} placeholder={data?.hasKey ? t('ai.config.apiKeyKept') : ''} />
        </Field>
        <Field>
          {t('ai.config.model')}
          <Input name="model" required value={form.model} onChange={set('model')} placeholder="gpt-4o-mini" />
        </Field>
        <Field>
          {t('ai.config.speechModel')}
          <Input name="speechModel" value={form.speechModel} onChange={set('speechModel')} />
        </Field>
        <Field>
          {t('ai.config.voice')}
          <Select name="voice" value={form.voice} onChange={set('voice')}>
            {voices.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </Select>
        </Field>
        <Row $gap={8}>
          <Button type="submit" disabled={busy}>
            {t('ai.config.save')}
          </Button>
          <Button type="button" $variant="secondary" disabled={busy} onClick={() => void run('test')}>
            {t('ai.config.test')}
          </Button>
        </Row>
      </Form>
    </Page>
  );
}
