// Add or edit a quick answer: shortcut required 1–50 (typed with or without the
// composer's '/'; sent without it), message required up to 4096 characters.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, FieldError, Input } from '../../components/primitives';
import { mapServerFields, quickAnswerRules, validate, type ValidationKey } from '../../app/validation';
import { toastError } from '../../app/errors';
import { quickAnswersApi } from '../../api/endpoints';
import type { QuickAnswer } from '../../api/types';
import { Form, Hint, TextArea } from './style';

type FieldName = 'shortcut' | 'message';

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
  const [errors, setErrors] = useState<Partial<Record<FieldName, ValidationKey>>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validate(values, quickAnswerRules);
    setErrors(found);
    if (Object.keys(found).length) return;
    const body = { shortcut: values.shortcut.trim().replace(/^\//, '').trim(), message: values.message.trim() };
    setBusy(true);
    try {
      const saved = answer ? await quickAnswersApi.update(answer.id, body) : await quickAnswersApi.create(body);
      onSaved(saved);
      onClose();
    } catch (err) {
      const mapped = mapServerFields<FieldName>(err, ['shortcut', 'message']);
      if (mapped) setErrors(mapped);
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      onClose={onClose}
      width={520}
      title={answer ? t('quickAnswers.form.editTitle') : t('quickAnswers.form.addTitle')}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="quick-answer-form" disabled={busy}>
            {t('common.actions.save')}
          </Button>
        </>
      }
    >
      <Form id="quick-answer-form" onSubmit={submit} noValidate>
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
          {errors.shortcut && <FieldError role="alert">{t(errors.shortcut)}</FieldError>}
        </Field>
        <Field>
          {t('quickAnswers.form.message')}
          <TextArea
            rows={5}
            value={values.message}
            onChange={(e) => setValues((v) => ({ ...v, message: e.target.value }))}
            aria-invalid={!!errors.message}
            name="message"
          />
          {errors.message && <FieldError role="alert">{t(errors.message)}</FieldError>}
        </Field>
      </Form>
    </Dialog>
  );
}
