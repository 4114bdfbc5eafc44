// Add or edit a contact (spec section 5): name 2–50, number 8–50 (digits only on the
// wire), valid email; extra info as name/value pairs. Server field errors land on their
// fields; other errors (ERR_DUPLICATED_CONTACT…) are toasts.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, FieldError, IconButton, Input, Row } from '../../components/primitives';
import { Icon } from '../../components/Icon';
import { contactRules, serverFieldKey, validate, type ValidationKey } from '../../app/validation';
import { toastError } from '../../app/errors';
import { isApiError } from '../../api/errors';
import { contactsApi } from '../../api/endpoints';
import type { Contact, ExtraInfo } from '../../api/types';

type FieldName = 'name' | 'number' | 'email';

export function ContactModal({ contact, onClose, onSaved }: { contact: Contact | null; onClose: () => void; onSaved: (c: Contact) => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<FieldName, string>>({
    name: contact?.name ?? '',
    number: contact?.number ?? '',
    email: contact?.email ?? '',
  });
  const [extra, setExtra] = useState<ExtraInfo[]>(contact?.extraInfo ?? []);
  const [errors, setErrors] = useState<Partial<Record<FieldName, ValidationKey>>>({});
  const [busy, setBusy] = useState(false);

  const set = (f: FieldName) => (e: ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validate(values, contactRules);
    setErrors(found);
    if (Object.keys(found).length) return;
    const body = {
      name: values.name.trim(),
      number: values.number.replace(/\D/g, ''),
      email: values.email.trim(),
      extraInfo: extra.filter((x) => x.name.trim()),
      salesOpps: contact?.salesOpps,
    };
    setBusy(true);
    try {
      const saved = contact ? await contactsApi.update(contact.id, body) : await contactsApi.create(body);
      onSaved(saved ?? { ...(contact ?? { id: 0 }), ...body });
      onClose();
    } catch (err) {
      if (isApiError(err) && err.fields) {
        const mapped: Partial<Record<FieldName, ValidationKey>> = {};
        for (const [k, v] of Object.entries(err.fields)) {
          const key = serverFieldKey(v);
          if (key && (k === 'name' || k === 'number' || k === 'email')) mapped[k] = key;
        }
        setErrors(mapped);
      }
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const field = (f: FieldName, type = 'text') => (
    <Field>
      {t(`contacts.form.${f}`)}
      <Input type={type} value={values[f]} onChange={set(f)} aria-invalid={!!errors[f]} name={f} />
      {errors[f] && <FieldError role="alert">{t(errors[f]!)}</FieldError>}
    </Field>
  );

  return (
    <Dialog
      open
      onClose={onClose}
      title={contact ? t('contacts.form.editTitle') : t('contacts.form.addTitle')}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="contact-form" disabled={busy}>
            {t('common.actions.save')}
          </Button>
        </>
      }
    >
      <form id="contact-form" onSubmit={submit} noValidate style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
        {field('name')}
        {field('number', 'tel')}
        {field('email', 'email')}
        <strong>{t('contacts.form.extraInfo')}</strong>
        {extra.map((x, i) => (
          <Row key={i}>
            <Input
              aria-label={t('contacts.form.extraName')}
              placeholder={t('contacts.form.extraName')}
              value={x.name}
              onChange={(e) => setExtra((l) => l.map((y, j) => (j === i ? { ...y, name: e.target.value } : y)))}
            />
            <Input
              aria-label={t('contacts.form.extraValue')}
              placeholder={t('contacts.form.extraValue')}
              value={x.value}
              onChange={(e) => setExtra((l) => l.map((y, j) => (j === i ? { ...y, value: e.target.value } : y)))}
            />
            <IconButton type="button" aria-label={t('contacts.form.removeExtra')} onClick={() => setExtra((l) => l.filter((_, j) => j !== i))}>
              <Icon name="delete" />
            </IconButton>
          </Row>
        ))}
        <Button type="button" $variant="secondary" onClick={() => setExtra((l) => [...l, { name: '', value: '' }])}>
          {t('contacts.form.addExtra')}
        </Button>
      </form>
    </Dialog>
  );
}
