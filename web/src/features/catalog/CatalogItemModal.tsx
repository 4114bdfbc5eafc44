// Add or edit a catalog item: every field of spec section 3. Values are typed in reais
// with a comma or a point ("12,50"); the image is uploaded at once (POST
// /catalog/upload, images only) or given as a web address.
import { useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, Select, TextArea } from '../../components/primitives';
import { length, required, validate, type Rule } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { toastError } from '../../app/errors';
import { catalogApi, categoriesApi, userDataKeys, type CatalogItem, type Category, type UserDataKey } from './api';

type TextField = 'itemName' | 'description' | 'manufacturer' | 'dimensions' | 'unitName' | 'productImg';
type FieldName = TextField | 'pax' | 'order' | 'baseValue' | 'deliveryValue' | 'categoryId' | UserDataKey;

const fields: FieldName[] = [
  'itemName', 'description', 'manufacturer', 'dimensions', 'unitName', 'productImg',
  'pax', 'order', 'baseValue', 'deliveryValue', 'categoryId', ...userDataKeys,
];

// parseMoney reads "1.234,56", "1234.56" or "12" as reais; NaN when it is not money.
export function parseMoney(v: string): number {
  const s = v.trim().replace(/^R\$\s*/, '');
  if (!s) return 0;
  const normal = s.includes(',') ? s.replace(/\./g, '').replace(',', '.') : s;
  return /^\d+(\.\d{1,2})?$/.test(normal) ? Number(normal) : NaN;
}

const money: Rule = (v) => (Number.isNaN(parseMoney(v)) ? 'validation.invalidValue' : null);
const whole: Rule = (v) => (v.trim() === '' || /^\d{1,7}$/.test(v.trim()) ? null : 'validation.invalidValue');

const rules: Partial<Record<FieldName, Rule[]>> = {
  itemName: [required, length(1, 100)],
  description: [length(0, 4096)],
  manufacturer: [length(0, 200)],
  dimensions: [length(0, 200)],
  unitName: [length(0, 200)],
  pax: [whole],
  order: [whole],
  baseValue: [money],
  deliveryValue: [money],
  ...Object.fromEntries(userDataKeys.map((k) => [k, [length(0, 200)]])),
};

const moneyText = (n: number | undefined) => (n ? n.toFixed(2).replace('.', ',') : '');

export function CatalogItemModal({ item, onClose, onSaved }: { item: CatalogItem | null; onClose: () => void; onSaved: (i: CatalogItem) => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<FieldName, string>>(() => {
    const v = {
      itemName: item?.itemName ?? '',
      description: item?.description ?? '',
      manufacturer: item?.manufacturer ?? '',
      dimensions: item?.dimensions ?? '',
      unitName: item?.unitName ?? '',
      productImg: item?.productImg ?? '',
      pax: item?.pax ? String(item.pax) : '',
      order: item?.order ? String(item.order) : '',
      baseValue: moneyText(item?.baseValue),
      deliveryValue: moneyText(item?.deliveryValue),
      categoryId: item?.categoryId ? String(item.categoryId) : '',
    } as Record<FieldName, string>;
    for (const k of userDataKeys) v[k] = item?.[k] ?? '';
    return v;
  });
  const [preview, setPreview] = useState(item?.productImgUrl ?? '');
  const [uploading, setUploading] = useState(false);
  const [categories, setCategories] = useState<Category[]>([]);
  const { errors, busy, save } = useFormSave({ fields, onSaved, onClose });
  const set = (f: FieldName) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));

  useEffect(() => {
    let live = true;
    categoriesApi.search('').then(
      (r) => live && setCategories(r.categories ?? []),
      () => live && setCategories([]),
    );
    return () => {
      live = false;
    };
  }, []);

  const onImage = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setUploading(true);
    try {
      const r = await catalogApi.upload(file);
      setValues((v) => ({ ...v, productImg: r.productImg }));
      setPreview(r.productImgUrl);
    } catch (err) {
      toastError(err);
    } finally {
      setUploading(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate(values, rules), () => {
      const body = {
        itemName: values.itemName.trim(),
        description: values.description.trim(),
        manufacturer: values.manufacturer.trim(),
        dimensions: values.dimensions.trim(),
        unitName: values.unitName.trim(),
        productImg: values.productImg.trim(),
        pax: Number(values.pax || 0),
        order: Number(values.order || 0),
        baseValue: parseMoney(values.baseValue),
        deliveryValue: parseMoney(values.deliveryValue),
        categoryId: Number(values.categoryId || 0),
        ...Object.fromEntries(userDataKeys.map((k) => [k, values[k].trim()])),
      };
      return item ? catalogApi.update(item.id, body) : catalogApi.create(body);
    });
  };

  const text = (f: FieldName, label: string) => (
    <Field key={f}>
      {label}
      <Input name={f} value={values[f]} onChange={set(f)} aria-invalid={!!errors[f]} autoComplete="off" />
      <FormErrorText error={errors[f]} />
    </Field>
  );

  return (
    <FormDialog
      id="catalog-item-form"
      width={640}
      title={item ? t('catalog.item.editTitle') : t('catalog.item.addTitle')}
      busy={busy || uploading}
      onClose={onClose}
      onSubmit={submit}
    >
      {text('itemName', t('catalog.item.itemName'))}
      <Field>
        {t('catalog.item.category')}
        <Select name="categoryId" value={values.categoryId} onChange={set('categoryId')}>
          <option value="">{t('catalog.item.noCategory')}</option>
          {categories.map((c) => (
            <option key={c.id} value={String(c.id)}>
              {c.categoryName}
            </option>
          ))}
        </Select>
        <FormErrorText error={errors.categoryId} />
      </Field>
      {text('baseValue', t('catalog.item.baseValue'))}
      {text('deliveryValue', t('catalog.item.deliveryValue'))}
      <Field>
        {t('catalog.item.description')}
        <TextArea $minHeight={80} rows={3} name="description" value={values.description} onChange={set('description')} aria-invalid={!!errors.description} />
        <FormErrorText error={errors.description} />
      </Field>
      {text('manufacturer', t('catalog.item.manufacturer'))}
      {text('dimensions', t('catalog.item.dimensions'))}
      {text('unitName', t('catalog.item.unitName'))}
      {text('pax', t('catalog.item.pax'))}
      {text('order', t('catalog.item.order'))}
      <Field>
        {t('catalog.item.productImg')}
        <Input name="productImg" value={values.productImg} onChange={set('productImg')} aria-invalid={!!errors.productImg} autoComplete="off" />
        <input type="file" accept="image/*" aria-label={t('catalog.item.upload')} onChange={(e) => void onImage(e)} />
        {preview && <img src={preview} alt="" width={96} />}
        <FormErrorText error={errors.productImg} />
      </Field>
      {userDataKeys.map((k, i) => text(k, t('catalog.item.userData', { n: i + 1 })))}
    </FormDialog>
  );
}
