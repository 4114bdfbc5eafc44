// The Group modal (spec section 5, issue 12 item 4): group name; root of the
// numbering (the first group's last 3 digits); Admin 1 and Admin 2; the number of
// sequential groups; the maximum participants per group; the profile image (a JPEG);
// and the WhatsApp connection that creates them. Every field is required: the form
// checks the rules first and the server answers the same messages by field.
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ParseKeys } from 'i18next';
import { connectionsApi } from '../../api/endpoints';
import type { Connection, ID } from '../../api/types';
import { errorText } from '../../app/errors';
import { mapServerFields, required, validate, type Rule, type ValidationKey } from '../../app/validation';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, Select } from '../../components/primitives';
import { FilePicker } from '../../components/FilePicker';
import { toast } from '../../components/toast/toastStore';
import { groupsApi, type GroupBatch } from './api';
import { Pair } from './style';

type Fields = 'name' | 'root' | 'admin1' | 'admin2' | 'count' | 'maxParticipants' | 'media' | 'connectionId';
const fieldNames: Fields[] = ['name', 'root', 'admin1', 'admin2', 'count', 'maxParticipants', 'media', 'connectionId'];

// The limits the server holds (engine/group.go).
const maxGroups = 100;
const minParticipants = 4; // the account and both admins take three seats
const maxParticipantsLimit = 1024;
const maxBaseName = 21; // "<name> NNN" within WhatsApp's 25 characters

const tooLong =
  (max: number): Rule =>
  (v) =>
    [...v.trim()].length > max ? 'validation.tooLong' : null;
const root: Rule = (v) => (v.trim() && !/^\d{1,3}$/.test(v.trim()) ? 'validation.invalidValue' : null);
const phone: Rule = (v) => {
  if (!v.trim()) return null;
  if (/[^\d\s()+-]/.test(v)) return 'validation.notNumber';
  const n = v.replace(/\D/g, '').length;
  return n < 8 || n > 15 ? 'validation.notNumber' : null;
};
const between =
  (min: number, max: number): Rule =>
  (v) => {
    if (!v.trim()) return null;
    const n = Number(v);
    return Number.isInteger(n) && n >= min && n <= max ? null : 'validation.invalidValue';
  };

export function GroupModal({ onClose, onSaved }: { onClose: () => void; onSaved: (b: GroupBatch) => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<Exclude<Fields, 'media'>, string>>({
    name: '',
    root: '',
    admin1: '',
    admin2: '',
    count: '',
    maxParticipants: '',
    connectionId: '',
  });
  const [picture, setPicture] = useState<File | null>(null);
  const [connections, setConnections] = useState<Connection[]>([]);
  const [errors, setErrors] = useState<Partial<Record<Fields, ValidationKey>>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    connectionsApi.list().then(
      (list) => {
        const wa = list.filter((c) => c.channel === 'whatsapp');
        setConnections(wa);
        if (wa.length) setValues((v) => (v.connectionId ? v : { ...v, connectionId: String(wa[0].id) }));
      },
      () => setConnections([]),
    );
  }, []);

  const set = (f: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found: Partial<Record<Fields, ValidationKey>> = validate(values, {
      name: [required, tooLong(maxBaseName)],
      root: [required, root],
      admin1: [required, phone],
      admin2: [required, phone],
      count: [required, between(1, maxGroups)],
      maxParticipants: [required, between(minParticipants, maxParticipantsLimit)],
      connectionId: [required],
    });
    if (!picture) found.media = 'validation.required';
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      const up = await groupsApi.uploadPicture(picture!);
      const b = await groupsApi.create({
        name: values.name.trim(),
        root: values.root.trim(),
        admin1: values.admin1,
        admin2: values.admin2,
        count: Number(values.count),
        maxParticipants: Number(values.maxParticipants),
        connectionId: Number(values.connectionId) as ID,
        mediaPath: up.mediaPath,
        mediaType: up.mediaType,
      });
      onSaved(b);
      toast.success(t('groups.created', { count: b.count }));
      onClose();
    } catch (err) {
      const mapped = mapServerFields(err, fieldNames);
      if (mapped) setErrors(mapped);
      toast.error(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const err = (f: Fields): ParseKeys | undefined => errors[f];
  const text = (f: Exclude<Fields, 'media' | 'connectionId'>, label: ParseKeys, inputMode?: 'numeric' | 'tel') => (
    <Field>
      {t(label)}
      <Input name={f} value={values[f]} inputMode={inputMode} onChange={set(f)} aria-invalid={!!errors[f]} />
      <FormErrorText error={err(f)} />
    </Field>
  );

  return (
    <FormDialog id="group-form" title={t('groups.new')} width={620} busy={busy} onClose={onClose} onSubmit={submit}>
      {text('name', 'groups.form.name')}
      {text('root', 'groups.form.root', 'numeric')}
      <Pair>
        {text('admin1', 'groups.form.admin1', 'tel')}
        {text('admin2', 'groups.form.admin2', 'tel')}
      </Pair>
      <Pair>
        {text('count', 'groups.form.count', 'numeric')}
        {text('maxParticipants', 'groups.form.maxParticipants', 'numeric')}
      </Pair>
      <Field as="div">
        {t('groups.form.picture')}
        <div>
          <FilePicker label={t('groups.form.picture')} name="picture" accept="image/jpeg" onChange={setPicture} />
        </div>
        <FormErrorText error={err('media')} />
      </Field>
      <Field>
        {t('groups.form.connection')}
        <Select name="connectionId" value={values.connectionId} onChange={set('connectionId')} aria-invalid={!!errors.connectionId}>
          {connections.length === 0 && <option value="">{t('groups.form.noConnection')}</option>}
          {connections.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </Select>
        <FormErrorText error={err('connectionId')} />
      </Field>
    </FormDialog>
  );
}
