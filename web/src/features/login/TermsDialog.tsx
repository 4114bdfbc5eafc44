import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button } from '../../components/primitives';
import { TermsSection } from './style';

const sections = ['liability', 'dataProtection', 'providers'] as const;

export function TermsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog
      open={open}
      onClose={onClose}
      width={640}
      title={t('login.terms.title')}
      actions={
        <Button type="button" onClick={onClose}>
          {t('login.terms.accept')}
        </Button>
      }
    >
      <p>{t('login.terms.intro')}</p>
      {sections.map((s) => (
        <TermsSection key={s}>
          <h3>{t(`login.terms.sections.${s}.title`)}</h3>
          <p>{t(`login.terms.sections.${s}.body`)}</p>
        </TermsSection>
      ))}
    </Dialog>
  );
}
