// Add or edit a tag: name required 1–50; colour one of the fixed palette (spec section
// 9), or none when creating (the server then picks one of its own by name). Server
// field errors (a name another tag has: "Already exists") land on their fields.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input } from '../../components/primitives';
import { tagRules, validate } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { tagsApi } from '../../api/endpoints';
import type { Tag } from '../../api/types';
import { colorPalette } from './palette';
import { AutoSwatch, Swatch, Swatches } from './style';

type FieldName = 'name' | 'color';

const fields: FieldName[] = ['name', 'color'];

export function TagModal({ tag, onClose, onSaved }: { tag: Tag | null; onClose: () => void; onSaved: (t: Tag) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState(tag?.name ?? '');
  const [color, setColor] = useState(tag?.color ?? '');
  const { errors, busy, save } = useFormSave({ fields, onSaved, onClose });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate({ name, color }, tagRules), () => {
      const body = color ? { name: name.trim(), color } : { name: name.trim() };
      return tag ? tagsApi.update(tag.id, body) : tagsApi.create(body);
    });
  };

  // Colours the palette lacks (set elsewhere) are still offered, so editing keeps them.
  const choices = color && !colorPalette.includes(color) ? [color, ...colorPalette] : colorPalette;

  return (
    <FormDialog id="tag-form" title={tag ? t('tags.form.editTitle') : t('tags.form.addTitle')} busy={busy} onClose={onClose} onSubmit={submit}>
      <Field>
        {t('tags.form.name')}
        <Input value={name} onChange={(e) => setName(e.target.value)} aria-invalid={!!errors.name} name="name" autoComplete="off" />
        <FormErrorText error={errors.name} />
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
        <FormErrorText error={errors.color} />
      </Field>
    </FormDialog>
  );
}
