// Add or edit a contact (spec section 5): name 2–50, number 8–50 (digits only on the
// wire), valid email; extra info as name/value pairs; sales opportunities as name
// (required, up to 100), value and stage (up to 100) rows, saved with the contact (the
// list replaces the stored one; a won/lost status is final and shown, not edited).
// Server field errors land on their fields; other errors (ERR_DUPLICATED_CONTACT…)
// are toasts.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Badge, Button, Field, FieldError, IconButton, Input, Row } from '../../components/primitives';
import { Icon } from '../../components/Icon';
import { check, contactRules, length, mapServerFields, required, serverFieldKey, validate, type ValidationKey } from '../../app/validation';
import { toastError } from '../../app/errors';
import { isApiError } from '../../api/errors';
import { contactsApi, type ContactInput } from '../../api/endpoints';
import type { Contact, ExtraInfo, SalesOpp } from '../../api/types';

type FieldName = 'name' | 'number' | 'email';

// An opportunity row of the form: id and closingStatus only once stored.
type OppRow = Omit<SalesOpp, 'id' | 'closingStatus'> & Partial<Pick<SalesOpp, 'id' | 'closingStatus'>>;

const oppMax = 100;
const blankOpp = (o: OppRow) => !o.name.trim() && !o.value.trim() && !o.stage.trim();

// oppError: the first failure of a row that is not blank (blank rows are dropped).
function oppError(o: OppRow): ValidationKey | null {
  return check(o.name, required, length(1, oppMax)) ?? check(o.value, length(0, oppMax)) ?? check(o.stage, length(0, oppMax));
}

export function ContactModal({ contact, onClose, onSaved }: { contact: Contact | null; onClose: () => void; onSaved: (c: Contact) => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<FieldName, string>>({
    name: contact?.name ?? '',
    number: contact?.number ?? '',
    email: contact?.email ?? '',
  });
  const [extra, setExtra] = useState<ExtraInfo[]>(contact?.extraInfo ?? []);
  const [opps, setOpps] = useState<OppRow[]>(contact?.salesOpps ?? []);
  const [oppErrors, setOppErrors] = useState<Record<number, ValidationKey>>({});
  const [errors, setErrors] = useState<Partial<Record<FieldName, ValidationKey>>>({});
  const [busy, setBusy] = useState(false);

  const set = (f: FieldName) => (e: ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validate(values, contactRules);
    setErrors(found);
    const foundOpps: Record<number, ValidationKey> = {};
    opps.forEach((o, i) => {
      const err = blankOpp(o) ? null : oppError(o);
      if (err) foundOpps[i] = err;
    });
    setOppErrors(foundOpps);
    if (Object.keys(found).length || Object.keys(foundOpps).length) return;
    const kept = opps.filter((o) => !blankOpp(o));
    const body: ContactInput = {
      name: values.name.trim(),
      number: values.number.replace(/\D/g, ''),
      email: values.email.trim(),
      extraInfo: extra.filter((x) => x.name.trim()),
      // Left out when the contact came without its list and none was added: the stored
      // opportunities stay as they are.
      salesOpps:
        contact?.salesOpps !== undefined || kept.length
          ? kept.map((o) => ({
              ...(o.id ? { id: o.id, closingStatus: o.closingStatus ?? null } : {}),
              name: o.name.trim(),
              value: o.value.trim(),
              stage: o.stage.trim(),
            }))
          : undefined,
    };
    setBusy(true);
    try {
      const saved = contact ? await contactsApi.update(contact.id, body) : await contactsApi.create(body);
      onSaved(saved ?? ({ ...(contact ?? { id: 0 }), ...body } as Contact));
      onClose();
    } catch (err) {
      if (isApiError(err) && err.fields) {
        setErrors(mapServerFields<FieldName>(err, ['name', 'number', 'email']) ?? {});
        // salesOpps.<i>.name… : the row's message (i indexes the list sent).
        const kept = opps.map((o, i) => [o, i] as const).filter(([o]) => !blankOpp(o));
        const rows: Record<number, ValidationKey> = {};
        for (const [k, v] of Object.entries(err.fields)) {
          const m = /^salesOpps\.(\d+)\./.exec(k);
          const key = serverFieldKey(v);
          const row = m ? kept[Number(m[1])] : undefined;
          if (row && key && rows[row[1]] === undefined) rows[row[1]] = key;
        }
        setOppErrors(rows);
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
      width={600}
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
        <strong>{t('contacts.form.salesOpps')}</strong>
        {opps.map((o, i) => {
          const edit = (patch: Partial<OppRow>) => setOpps((l) => l.map((y, j) => (j === i ? { ...y, ...patch } : y)));
          return (
            <div key={o.id ?? `new-${i}`} data-testid={`sales-opp-${i}`}>
              <Row>
                <Input
                  aria-label={t('contacts.form.oppName')}
                  placeholder={t('contacts.form.oppName')}
                  value={o.name}
                  aria-invalid={!!oppErrors[i]}
                  onChange={(e) => edit({ name: e.target.value })}
                />
                <Input
                  aria-label={t('contacts.form.oppValue')}
                  placeholder={t('contacts.form.oppValue')}
                  value={o.value}
                  inputMode="decimal"
                  onChange={(e) => edit({ value: e.target.value })}
                />
                <Input
                  aria-label={t('contacts.form.oppStage')}
                  placeholder={t('contacts.form.oppStage')}
                  value={o.stage}
                  onChange={(e) => edit({ stage: e.target.value })}
                />
                {o.closingStatus === 1 && <Badge $tone="success">{t('contacts.form.oppWon')}</Badge>}
                {o.closingStatus === 0 && <Badge $tone="danger">{t('contacts.form.oppLost')}</Badge>}
                <IconButton
                  type="button"
                  aria-label={t('contacts.form.removeOpp')}
                  onClick={() => {
                    setOpps((l) => l.filter((_, j) => j !== i));
                    setOppErrors({});
                  }}
                >
                  <Icon name="delete" />
                </IconButton>
              </Row>
              {oppErrors[i] && <FieldError role="alert">{t(oppErrors[i])}</FieldError>}
            </div>
          );
        })}
        <Button type="button" $variant="secondary" onClick={() => setOpps((l) => [...l, { name: '', value: '', stage: '' }])}>
          {t('contacts.form.addOpp')}
        </Button>
      </form>
    </Dialog>
  );
}
