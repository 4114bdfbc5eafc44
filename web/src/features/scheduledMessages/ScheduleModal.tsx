// Schedule a message, or edit one still pending: number (only without a contact or
// ticket, 12–15 digits with country code), connection (not asked from a ticket), date
// and time (steps of 10 minutes, later than now) and message (3–400 characters). The
// server checks the same, in the same order (docs/api.md section 2.8b).
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, TextArea } from '../../components/primitives';
import { scheduleRules, validate } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { connectionsApi, scheduledMessagesApi } from '../../api/endpoints';
import type { Connection, ID, Schedule } from '../../api/types';
import { toast } from '../../components/toast/toastStore';

type FieldName = 'phoneNumber' | 'wpId' | 'sendAt' | 'message';

const fields: FieldName[] = ['phoneNumber', 'wpId', 'sendAt', 'message'];

// The variables a message may hold (engine.RenderMessage), shown as a hint.
const variables = '{{firstName}}, {{name}}, {{email}}, {{phone}}, {{date}}, {{hour}}, {{protocol}}, {{ticket_id}}';

// localInput is a UTC instant as a datetime-local value in the browser's zone.
function localInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function ScheduleModal({
  schedule,
  ticketId,
  contactId,
  onClose,
  onSaved,
}: {
  schedule: Schedule | null;
  /** Scheduling from a ticket: its contact and connection are the ticket's. */
  ticketId?: ID;
  contactId?: ID;
  onClose: () => void;
  onSaved: (s: Schedule) => void;
}) {
  const { t } = useTranslation();
  const fromTicket = !!(ticketId || schedule?.ticketId);
  const needNumber = !fromTicket && !(contactId || schedule?.contactId);
  const [connections, setConnections] = useState<Connection[]>([]);
  const [values, setValues] = useState<Record<FieldName, string>>({
    phoneNumber: schedule?.phoneNumber ?? '',
    wpId: schedule?.wpId ? String(schedule.wpId) : '',
    sendAt: schedule ? localInput(schedule.sendAt) : '',
    message: schedule?.message ?? '',
  });
  const { errors, busy, save } = useFormSave({
    fields,
    onSaved: (s: Schedule) => {
      toast.success(t('scheduling.toasts.saved'));
      onSaved(s);
    },
    onClose,
  });

  useEffect(() => {
    if (fromTicket) return;
    connectionsApi.list().then(setConnections, () => setConnections([]));
  }, [fromTicket]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = validate(values, scheduleRules);
    if (!needNumber) delete found.phoneNumber;
    const checked: Partial<Record<FieldName, (typeof found)[keyof typeof found]>> = { ...found };
    if (!fromTicket && !values.wpId) checked.wpId = 'validation.required';
    void save(checked, () => {
      const body = {
        phoneNumber: needNumber ? values.phoneNumber.trim() : '',
        contactId: contactId ?? (schedule?.contactId || null),
        ticketId: ticketId ?? (schedule?.ticketId || null),
        wpId: values.wpId ? Number(values.wpId) : null,
        sendAt: values.sendAt,
        message: values.message.trim(),
      };
      return schedule ? scheduledMessagesApi.update(schedule.id, body) : scheduledMessagesApi.create(body);
    });
  };

  const set = (f: FieldName) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));
  return (
    <FormDialog
      id="schedule-form"
      width={520}
      title={schedule ? t('scheduling.form.editTitle') : t('scheduling.form.addTitle')}
      busy={busy}
      onClose={onClose}
      onSubmit={submit}
    >
      {needNumber && (
        <Field>
          {t('scheduling.form.phoneNumber')}
          <Input value={values.phoneNumber} onChange={set('phoneNumber')} aria-invalid={!!errors.phoneNumber} name="phoneNumber" inputMode="tel" />
          <FormErrorText error={errors.phoneNumber} />
        </Field>
      )}
      {!fromTicket && (
        <Field>
          {t('scheduling.form.connection')}
          <select value={values.wpId} onChange={set('wpId')} aria-invalid={!!errors.wpId} name="wpId">
            <option value="">{t('scheduling.form.chooseConnection')}</option>
            {connections.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <FormErrorText error={errors.wpId} />
        </Field>
      )}
      <Field>
        {t('scheduling.form.sendAt')}
        <Input type="datetime-local" step={600} value={values.sendAt} onChange={set('sendAt')} aria-invalid={!!errors.sendAt} name="sendAt" />
        <FormErrorText error={errors.sendAt} />
      </Field>
      <Field>
        {t('scheduling.form.message')}
        <TextArea $minHeight={100} rows={4} value={values.message} onChange={set('message')} aria-invalid={!!errors.message} name="message" />
        <small>{t('scheduling.form.variables', { vars: variables, greeting: '{{ms}}' })}</small>
        <FormErrorText error={errors.message} />
      </Field>
    </FormDialog>
  );
}
