// Add or edit a category: name required 1–100, display name up to 100, the way of
// sending, active, and the message template (variables in docs/api.md section 2.8b).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, Select, TextArea } from '../../components/primitives';
import { length, required, validate } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { categoriesApi, type Category } from './api';

type FieldName = 'categoryName' | 'displayName' | 'mustaccio' | 'template';
const fields: FieldName[] = ['categoryName', 'displayName', 'mustaccio', 'template'];
const rules = { categoryName: [required, length(1, 100)], displayName: [length(0, 100)], template: [length(0, 4096)] };
const ways = ['imageText', 'text', 'image'] as const;
// The template's variables (engine.RenderCatalogTemplate), shown as a hint.
const templateVars = [
  'itemName', 'description', 'manufacturer', 'dimensions', 'unitName', 'pax', 'categoryName', 'displayName',
  'baseValue', 'deliveryValue', 'totalValue', 'userData1', '…', 'userData9',
].map((v) => (v === '…' ? v : `{{${v}}}`)).join(', ');

export function CategoryModal({ category, onClose, onSaved }: { category: Category | null; onClose: () => void; onSaved: (c: Category) => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState({
    categoryName: category?.categoryName ?? '',
    displayName: category?.displayName ?? '',
    mustaccio: category?.mustaccio ?? 'imageText',
    template: category?.template ?? '',
  });
  const [active, setActive] = useState(category?.isActive ?? true);
  const { errors, busy, save } = useFormSave({ fields, onSaved, onClose });
  const set = (f: FieldName) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate(values, rules), () => {
      const body = {
        categoryName: values.categoryName.trim(),
        displayName: values.displayName.trim(),
        mustaccio: values.mustaccio as Category['mustaccio'],
        template: values.template.trim(),
        isActive: active,
      };
      return category ? categoriesApi.update(category.id, body) : categoriesApi.create(body);
    });
  };

  return (
    <FormDialog
      id="category-form"
      width={560}
      title={category ? t('catalog.category.editTitle') : t('catalog.category.addTitle')}
      busy={busy}
      onClose={onClose}
      onSubmit={submit}
    >
      <Field>
        {t('catalog.category.name')}
        <Input name="categoryName" value={values.categoryName} onChange={set('categoryName')} aria-invalid={!!errors.categoryName} autoComplete="off" />
        <FormErrorText error={errors.categoryName} />
      </Field>
      <Field>
        {t('catalog.category.displayName')}
        <Input name="displayName" value={values.displayName} onChange={set('displayName')} aria-invalid={!!errors.displayName} autoComplete="off" />
        <FormErrorText error={errors.displayName} />
      </Field>
      <Field>
        {t('catalog.category.way')}
        <Select name="mustaccio" value={values.mustaccio} onChange={set('mustaccio')}>
          {ways.map((w) => (
            <option key={w} value={w}>
              {t(`catalog.category.ways.${w}`)}
            </option>
          ))}
        </Select>
      </Field>
      <Field>
        {t('catalog.category.template')}
        <TextArea $minHeight={100} rows={4} name="template" value={values.template} onChange={set('template')} aria-invalid={!!errors.template} />
        <span>{t('catalog.category.templateHint', { vars: templateVars, interpolation: { escapeValue: false } })}</span>
        <FormErrorText error={errors.template} />
      </Field>
      <label>
        <input type="checkbox" name="isActive" checked={active} onChange={(e) => setActive(e.target.checked)} /> {t('catalog.category.active')}
      </label>
    </FormDialog>
  );
}
