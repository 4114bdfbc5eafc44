import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { dismiss, toastStore } from './toastStore';
import { CloseButton, ToastCard, ToastStack } from './style';

export function Toaster() {
  const items = useSyncExternalStore(toastStore.subscribe, toastStore.getSnapshot);
  const { t } = useTranslation();
  return (
    <ToastStack aria-live="polite">
      {items.map((item) => (
        <ToastCard key={item.id} $kind={item.kind} role={item.kind === 'error' ? 'alert' : 'status'}>
          <span>{item.text}</span>
          <CloseButton type="button" aria-label={t('common.actions.close')} onClick={() => dismiss(item.id)}>
            ×
          </CloseButton>
        </ToastCard>
      ))}
    </ToastStack>
  );
}
