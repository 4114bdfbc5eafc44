// /MessagingAPI (spec sections 1 and 2): the tenant's messaging-API tokens — create
// (the secret shown once, with a copy button), list, revoke after a confirmation — and
// how to call POST /api/messages/send, with curl examples at this tenant's address.
// Only api-tokens:manage holders (admin, super) manage tokens; the server refuses
// everyone else. The realtime "apiToken" event keeps every administrator's list
// current.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { apiTokensApi } from '../../api/endpoints';
import { useResource } from '../../app/resources';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { toastError } from '../../app/errors';
import { formatCuiaba } from '../../app/format';
import { length, required, validate } from '../../app/validation';
import { useFormSave } from '../../app/useFormSave';
import { toast } from '../../components/toast/toastStore';
import { Badge, Button, Field, Input, Muted, Row } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Dialog } from '../../components/Dialog';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Spinner } from '../../components/Splash';
import { Header, Page, Title } from '../../components/pageStyle';
import type { ApiToken, ApiTokenEvent, CreatedApiToken } from '../../api/types';
import { apiExamples } from './examples';
import { Code, Hint, Section, Table, TableWrap, Warning } from './style';

// The server's rule for a token name (engine.ValidateAPIToken): required, 2 to 50.
const tokenRules = { name: [required, length(2, 50)] };

export default function MessagingApiPage({ origin = window.location.origin }: { origin?: string }) {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageApiTokens);
  const list = useResource(manage ? 'apiTokens' : null, apiTokensApi.list);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const [busy, setBusy] = useState(false);

  useRealtimeEvent<ApiTokenEvent>('apiToken', () => list.reload());
  useResync(() => list.reload());

  const revoke = async (tok: ApiToken) => {
    setBusy(true);
    try {
      await apiTokensApi.revoke(tok.id);
      toast.success(t('messagingApi.tokens.revoked', { name: tok.name }));
      setRevoking(null);
      list.reload();
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const ex = apiExamples(origin, t('messagingApi.docs.placeholder'));
  const tokens = list.data ?? [];
  return (
    <Page>
      <Header>
        <Title>{t('messagingApi.title')}</Title>
        {manage && (
          <Button type="button" onClick={() => setAdding(true)}>
            {t('messagingApi.tokens.add')}
          </Button>
        )}
      </Header>
      <Section>
        <p>{t('messagingApi.intro')}</p>
      </Section>
      <Section aria-labelledby="api-tokens-title">
        <h2 id="api-tokens-title">{t('messagingApi.tokens.title')}</h2>
        {!manage ? (
          <Muted>{t('backendErrors.ERR_NO_PERMISSION')}</Muted>
        ) : list.loading && !list.data ? (
          <Spinner />
        ) : tokens.length === 0 ? (
          <Muted>{t('messagingApi.tokens.empty')}</Muted>
        ) : (
          <TableWrap>
            <Table aria-labelledby="api-tokens-title">
              <thead>
                <tr>
                  <th scope="col">{t('messagingApi.tokens.columns.name')}</th>
                  <th scope="col">{t('messagingApi.tokens.columns.prefix')}</th>
                  <th scope="col">{t('messagingApi.tokens.columns.created')}</th>
                  <th scope="col">{t('messagingApi.tokens.columns.lastUsed')}</th>
                  <th scope="col">{t('messagingApi.tokens.columns.state')}</th>
                  <th scope="col">{t('messagingApi.tokens.columns.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {tokens.map((tok) => (
                  <tr key={tok.id} data-testid={`api-token-${tok.id}`}>
                    <th scope="row">{tok.name}</th>
                    <td>
                      <code>{tok.prefix}…</code>
                    </td>
                    <td>{formatCuiaba(tok.createdAt)}</td>
                    <td>{tok.lastUsedAt ? formatCuiaba(tok.lastUsedAt) : t('messagingApi.tokens.never')}</td>
                    <td>
                      <Badge $tone={tok.revokedAt ? 'muted' : 'success'}>
                        {t(tok.revokedAt ? 'messagingApi.tokens.state.revoked' : 'messagingApi.tokens.state.active')}
                      </Badge>
                    </td>
                    <td>
                      {!tok.revokedAt && (
                        <Button type="button" $small $variant="ghost" disabled={busy} onClick={() => setRevoking(tok)}>
                          {t('messagingApi.tokens.revoke', { name: tok.name })}
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </TableWrap>
        )}
      </Section>
      <Section aria-labelledby="api-docs-title" data-testid="api-docs">
        <h2 id="api-docs-title">{t('messagingApi.docs.title')}</h2>
        <p>{t('messagingApi.docs.endpoint')}</p>
        <Code data-testid="api-endpoint">POST {ex.endpoint}</Code>
        <Hint>{t('messagingApi.docs.fields')}</Hint>
        <h3>{t('messagingApi.docs.text')}</h3>
        <Code data-testid="api-example-text">{ex.text}</Code>
        <h3>{t('messagingApi.docs.media')}</h3>
        <Code data-testid="api-example-media">{ex.media}</Code>
        <h3>{t('messagingApi.docs.idempotency')}</h3>
        <Hint>{t('messagingApi.docs.idempotencyHint')}</Hint>
        <Code data-testid="api-example-idempotent">{ex.idempotent}</Code>
        <Hint>{t('messagingApi.docs.errors')}</Hint>
      </Section>
      {adding && (
        <TokenModal
          onClose={() => setAdding(false)}
          onSaved={(c) => {
            setCreated(c);
            list.reload();
          }}
        />
      )}
      {created && <CreatedTokenDialog token={created} onClose={() => setCreated(null)} />}
      <ConfirmDialog
        open={!!revoking}
        title={t('messagingApi.tokens.confirmRevoke.title')}
        busy={busy}
        confirmLabel={revoking ? t('messagingApi.tokens.revoke', { name: revoking.name }) : undefined}
        onConfirm={() => revoking && void revoke(revoking)}
        onClose={() => setRevoking(null)}
      >
        {revoking && t('messagingApi.tokens.confirmRevoke.message', { name: revoking.name })}
      </ConfirmDialog>
    </Page>
  );
}

// TokenModal: the new-token form (name, 2 to 50 characters).
function TokenModal({ onClose, onSaved }: { onClose: () => void; onSaved: (t: CreatedApiToken) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const { errors, busy, save } = useFormSave({ fields: ['name'] as const, onSaved, onClose });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(validate({ name }, tokenRules), () => apiTokensApi.create(name.trim()));
  };
  return (
    <FormDialog id="api-token-form" title={t('messagingApi.form.title')} busy={busy} onClose={onClose} onSubmit={submit}>
      <Hint>{t('messagingApi.form.hint')}</Hint>
      <Field>
        {t('messagingApi.form.name')}
        <Input name="name" autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} aria-invalid={!!errors.name} />
        <FormErrorText error={errors.name} />
      </Field>
    </FormDialog>
  );
}

// CreatedTokenDialog shows a new token's secret, this once, with a copy button.
function CreatedTokenDialog({ token, onClose }: { token: CreatedApiToken; onClose: () => void }) {
  const { t } = useTranslation();
  const copy = () => {
    const done = () => toast.success(t('messagingApi.created.copied'));
    const fail = () => toast.error(t('messagingApi.created.copyFailed'));
    if (!navigator.clipboard) {
      fail();
      return;
    }
    navigator.clipboard.writeText(token.token).then(done, fail);
  };
  return (
    <Dialog
      open
      title={t('messagingApi.created.title')}
      onClose={onClose}
      width={560}
      actions={
        <Row $gap={8}>
          <Button type="button" $variant="secondary" onClick={copy}>
            {t('messagingApi.created.copy')}
          </Button>
          <Button type="button" onClick={onClose}>
            {t('messagingApi.created.done')}
          </Button>
        </Row>
      }
    >
      <Warning>{t('messagingApi.created.warning')}</Warning>
      <Code aria-label={t('messagingApi.created.label')} data-testid="api-token-secret">
        {token.token}
      </Code>
    </Dialog>
  );
}
