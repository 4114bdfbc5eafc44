// The simple forms of the cloud channels (spec section 7): WABA (POST /wacloudapi),
// Facebook and Instagram (POST /facebook; Instagram sets addInstagram) and Telegram
// (POST /telegram). Every field is required; the server checks the credentials with
// the provider and its errors show as toasts.
//
// The WABA form is the manual alternative to Meta's embedded signup
// (EmbeddedSignupButton), and stands in for it when the server lacks the Meta app
// (note says so); Facebook and Instagram have no Facebook login (docs/channels.md).
// Each dialog says where its values come from, and each field carries a hint.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, FieldError, Input, Muted, Switch } from '../../components/primitives';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { connectionsApi } from '../../api/endpoints';
import { Form, SwitchField } from './style';

export type CloudKind = 'waba' | 'facebook' | 'instagram' | 'telegram';

const fieldsOf: Record<CloudKind, string[]> = {
  waba: ['currWabaId', 'currWabaPhoneId', 'currPhoneNumber', 'currVerifiedName', 'currWabaToken'],
  facebook: ['facebookUserId', 'facebookUserToken'],
  instagram: ['facebookUserId', 'facebookUserToken'],
  telegram: ['telegramName', 'telegramToken'],
};

const secret = new Set(['currWabaToken', 'facebookUserToken', 'telegramToken']);

export function CloudDialog({
  kind,
  note,
  onClose,
  onDone,
}: {
  kind: CloudKind;
  note?: string;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const fields = fieldsOf[kind];
  const [values, setValues] = useState<Record<string, string>>({});
  const [addInstagram, setAddInstagram] = useState(kind === 'instagram');
  const [missing, setMissing] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const v = (f: string) => (values[f] ?? '').trim();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const empty = fields.filter((f) => !v(f));
    setMissing(empty);
    if (empty.length) return;
    setBusy(true);
    try {
      if (kind === 'waba') {
        await connectionsApi.addWaba({
          currWabaId: v('currWabaId'),
          currWabaPhoneId: v('currWabaPhoneId'),
          currPhoneNumber: v('currPhoneNumber'),
          currVerifiedName: v('currVerifiedName'),
          currWabaToken: v('currWabaToken'),
        });
      } else if (kind === 'telegram') {
        await connectionsApi.addTelegram({ name: v('telegramName'), token: v('telegramToken') });
      } else {
        await connectionsApi.addFacebook({ facebookUserId: v('facebookUserId'), facebookUserToken: v('facebookUserToken'), addInstagram });
      }
      toast.success(t('connections.toasts.connected'));
      onDone();
      onClose();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      onClose={onClose}
      width={480}
      title={t(`connections.cloud.${kind}Title`)}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="cloud-form" disabled={busy}>
            {t('connections.cloud.connect')}
          </Button>
        </>
      }
    >
      <Form id="cloud-form" onSubmit={submit} noValidate>
        {note && (
          <Muted role="note" data-testid="cloud-note">
            {note}
          </Muted>
        )}
        <Muted data-testid="cloud-intro">{t(`connections.cloud.${kind}Intro` as 'connections.cloud.wabaIntro')}</Muted>
        {fields.map((f) => (
          <Field key={f}>
            {t(`connections.cloud.${f}` as 'connections.cloud.currWabaId')}
            <Input
              name={f}
              type={secret.has(f) ? 'password' : 'text'}
              autoComplete="off"
              value={values[f] ?? ''}
              aria-invalid={missing.includes(f)}
              aria-describedby={`cloud-hint-${f}`}
              onChange={(e) => setValues((x) => ({ ...x, [f]: e.target.value }))}
            />
            <Muted id={`cloud-hint-${f}`} aria-hidden>
              {t(`connections.cloud.hints.${f}` as 'connections.cloud.hints.currWabaId')}
            </Muted>
            {missing.includes(f) && <FieldError role="alert">{t('validation.required')}</FieldError>}
          </Field>
        ))}
        {kind === 'facebook' && (
          <SwitchField>
            <Switch checked={addInstagram} onChange={(e) => setAddInstagram(e.target.checked)} name="addInstagram" />
            {t('connections.cloud.addInstagram')}
          </SwitchField>
        )}
      </Form>
    </Dialog>
  );
}
