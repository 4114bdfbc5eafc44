// Add or edit a WhatsApp connection (spec section 2, edit dialog): name (required, 2 to
// 50: 'Too Short!', 'Too Long!', 'Required'), number, dailyMax, isDefault, outChannel,
// greeting and farewell texts and images, and the queues. Sent as multipart (POST or
// PUT /whatsapp). Server field errors land on their fields; other errors are toasts.
import { FilePicker } from '../../components/FilePicker';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { MultiSelect } from '../../components/MultiSelect';
import { Button, Field, Input, Switch, TextArea } from '../../components/primitives';
import { connectionRules, validate, type ValidationKey } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { useResource } from '../../app/resources';
import { connectionsApi, queuesApi } from '../../api/endpoints';
import type { Connection, ConnectionInput } from '../../api/types';
import { ImageRow, Pair, SwitchField } from './style';

type TextField = 'name' | 'number' | 'dailyMax' | 'greetingMessage' | 'farewellMessage';
type ErrorField = TextField | 'queueIds' | 'medias';
type Errors = Partial<Record<ErrorField, ValidationKey>>;

const knownFields: ErrorField[] = ['name', 'number', 'dailyMax', 'greetingMessage', 'farewellMessage', 'queueIds', 'medias'];

// Client-side rules (connectionRules): the server applies the same ones.
export function connectionErrors(v: Record<TextField, string>, queueCount: number): Errors {
  return validate(v, connectionRules(queueCount));
}

export interface ConnectionModalProps {
  connection: Connection | null; // null: a new WhatsApp connection
  onClose: () => void;
  onSaved: (c: Connection) => void;
}

export function ConnectionModal({ connection: c, onClose, onSaved }: ConnectionModalProps) {
  const { t } = useTranslation();
  const queues = useResource('queues', queuesApi.list);
  const [values, setValues] = useState<Record<TextField, string>>(() => ({
    name: c?.name ?? '',
    number: c?.number ?? '',
    dailyMax: String(c?.dailyMax ?? 0),
    greetingMessage: c?.greetingMessage ?? '',
    farewellMessage: c?.farewellMessage ?? '',
  }));
  const [isDefault, setDefault] = useState(!!c?.isDefault);
  const [outChannel, setOut] = useState(!!c?.outChannel);
  const [queueIds, setQueueIds] = useState<number[]>(() => (c?.queues ?? []).map((q) => q.id));
  const [images, setImages] = useState<{ greeting: File | null; farewell: File | null }>({ greeting: null, farewell: null });
  const [removed, setRemoved] = useState({ greeting: false, farewell: false });
  const { errors, busy, save } = useFormSave({ fields: knownFields, onSaved, onClose });

  const set = (f: TextField) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(connectionErrors(values, queueIds.length), () => {
      const body: ConnectionInput = {
        name: values.name.trim(),
        number: values.number.trim(),
        isDefault,
        outChannel,
        dailyMax: Number(values.dailyMax.trim() || '0'),
        greetingMessage: values.greetingMessage.trim(),
        farewellMessage: values.farewellMessage.trim(),
        queueIds,
        greetingMedia: images.greeting,
        farewellMedia: images.farewell,
        removeGreetingMedia: removed.greeting && !images.greeting,
        removeFarewellMedia: removed.farewell && !images.farewell,
      };
      return c ? connectionsApi.update(c.id, body) : connectionsApi.create(body);
    });
  };

  const error = (f: ErrorField) => <FormErrorText error={errors[f]} />;
  const text = (f: TextField, type = 'text') => (
    <Field>
      {t(`connections.form.${f}`)}
      <Input type={type} value={values[f]} onChange={set(f)} aria-invalid={!!errors[f]} name={f} inputMode={f === 'dailyMax' ? 'numeric' : undefined} />
      {error(f)}
    </Field>
  );
  const area = (f: TextField) => (
    <Field>
      {t(`connections.form.${f}`)}
      <TextArea rows={2} value={values[f]} onChange={set(f)} aria-invalid={!!errors[f]} name={f} />
      {error(f)}
    </Field>
  );
  const image = (which: 'greeting' | 'farewell') => {
    const current = which === 'greeting' ? c?.greetingMediaUrl : c?.farewellMediaUrl;
    const label = t(`connections.form.${which}Media`);
    return (
      <Field as="div">
        <span>{label}</span>
        <ImageRow>
          {current && !removed[which] && !images[which] && <img src={current} alt={label} />}
          <FilePicker
            accept="image/png,image/jpeg,image/gif,image/webp"
            label={label}
            name={`${which}Media`}
            onChange={(file) => setImages((v) => ({ ...v, [which]: file }))}
          />
          {current && !removed[which] && (
            <Button type="button" $small $variant="ghost" onClick={() => setRemoved((r) => ({ ...r, [which]: true }))}>
              {t('connections.form.removeImage')}
            </Button>
          )}
        </ImageRow>
      </Field>
    );
  };

  return (
    <FormDialog
      id="connection-form"
      width={560}
      title={c ? t('connections.form.editTitle') : t('connections.form.addTitle')}
      busy={busy}
      onClose={onClose}
      onSubmit={submit}
    >
      <Pair>
        {text('name')}
        {text('number', 'tel')}
      </Pair>
      <Pair>
        {text('dailyMax')}
        <div>
          <SwitchField>
            <Switch checked={isDefault} onChange={(e) => setDefault(e.target.checked)} name="isDefault" />
            {t('connections.form.isDefault')}
          </SwitchField>
          <SwitchField>
            <Switch checked={outChannel} onChange={(e) => setOut(e.target.checked)} name="outChannel" />
            {t('connections.form.outChannel')}
          </SwitchField>
        </div>
      </Pair>
      {area('greetingMessage')}
      {image('greeting')}
      {area('farewellMessage')}
      {image('farewell')}
      <Field as="div">
        <span>{t('connections.form.queues')}</span>
        <MultiSelect
          label={queueIds.length ? t('connections.form.queues') : t('connections.form.noQueues')}
          choices={(queues.data ?? []).map((q) => ({ id: q.id, name: q.name, color: q.color }))}
          value={queueIds}
          onChange={setQueueIds}
        />
        {error('queueIds')}
      </Field>
    </FormDialog>
  );
}
