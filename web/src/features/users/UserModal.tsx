// Add or edit a user: the "Usuário" tab of spec section 2. Name 2–50, password 5–50
// (required when creating; empty on edit keeps it), e-mail required and valid (spec
// section 5). The id and profile fields show only with user-modal:editProfile, queues
// and default connection only with user-modal:editQueues (spec section 6); the request
// carries only the fields the caller may change. Server field errors land on their
// fields; other errors (ERR_EMAIL_ALREADY_EXISTS, ERR_USER_CREATION_DISABLED…) are toasts.
// Editing an existing user adds the booking tabs Recurso, Agenda and Grelha
// (features/booking), each with its own Close and Save.
import { useEffect, useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Field, FieldError, IconButton, Input, Select } from '../../components/primitives';
import { Icon } from '../../components/Icon';
import { serverFieldKey, userRules, validate, type ValidationKey } from '../../app/validation';
import { toastError } from '../../app/errors';
import { isApiError } from '../../api/errors';
import { connectionsApi, queuesApi, usersApi } from '../../api/endpoints';
import type { Connection, ID, Queue, User, UserInput } from '../../api/types';
import { profilesFor } from './profiles';
import { BookingTabs, type BookingTab } from '../booking/BookingTabs';
import { Check, Dot, Fieldset, Form, Hint, PasswordBox, Tab, Tabs } from './style';

type TextField = 'name' | 'password' | 'email' | 'currentPassword';
type ErrorField = TextField | 'profile';

export interface UserModalProps {
  user: User | null;
  callerProfile: string;
  canEditProfile: boolean;
  canEditQueues: boolean;
  /** The e-mail is the login: only users:manage changes it (false: shown read-only). */
  canEditEmail?: boolean;
  /** places:manage: the Recurso tab also adds and deletes places. */
  canManagePlaces?: boolean;
  /** The user edits themselves: a new password needs the current one. */
  self?: boolean;
  onClose: () => void;
  onSaved: (u: User) => void;
}

export function UserModal({
  user,
  callerProfile,
  canEditProfile,
  canEditQueues,
  canEditEmail = true,
  canManagePlaces = false,
  self = false,
  onClose,
  onSaved,
}: UserModalProps) {
  const { t } = useTranslation();
  const creating = !user;
  const [values, setValues] = useState<Record<TextField, string>>({
    name: user?.name ?? '',
    password: '',
    email: user?.email ?? '',
    currentPassword: '',
  });
  const needsCurrent = self && !!user;
  const [profile, setProfile] = useState<string>(user?.profile ?? 'user');
  const [queueIds, setQueueIds] = useState<ID[]>(user?.queues?.map((q) => q.id) ?? []);
  const [whatsappId, setWhatsappId] = useState<ID | null>(user?.whatsappId ?? null);
  const [showPassword, setShowPassword] = useState(false);
  const passwordId = useId();
  const [errors, setErrors] = useState<Partial<Record<ErrorField, ValidationKey>>>({});
  const [busy, setBusy] = useState(false);
  const [queues, setQueues] = useState<Queue[]>([]);
  const [connections, setConnections] = useState<Connection[]>([]);
  const [tab, setTab] = useState<'user' | BookingTab>('user');

  // Fresh lists each time the modal opens: a queue created a moment ago must be offered.
  useEffect(() => {
    if (!canEditQueues) return;
    let live = true;
    queuesApi.list().then((l) => live && setQueues(l ?? []), toastError);
    // Connections may not be served yet (404): the selector then offers "none" only.
    connectionsApi.list().then(
      (l) => live && setConnections(Array.isArray(l) ? l : []),
      () => live && setConnections([]),
    );
    return () => {
      live = false;
    };
  }, [canEditQueues]);

  const set = (f: TextField) => (e: ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found: Partial<Record<ErrorField, ValidationKey>> = validate(values, userRules(creating));
    if (needsCurrent && values.password && !values.currentPassword) found.currentPassword = 'validation.required';
    setErrors(found);
    if (Object.keys(found).length) return;
    const body: UserInput = { name: values.name.trim(), email: values.email.trim() };
    if (values.password) body.password = values.password;
    if (needsCurrent && values.password) body.currentPassword = values.currentPassword;
    if (canEditProfile) body.profile = profile;
    else if (creating) body.profile = 'user';
    if (canEditQueues) {
      body.queueIds = [...queueIds].sort((a, b) => a - b);
      body.whatsappId = whatsappId;
    }
    setBusy(true);
    try {
      const saved = user ? await usersApi.update(user.id, body) : await usersApi.create(body);
      onSaved(saved);
      onClose();
    } catch (err) {
      if (isApiError(err) && err.fields) {
        const mapped: Partial<Record<ErrorField, ValidationKey>> = {};
        for (const [k, v] of Object.entries(err.fields)) {
          const key = serverFieldKey(v);
          if (key && (k === 'name' || k === 'password' || k === 'email' || k === 'profile' || k === 'currentPassword')) mapped[k] = key;
        }
        setErrors(mapped);
      }
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const error = (f: ErrorField) => errors[f] && <FieldError role="alert">{t(errors[f]!)}</FieldError>;
  const toggleQueue = (id: ID) => setQueueIds((l) => (l.includes(id) ? l.filter((x) => x !== id) : [...l, id]));

  return (
    <Dialog
      open
      onClose={onClose}
      width={520}
      title={creating ? t('users.form.addTitle') : t('users.form.editTitle')}
      actions={
        tab === 'user' && (
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form="user-form" disabled={busy}>
            {t('common.actions.save')}
          </Button>
        </>
        )
      }
    >
      <Tabs role="tablist">
        {(['user', ...(user ? (['resource', 'agenda', 'grid'] as const) : [])] as const).map((k) => (
          <Tab key={k} as="button" type="button" role="tab" aria-selected={tab === k} $active={tab === k} onClick={() => setTab(k)}>
            {k === 'user' ? t('users.form.tabUser') : t(`booking.tabs.${k}`)}
          </Tab>
        ))}
      </Tabs>
      {user && tab !== 'user' && <BookingTabs tab={tab} userId={user.id} onClose={onClose} canManagePlaces={canManagePlaces} />}
      <Form id="user-form" onSubmit={submit} noValidate hidden={tab !== 'user'}>
        {user && canEditProfile && (
          <Field>
            {t('users.form.id')}
            <Input value={String(user.id)} readOnly name="id" />
          </Field>
        )}
        <Field>
          {t('users.form.name')}
          <Input value={values.name} onChange={set('name')} aria-invalid={!!errors.name} name="name" autoComplete="off" />
          {error('name')}
        </Field>
        {/* A div, not a label: the show/hide button must not join the field's name. */}
        <Field as="div">
          <label htmlFor={passwordId}>{t('users.form.password')}</label>
          <PasswordBox>
            <Input
              id={passwordId}
              type={showPassword ? 'text' : 'password'}
              value={values.password}
              onChange={set('password')}
              aria-invalid={!!errors.password}
              name="password"
              autoComplete="new-password"
            />
            <IconButton
              type="button"
              $size={32}
              aria-label={showPassword ? t('users.form.hidePassword') : t('users.form.showPassword')}
              onClick={() => setShowPassword((s) => !s)}
            >
              <Icon name={showPassword ? 'visibilityOff' : 'visibility'} size={18} />
            </IconButton>
          </PasswordBox>
          {!creating && <Hint>{t('users.form.passwordKeep')}</Hint>}
          {error('password')}
        </Field>
        {needsCurrent && (
          <Field>
            {t('users.form.currentPassword')}
            <Input
              type={showPassword ? 'text' : 'password'}
              value={values.currentPassword}
              onChange={set('currentPassword')}
              aria-invalid={!!errors.currentPassword}
              name="currentPassword"
              autoComplete="current-password"
            />
            <Hint>{t('users.form.currentPasswordHint')}</Hint>
            {error('currentPassword')}
          </Field>
        )}
        <Field>
          {t('users.form.email')}
          <Input type="email" value={values.email} onChange={set('email')} aria-invalid={!!errors.email} name="email" autoComplete="off" readOnly={!canEditEmail} />
          {error('email')}
        </Field>
        {canEditProfile && (
          <Field>
            {t('users.form.profile')}
            <Select value={profile} onChange={(e) => setProfile(e.target.value)} name="profile">
              {profilesFor(callerProfile, user?.profile).map((p) => (
                <option key={p} value={p}>
                  {t(`users.profiles.${p}` as 'users.profiles.user')}
                </option>
              ))}
            </Select>
            {error('profile')}
          </Field>
        )}
        {canEditQueues && (
          <>
            <Fieldset>
              <legend>{t('users.form.queues')}</legend>
              {queues.map((q) => (
                <Check key={q.id}>
                  <input type="checkbox" checked={queueIds.includes(q.id)} onChange={() => toggleQueue(q.id)} />
                  <Dot $color={q.color} />
                  {q.name}
                </Check>
              ))}
            </Fieldset>
            <Field>
              {t('users.form.whatsapp')}
              <Select
                value={whatsappId === null ? '' : String(whatsappId)}
                onChange={(e) => setWhatsappId(e.target.value ? Number(e.target.value) : null)}
                name="whatsappId"
              >
                <option value="">{t('users.form.noWhatsapp')}</option>
                {whatsappId !== null && !connections.some((c) => c.id === whatsappId) && (
                  <option value={String(whatsappId)}>#{whatsappId}</option>
                )}
                {connections.map((c) => (
                  <option key={c.id} value={String(c.id)}>
                    {c.name}
                  </option>
                ))}
              </Select>
            </Field>
          </>
        )}
      </Form>
    </Dialog>
  );
}
