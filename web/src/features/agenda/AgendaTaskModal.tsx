// The agenda-task modal (spec sections 2, 3 and 5): a task with a name, a contact (a
// ticket's when opened from the chat header, else searched from 3 characters), a
// message sent at its time, the time (steps of 30 minutes, not in the past) and the
// tags it is filed under. Submit checks in the spec's order — missing schedule, missing
// name, missing message — and shows the first one failing as an error toast, like the
// server answers only its first failing field; then the contact. POST /agenda.
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, Muted, TextArea } from '../../components/primitives';
import { MenuItem } from '../../components/Popover';
import { toast } from '../../components/toast/toastStore';
import { useContactSearch } from '../contacts/useContactSearch';
import { useFormSave } from '../../app/useFormSave';
import { length, required, validate, type ValidationKey } from '../../app/validation';
import { tagsApi } from '../../api/endpoints';
import type { ID, Tag } from '../../api/types';
import { agendaTaskApi, type AgendaTask, type AgendaTaskInput } from './api';

type FieldName = 'sendAt' | 'taskName' | 'message' | 'contactId';
const fields: FieldName[] = ['sendAt', 'taskName', 'message', 'contactId'];

type TaskKey = 'agenda.task.scheduleRequired' | 'agenda.task.nameRequired' | 'agenda.task.messageRequired' | 'agenda.task.contactRequired';

// The spec's toast for each missing field, in the order the checks run.
const missing: Record<FieldName, TaskKey> = {
  sendAt: 'agenda.task.scheduleRequired',
  taskName: 'agenda.task.nameRequired',
  message: 'agenda.task.messageRequired',
  contactId: 'agenda.task.contactRequired',
};

export interface AgendaTaskValues {
  sendAt: string;
  taskName: string;
  message: string;
  /** '' until a contact is picked (or given by the ticket). */
  contactId: string;
}

// checkTask: the first failing check, in the spec's order (schedule, name, message,
// then the contact the server needs without a ticket); empty when all pass. A missing
// value is the spec's toast text; a wrong one (too short, in the past) the shared
// validation message.
export function checkTask(values: AgendaTaskValues, withTicket: boolean): Partial<Record<FieldName, ValidationKey | TaskKey>> {
  for (const f of fields) {
    if (f === 'contactId') {
      if (!withTicket && !values.contactId) return { contactId: missing.contactId };
      continue;
    }
    if (!values[f].trim()) return { [f]: missing[f] };
    const found = validate(values, {
      sendAt: [(v: string) => (new Date(v).getTime() > Date.now() ? null : 'validation.dateBeforeNow')],
      taskName: [required, length(3, 400)],
      message: [required, length(3, 400)],
    } as const);
    const err = found[f as 'sendAt' | 'taskName' | 'message'];
    if (err) return { [f]: err };
  }
  return {};
}

export function AgendaTaskModal({
  ticketId,
  contact,
  onClose,
  onSaved,
}: {
  /** Opened from a ticket: the task is the ticket's, for its contact. */
  ticketId?: ID;
  contact?: { id: ID; name: string } | null;
  onClose: () => void;
  onSaved?: (task: AgendaTask) => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<AgendaTaskValues>({ sendAt: '', taskName: '', message: '', contactId: contact ? String(contact.id) : '' });
  const [picked, setPicked] = useState<{ id: ID; name: string } | null>(contact ?? null);
  const [search, setSearch] = useState('');
  const found = useContactSearch(search, !picked);
  const [tags, setTags] = useState<Tag[]>([]);
  const [tagFilter, setTagFilter] = useState<ID[]>([]);
  const { errors, busy, save } = useFormSave<FieldName, AgendaTask, TaskKey>({
    fields,
    onSaved: (task) => {
      toast.success(t('agenda.task.saved'));
      onSaved?.(task);
    },
    onClose,
  });

  useEffect(() => {
    tagsApi.list().then(setTags, () => setTags([]));
  }, []);

  const set = (f: keyof AgendaTaskValues) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const first = checkTask(values, !!ticketId);
    const key = Object.values(first)[0];
    if (key) toast.error(t(key));
    void save(first, () => {
      const body: AgendaTaskInput = {
        taskName: values.taskName.trim(),
        contactId: values.contactId ? Number(values.contactId) : null,
        message: values.message.trim(),
        userId: null,
        ticketId: ticketId ?? null,
        sendAt: values.sendAt,
        tagFilter,
      };
      return agendaTaskApi.create(body);
    });
  };

  const toggleTag = (id: ID) => setTagFilter((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));

  return (
    <FormDialog id="agenda-task-form" width={520} title={t('agenda.task.addTitle')} busy={busy} onClose={onClose} onSubmit={submit}>
      <Field>
        {t('agenda.task.name')}
        <Input name="taskName" value={values.taskName} onChange={set('taskName')} aria-invalid={!!errors.taskName} autoComplete="off" />
        <FormErrorText error={errors.taskName} />
      </Field>
      <Field>
        {t('agenda.task.sendAt')}
        <Input type="datetime-local" step={1800} name="sendAt" value={values.sendAt} onChange={set('sendAt')} aria-invalid={!!errors.sendAt} />
        <FormErrorText error={errors.sendAt} />
      </Field>
      {picked ? (
        <Field as="div">
          {t('agenda.task.contact')}
          <Muted data-testid="agenda-task-contact">{picked.name}</Muted>
          {!ticketId && (
            <button
              type="button"
              onClick={() => {
                setPicked(null);
                setValues((v) => ({ ...v, contactId: '' }));
              }}
            >
              {t('agenda.task.changeContact')}
            </button>
          )}
        </Field>
      ) : (
        <Field>
          {t('agenda.task.contact')}
          <Input
            type="search"
            name="contactSearch"
            value={search}
            placeholder={t('agenda.task.contactSearch')}
            aria-invalid={!!errors.contactId}
            onChange={(e) => setSearch(e.target.value)}
          />
          {found.map((c) => (
            <MenuItem
              key={c.id}
              type="button"
              onClick={() => {
                setPicked({ id: c.id, name: c.name });
                setValues((v) => ({ ...v, contactId: String(c.id) }));
              }}
            >
              {c.name} · {c.number}
            </MenuItem>
          ))}
          <FormErrorText error={errors.contactId} />
        </Field>
      )}
      <Field>
        {t('agenda.task.message')}
        <TextArea $minHeight={100} rows={4} name="message" value={values.message} onChange={set('message')} aria-invalid={!!errors.message} />
        <FormErrorText error={errors.message} />
      </Field>
      {tags.length > 0 && (
        <fieldset>
          <legend>{t('agenda.task.tags')}</legend>
          {tags.map((tag) => (
            <label key={tag.id}>
              <input type="checkbox" checked={tagFilter.includes(tag.id)} onChange={() => toggleTag(tag.id)} /> {tag.name}
            </label>
          ))}
        </fieldset>
      )}
    </FormDialog>
  );
}
