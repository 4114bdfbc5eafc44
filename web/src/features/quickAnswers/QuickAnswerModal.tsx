// Add or edit a quick answer: shortcut required 1–50 (typed with or without the
// composer's '/'; sent without it), message required up to 4096 characters.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, TextArea } from '../../components/primitives';
import { quickAnswerRules, validate } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { quickAnswersApi } from '../../api/endpoints';
import type { QuickAnswer } from '../../api/types';
import { Hint } from './style';

type FieldName = 'shortcut' | 'message';

const fields: FieldName[] = ['shortcut', 'message'];

export function QuickAnswerModal({
  answer,
  onClose,
  onSaved,
}: {
  answer: QuickAnswer | null;
  onClose: () => void;
  onSaved: (a: QuickAnswer) => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<FieldName, string>>({ shortcut: answer?.shortcut ?? '', message: answer?.message ?? '' });
  const { errors, busy, save } = useFormSave({ fields, onSaved, onClose });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate(values, quickAnswerRules), () => {
      const body = { shortcut: values.shortcut.trim().replace(/^\//, '').trim(), message: values.message.trim() };
      return answer ? quickAnswersApi.update(answer.id, body) : quickAnswersApi.create(body);
    });
  };

  return (
    <FormDialog
      id="quick-answer-form"
      width={520}
      title={answer ? t('quickAnswers.form.editTitle') : t('quickAnswers.form.addTitle')}
      busy={busy}
      onClose={onClose}
      onSubmit={submit}
    >
      <Field>
        {t('quickAnswers.form.shortcut')}
        <Input
          value={values.shortcut}
          onChange={(e) => setValues((v) => ({ ...v, shortcut: e.target.value }))}
          aria-invalid={!!errors.shortcut}
          name="shortcut"
          autoComplete="off"
        />
        <Hint>{t('quickAnswers.form.shortcutHint')}</Hint>
        <FormErrorText error={errors.shortcut} />
      </Field>
      <Field>
        {t('quickAnswers.form.message')}
        <TextArea
          $minHeight={120}
          rows={5}
          value={values.message}
          onChange={(e) => setValues((v) => ({ ...v, message: e.target.value }))}
          aria-invalid={!!errors.message}
          name="message"
        />
        <FormErrorText error={errors.message} />
      </Field>
    </FormDialog>
  );
}
