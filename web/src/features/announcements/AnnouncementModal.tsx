// Add or edit an announcement: title required 1–100, text required up to 4096,
// priority 1 (red) / 2 (orange) / 3 (grey), active switch (the top bar shows the newest
// active one).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, FieldError, Input, Select, Switch } from '../../components/primitives';
import { announcementRules, mapServerFields, validate, type ValidationKey } from '../../app/validation';
import { toastError } from '../../app/errors';
import { announcementsApi } from '../../api/endpoints';
import type { Announcement, AnnouncementInput } from '../../api/types';
import { TextArea } from '../quickAnswers/style';
import { Form, Row, SwitchLabel } from './style';

type FieldName = 'title' | 'text';

const priorities = [1, 2, 3] as const;

export function AnnouncementModal({
  announcement,
  onClose,
  onSaved,
}: {
  announcement: Announcement | null;
  onClose: () => void;
  onSaved: (a: Announcement) => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<FieldName, string>>({
    title: announcement?.title ?? '',
    text: announcement?.text ?? '',
  });
  const [priority, setPriority] = useState<1 | 2 | 3>(announcement?.priority ?? 3);
  const [status, setStatus] = useState(announcement?.status ?? true);
  const [errors, setErrors] = useState<Partial<Record<FieldName, ValidationKey>>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validate(values, announcementRules);
    setErrors(found);
    if (Object.keys(found).length) return;
    const body: AnnouncementInput = { title: values.title.trim(), text: values.text.trim(), priority, status };
    setBusy(true);
    try {
      const saved = announcement ? await announcementsApi.update(announcement.id, body) : await announcementsApi.create(body);
      onSaved(saved);
      onClose();
    } catch (err) {
      const mapped = mapServerFields<FieldName>(err, ['title', 'text']);
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
      width={560}
      title={announcement ? t('announcements.form.editTitle') : t('announcements.form.addTitle')}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="announcement-form" disabled={busy}>
            {t('common.actions.save')}
          </Button>
        </>
      }
    >
      <Form id="announcement-form" onSubmit={submit} noValidate>
        <Field>
          {t('announcements.form.titleField')}
          <Input
            value={values.title}
            onChange={(e) => setValues((v) => ({ ...v, title: e.target.value }))}
            aria-invalid={!!errors.title}
            name="title"
            autoComplete="off"
          />
          {errors.title && <FieldError role="alert">{t(errors.title)}</FieldError>}
        </Field>
        <Field>
          {t('announcements.form.text')}
          <TextArea
            rows={6}
            value={values.text}
            onChange={(e) => setValues((v) => ({ ...v, text: e.target.value }))}
            aria-invalid={!!errors.text}
            name="text"
          />
          {errors.text && <FieldError role="alert">{t(errors.text)}</FieldError>}
        </Field>
        <Row>
          <Field>
            {t('announcements.priority.label')}
            <Select name="priority" value={priority} onChange={(e) => setPriority(Number(e.target.value) as 1 | 2 | 3)}>
              {priorities.map((p) => (
                <option key={p} value={p}>
                  {t(`announcements.priority.${p}`)}
                </option>
              ))}
            </Select>
          </Field>
          <SwitchLabel>
            <Switch name="status" checked={status} onChange={(e) => setStatus(e.target.checked)} />
            {t('announcements.form.status')}
          </SwitchLabel>
        </Row>
      </Form>
    </Dialog>
  );
}
