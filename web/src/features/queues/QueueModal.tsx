// Add or edit a queue (spec section 3 fields). Name 2–50; colour #RRGGBB and unique
// among the tenant's queues; a greeting is required once there is more than one queue
// (spec section 5; greetingRequired comes from the page, which knows the count);
// working hours HH:MM, both or neither; url http(s). Server field errors land on their
// fields. With the survey (nps) on, the queue's own rating question: empty sends the
// server's default (pt-BR); a button fills in the default of the admin's language;
// ERR_QUEUE_COLOR_ALREADY_EXISTS (a queue made meanwhile elsewhere) is a toast.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Button, Field, Input, Muted, Switch, TextArea } from '../../components/primitives';
import { queueErrors, type QueueField, type ValidationKey } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { queuesApi } from '../../api/endpoints';
import type { Queue, QueueInput } from '../../api/types';
import { firstFreeColor } from '../tags/palette';
import { ColorRow, Pair, SwitchField } from './style';

// A colour another queue has: checked here, before the server would refuse it.
type ColorTaken = 'backendErrors.ERR_QUEUE_COLOR_ALREADY_EXISTS';
type Errors = Partial<Record<QueueField, ValidationKey | ColorTaken>>;

const fields: QueueField[] = [
  'name',
  'color',
  'greetingMessage',
  'startWork',
  'endWork',
  'absenceMessage',
  'encouragingMessage',
  'ratingQuestion',
  'url',
];

export interface QueueModalProps {
  queue: Queue | null;
  greetingRequired: boolean;
  takenColors: string[]; // the other queues' colours
  onClose: () => void;
  onSaved: (q: Queue) => void;
}

export function QueueModal({ queue, greetingRequired, takenColors, onClose, onSaved }: QueueModalProps) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<QueueField, string>>(() => ({
    name: queue?.name ?? '',
    color: queue?.color ?? firstFreeColor(takenColors),
    greetingMessage: queue?.greetingMessage ?? '',
    startWork: queue?.startWork ?? '',
    endWork: queue?.endWork ?? '',
    absenceMessage: queue?.absenceMessage ?? '',
    encouragingMessage: queue?.encouragingMessage ?? '',
    ratingQuestion: queue?.ratingQuestion ?? '',
    url: queue?.url ?? '',
  }));
  const [nps, setNps] = useState(!!queue?.nps);
  const { errors, busy, save } = useFormSave<QueueField, Queue, ColorTaken>({ fields, onSaved, onClose });

  const set = (f: QueueField) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: Errors = queueErrors(values, greetingRequired);
    const color = values.color.trim().toLowerCase();
    if (!found.color && takenColors.some((c) => c.toLowerCase() === color)) found.color = 'backendErrors.ERR_QUEUE_COLOR_ALREADY_EXISTS';
    void save(found, () => {
      const body: QueueInput = {
        name: values.name.trim(),
        color,
        greetingMessage: values.greetingMessage.trim(),
        startWork: values.startWork.trim(),
        endWork: values.endWork.trim(),
        absenceMessage: values.absenceMessage.trim(),
        nps,
        encouragingMessage: values.encouragingMessage.trim(),
        ratingQuestion: values.ratingQuestion.trim(),
        url: values.url.trim(),
      };
      return queue ? queuesApi.update(queue.id, body) : queuesApi.create(body);
    });
  };

  const error = (f: QueueField) => <FormErrorText error={errors[f]} />;
  const text = (f: QueueField, type = 'text') => (
    <Field>
      {t(`queues.form.${f}` as 'queues.form.name')}
      <Input type={type} value={values[f]} onChange={set(f)} aria-invalid={!!errors[f]} name={f} />
      {error(f)}
    </Field>
  );
  const area = (f: QueueField) => (
    <Field>
      {t(`queues.form.${f}` as 'queues.form.name')}
      <TextArea rows={2} value={values[f]} onChange={set(f)} aria-invalid={!!errors[f]} name={f} />
      {error(f)}
    </Field>
  );
  const validColor = /^#[0-9a-f]{6}$/i.test(values.color.trim()) ? values.color.trim() : '#000000';

  return (
    <FormDialog
      id="queue-form"
      width={560}
      title={queue ? t('queues.form.editTitle') : t('queues.form.addTitle')}
      busy={busy}
      onClose={onClose}
      onSubmit={submit}
    >
      {text('name')}
      <Field as="div">
        <span id="queue-color-label">{t('queues.form.color')}</span>
        <ColorRow>
          <input
            type="color"
            aria-labelledby="queue-color-label"
            value={validColor}
            onChange={(e) => setValues((v) => ({ ...v, color: e.target.value }))}
          />
          <Input
            value={values.color}
            onChange={set('color')}
            aria-label={t('queues.form.colorHex')}
            aria-invalid={!!errors.color}
            name="color"
            maxLength={7}
          />
        </ColorRow>
        {error('color')}
      </Field>
      {area('greetingMessage')}
      <Pair>
        {text('startWork', 'time')}
        {text('endWork', 'time')}
      </Pair>
      {area('absenceMessage')}
      <SwitchField>
        <Switch checked={nps} onChange={(e) => setNps(e.target.checked)} name="nps" />
        {t('queues.form.nps')}
      </SwitchField>
      {area('encouragingMessage')}
      {nps && (
        <>
          <Field>
            {t('queues.form.ratingQuestion')}
            <TextArea
              rows={2}
              value={values.ratingQuestion}
              onChange={set('ratingQuestion')}
              aria-invalid={!!errors.ratingQuestion}
              aria-describedby="queue-rating-hint"
              name="ratingQuestion"
            />
            {error('ratingQuestion')}
          </Field>
          <div>
            <Muted id="queue-rating-hint">{t('queues.form.ratingQuestionHint')}</Muted>{' '}
            <Button
              type="button"
              $variant="ghost"
              $small
              onClick={() => setValues((v) => ({ ...v, ratingQuestion: t('queues.form.ratingQuestionDefault') }))}
            >
              {t('queues.form.ratingQuestionUseDefault')}
            </Button>
          </div>
        </>
      )}
      {text('url', 'url')}
    </FormDialog>
  );
}
