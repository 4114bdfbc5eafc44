// Add or edit an announcement: title required 1–100, text required up to 4096,
// priority 1 (red) / 2 (orange) / 3 (grey), active switch (the top bar shows the newest
// active one).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, Select, Switch, TextArea } from '../../components/primitives';
import { FilePicker } from '../../components/FilePicker';
import { announcementRules, validate } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { announcementsApi } from '../../api/endpoints';
import type { Announcement, AnnouncementInput } from '../../api/types';
import { Row, SwitchLabel } from './style';

type FieldName = 'title' | 'text';

const fields: FieldName[] = ['title', 'text'];

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
  const [file, setFile] = useState<File | null>(null);
  const [removeMedia, setRemoveMedia] = useState(false);
  const { errors, busy, save } = useFormSave({ fields, onSaved, onClose });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate(values, announcementRules), () => {
      const body: AnnouncementInput = { title: values.title.trim(), text: values.text.trim(), priority, status };
      const media = { file, remove: removeMedia };
      return announcement ? announcementsApi.update(announcement.id, body, media) : announcementsApi.create(body, media);
    });
  };

  return (
    <FormDialog
      id="announcement-form"
      width={560}
      title={announcement ? t('announcements.form.editTitle') : t('announcements.form.addTitle')}
      busy={busy}
      onClose={onClose}
      onSubmit={submit}
    >
      <Field>
        {t('announcements.form.titleField')}
        <Input
          value={values.title}
          onChange={(e) => setValues((v) => ({ ...v, title: e.target.value }))}
          aria-invalid={!!errors.title}
          name="title"
          autoComplete="off"
        />
        <FormErrorText error={errors.title} />
      </Field>
      <Field>
        {t('announcements.form.text')}
        <TextArea
          $minHeight={120}
          rows={6}
          value={values.text}
          onChange={(e) => setValues((v) => ({ ...v, text: e.target.value }))}
          aria-invalid={!!errors.text}
          name="text"
        />
        <FormErrorText error={errors.text} />
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
      <Field as="div">
        {t('announcements.media.label')}
        <FilePicker
          label={t('announcements.media.label')}
          name="medias"
          accept="image/*,video/*,audio/*,application/pdf"
          onChange={setFile}
        />
      </Field>
      {announcement?.mediaPath && !file && (
        <SwitchLabel>
          <Switch name="removeMedia" checked={removeMedia} onChange={(e) => setRemoveMedia(e.target.checked)} />
          {t('announcements.media.remove')} ({t('announcements.media.current', { name: announcement.mediaName })})
        </SwitchLabel>
      )}
    </FormDialog>
  );
}
