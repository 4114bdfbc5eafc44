// Add or edit a tag: name required 1–50; colour one of the fixed palette (spec section
// 9), or none when creating (the server then picks one of its own by name). Server
// field errors (a name another tag has: "Already exists") land on their fields.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, FieldError, Input } from '../../components/primitives';
import { serverFieldKey, tagRules, validate, type ValidationKey } from '../../app/validation';
import { toastError } from '../../app/errors';
import { isApiError } from '../../api/errors';
import { tagsApi } from '../../api/endpoints';
import type { Tag } from '../../api/types';
import { colorPalette } from './palette';
import { AutoSwatch, Form, Swatch, Swatches } from './style';

type FieldName = 'name' | 'color';

export function TagModal({ tag, onClose, onSaved }: { tag: Tag | null; onClose: () => void; onSaved: (t: Tag) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState(tag?.name ?? '');
  const [color, setColor] = useState(tag?.color ?? '');
  const [errors, setErrors] = useState<Partial<Record<FieldName, ValidationKey>>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validate({ name, color }, tagRules);
    setErrors(found);
    if (Object.keys(found).length) return;
    const body = color ? { name: name.trim(), color } : { name: name.trim() };
    setBusy(true);
    try {
      const saved = tag ? await tagsApi.update(tag.id, body) : await tagsApi.create(body);
      onSaved(saved);
      onClose();
    } catch (err) {
      if (isApiError(err) && err.fields) {
        const mapped: Partial<Record<FieldName, ValidationKey>> = {};
        for (const [k, v] of Object.entries(err.fields)) {
          const key = serverFieldKey(v);
          if (key && (k === 'name' || k === 'color')) mapped[k] = key;
        }
        setErrors(mapped);
      }
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  // Colours the palette lacks (set elsewhere) are still offered, so editing keeps them.
  const choices = color && !colorPalette.includes(color) ? [color, ...colorPalette] : colorPalette;

  return (
    <Dialog
      open
      onClose={onClose}
      title={tag ? t('tags.form.editTitle') : t('tags.form.addTitle')}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="tag-form" disabled={busy}>
            {t('common.actions.save')}
          </Button>
        </>
      }
    >
      <Form id="tag-form" onSubmit={submit} noValidate>
        <Field>
          {t('tags.form.name')}
          <Input value={name} onChange={(e) => setName(e.target.value)} aria-invalid={!!errors.name} name="name" autoComplete="off" />
          {errors.name && <FieldError role="alert">{t(errors.name)}</FieldError>}
        </Field>
        <Field as="div">
          <span id="tag-color-label">{t('tags.form.color')}</span>
          <div role="radiogroup" aria-labelledby="tag-color-label" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
            {!tag && (
              <AutoSwatch type="button" role="radio" aria-checked={!color} $selected={!color} onClick={() => setColor('')}>
                {t('tags.form.autoColor')}
              </AutoSwatch>
            )}
            <Swatches>
              {choices.map((c) => (
                <Swatch
                  key={c}
                  type="button"
                  role="radio"
                  aria-checked={color === c}
                  aria-label={t('tags.form.pickColor', { color: c })}
                  title={c}
                  $color={c}
                  $selected={color === c}
                  onClick={() => setColor(c)}
                />
              ))}
            </Swatches>
          </div>
          {errors.color && <FieldError role="alert">{t(errors.color)}</FieldError>}
        </Field>
      </Form>
    </Dialog>
  );
}
