// Add or edit one option of a menu: its number (1–999, unique in its menu), its line in
// the menu (1–100), what choosing it does (route to a queue or an attendant, show a
// message, open a menu one level down) and the message shown when it is chosen.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, Select, TextArea } from '../../components/primitives';
import { length, longTextMax, required, validate, type Rule } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { useResource } from '../../app/resources';
import { queuesApi, usersApi } from '../../api/endpoints';
import type { ID } from '../../api/types';
import { botsApi, commandTypes, type BotLevel, type CommandType } from './api';

type FieldName = 'commandBot' | 'descriptionBot' | 'commandType' | 'showMessage' | 'queueId' | 'userId' | 'parentId';
const fields: FieldName[] = ['commandBot', 'descriptionBot', 'commandType', 'showMessage', 'queueId', 'userId', 'parentId'];
const optionNumber: Rule = (v) => (/^\s*\d{1,3}\s*$/.test(v) && Number(v) > 0 ? null : 'validation.notNumber');
const picked: Rule = (v) => (v && v !== '0' ? null : 'validation.required');

export function BotModal({
  level,
  parentId,
  suggested,
  onClose,
  onSaved,
}: {
  level: BotLevel | null;
  parentId: ID;
  suggested: string;
  onClose: () => void;
  onSaved: (b: BotLevel) => void;
}) {
  const { t } = useTranslation();
  const queues = useResource('queues', queuesApi.list);
  const users = useResource('users:list', usersApi.list);
  const [values, setValues] = useState({
    commandBot: level?.commandBot ?? suggested,
    descriptionBot: level?.descriptionBot ?? '',
    commandType: (level?.commandType ?? 'queue') as CommandType,
    showMessage: level?.showMessage ?? '',
    queueId: String(level?.queueId || ''),
    userId: String(level?.userId || ''),
  });
  const { errors, busy, save } = useFormSave({ fields, onSaved, onClose });
  const set = (f: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));
  const type = values.commandType;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const rules: Partial<Record<FieldName, Rule[]>> = {
      commandBot: [required, optionNumber],
      descriptionBot: [required, length(1, 100)],
      showMessage: type === 'message' ? [required, length(1, longTextMax)] : [length(0, longTextMax)],
    };
    if (type === 'queue') rules.queueId = [picked];
    if (type === 'user') rules.userId = [picked];
    void save(validate({ ...values, parentId: '' }, rules), () => {
      const body = {
        parentId: level?.parentId ?? parentId,
        commandBot: values.commandBot.trim(),
        descriptionBot: values.descriptionBot.trim(),
        commandType: type,
        showMessage: values.showMessage.trim(),
        queueId: type === 'queue' || type === 'user' ? Number(values.queueId) || 0 : 0,
        userId: type === 'user' ? Number(values.userId) || 0 : 0,
      };
      return level ? botsApi.update(level.id, body) : botsApi.create(body);
    });
  };

  return (
    <FormDialog id="bot-form" width={560} title={level ? t('bots.form.editTitle') : t('bots.form.addTitle')} busy={busy} onClose={onClose} onSubmit={submit}>
      <Field>
        {t('bots.form.commandBot')}
        <Input name="commandBot" inputMode="numeric" value={values.commandBot} onChange={set('commandBot')} aria-invalid={!!errors.commandBot} autoComplete="off" />
        <FormErrorText error={errors.commandBot} />
      </Field>
      <Field>
        {t('bots.form.descriptionBot')}
        <Input name="descriptionBot" value={values.descriptionBot} onChange={set('descriptionBot')} aria-invalid={!!errors.descriptionBot} autoComplete="off" />
        <FormErrorText error={errors.descriptionBot} />
      </Field>
      <Field>
        {t('bots.form.commandType')}
        <Select name="commandType" value={type} onChange={set('commandType')} aria-invalid={!!errors.commandType}>
          {commandTypes.map((c) => (
            <option key={c} value={c}>
              {t(`bots.types.${c}`)}
            </option>
          ))}
        </Select>
        <FormErrorText error={errors.commandType} />
      </Field>
      {type === 'user' && (
        <Field>
          {t('bots.form.user')}
          <Select name="userId" value={values.userId} onChange={set('userId')} aria-invalid={!!errors.userId}>
            <option value="">{t('bots.form.choose')}</option>
            {(users.data ?? []).map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </Select>
          <FormErrorText error={errors.userId} />
        </Field>
      )}
      {(type === 'queue' || type === 'user') && (
        <Field>
          {type === 'user' ? t('bots.form.queueOptional') : t('bots.form.queue')}
          <Select name="queueId" value={values.queueId} onChange={set('queueId')} aria-invalid={!!errors.queueId}>
            <option value="">{t('bots.form.choose')}</option>
            {(queues.data ?? []).map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </Select>
          <FormErrorText error={errors.queueId} />
        </Field>
      )}
      <Field>
        {type === 'menu' ? t('bots.form.menuHeading') : t('bots.form.showMessage')}
        <TextArea $minHeight={90} rows={3} name="showMessage" value={values.showMessage} onChange={set('showMessage')} aria-invalid={!!errors.showMessage} />
        <FormErrorText error={errors.showMessage} />
      </Field>
      <FormErrorText error={errors.parentId} />
    </FormDialog>
  );
}
