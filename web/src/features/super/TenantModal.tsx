// New tenant with its first admin (POST /tenants): company name required 2–50; the
// admin's name, e-mail and password follow the user form's rules. Server field errors
// (adminName, email, password, name) land on their fields; a taken name or e-mail is a
// toast with its translated code.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input } from '../../components/primitives';
import { tenantRules, validate } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { tenantsApi } from '../../api/endpoints';
import type { Tenant } from '../../api/types';
import { Hint } from './style';

type FieldName = 'name' | 'adminName' | 'email' | 'password';

const fields: FieldName[] = ['name', 'adminName', 'email', 'password'];

export function TenantModal({ onClose, onSaved }: { onClose: () => void; onSaved: (t: Tenant) => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<FieldName, string>>({ name: '', adminName: '', email: '', password: '' });
  const { errors, busy, save } = useFormSave({ fields, onSaved, onClose });
  const set = (k: FieldName) => (e: React.ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [k]: e.target.value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate(values, tenantRules), async () => {
      const r = await tenantsApi.create({
        name: values.name.trim(),
        adminName: values.adminName.trim(),
        email: values.email.trim(),
        password: values.password,
      });
      return r.tenant;
    });
  };

  const input = (k: FieldName, type: string, autoComplete: string) => (
    <Field>
      {t(`tenants.form.${k}`)}
      <Input name={k} type={type} autoComplete={autoComplete} value={values[k]} onChange={set(k)} aria-invalid={!!errors[k]} />
      <FormErrorText error={errors[k]} />
    </Field>
  );

  return (
    <FormDialog id="tenant-form" title={t('tenants.form.title')} busy={busy} onClose={onClose} onSubmit={submit}>
      <Hint>{t('tenants.form.hint')}</Hint>
      {input('name', 'text', 'organization')}
      {input('adminName', 'text', 'off')}
      {input('email', 'email', 'off')}
      {input('password', 'password', 'new-password')}
    </FormDialog>
  );
}
