import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSelector } from '@xstate/react';
import { useSessionActor } from '../../app/session';
import { Button, Field, FieldError, IconButton, Input } from '../../components/primitives';
import { Icon } from '../../components/Icon';
import { TermsDialog } from './TermsDialog';
import { Brand, Card, Footer, LinkButton, PasswordWrap, Page, Subtitle, Title } from './style';

interface Errors {
  email?: string;
  password?: string;
}

export default function LoginPage() {
  const { t } = useTranslation();
  const session = useSessionActor();
  const busy = useSelector(session, (s) => s.matches('loggingIn'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [termsOpen, setTermsOpen] = useState(false);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: Errors = {};
    if (!email.trim()) next.email = t('validation.required');
    if (!password) next.password = t('validation.required');
    setErrors(next);
    if (next.email || next.password) return;
    session.send({ type: 'session.login', email: email.trim(), password });
  };

  return (
    <Page>
      <Card as="form" onSubmit={submit} noValidate aria-labelledby="login-title">
        <Brand aria-hidden="true">
          <Icon name="chat" size={36} />
        </Brand>
        <Title id="login-title">{t('login.title')}</Title>
        <Subtitle>{t('login.subtitle')}</Subtitle>
        <Field>
          {t('login.form.email')}
          <Input
            type="email"
            name="email"
            autoComplete="email"
            autoFocus
            value={email}
            aria-invalid={!!errors.email}
            onChange={(e) => setEmail(e.target.value)}
          />
          {errors.email && <FieldError role="alert">{errors.email}</FieldError>}
        </Field>
        <Field>
          {t('login.form.password')}
          <PasswordWrap>
            <Input
              type={showPassword ? 'text' : 'password'}
              name="password"
              autoComplete="current-password"
              value={password}
              aria-invalid={!!errors.password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <IconButton
              type="button"
              $size={32}
              aria-label={showPassword ? t('login.form.hidePassword') : t('login.form.showPassword')}
              aria-pressed={showPassword}
              onClick={() => setShowPassword((s) => !s)}
            >
              <Icon name={showPassword ? 'visibilityOff' : 'visibility'} />
            </IconButton>
          </PasswordWrap>
          {errors.password && <FieldError role="alert">{errors.password}</FieldError>}
        </Field>
        <Button type="submit" $block disabled={busy}>
          {busy ? t('login.form.submitting') : t('login.form.submit')}
        </Button>
        <Footer>
          {t('login.terms.prompt')}{' '}
          <LinkButton type="button" onClick={() => setTermsOpen(true)}>
            {t('login.terms.link')}
          </LinkButton>
        </Footer>
      </Card>
      <TermsDialog open={termsOpen} onClose={() => setTermsOpen(false)} />
    </Page>
  );
}
