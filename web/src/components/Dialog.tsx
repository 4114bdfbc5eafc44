// Modal dialog: overlay, Escape and overlay click close it, focus moves inside.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { Icon } from './Icon';
import { IconButton } from './primitives';
import { DialogActions, DialogBody, DialogCard, DialogHeader, DialogTitle, Overlay } from './dialogStyle';

export interface DialogProps {
  open: boolean;
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  actions?: ReactNode;
  width?: number;
}

export function Dialog({ open, title, onClose, children, actions, width = 480 }: DialogProps) {
  const titleId = useId();
  const cardRef = useRef<HTMLDivElement>(null);
  const { t } = useTranslation();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    if (!open) return;
    const prev = document.activeElement as HTMLElement | null;
    const first = cardRef.current?.querySelector<HTMLElement>('input, textarea, select, button:not([data-close])');
    (first ?? cardRef.current)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onCloseRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      prev?.focus?.();
    };
  }, [open]);

  if (!open) return null;
  return createPortal(
    <Overlay onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <DialogCard ref={cardRef} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} $width={width}>
        <DialogHeader>
          <DialogTitle id={titleId}>{title}</DialogTitle>
          <IconButton type="button" data-close aria-label={t('common.actions.close')} onClick={onClose}>
            <Icon name="close" />
          </IconButton>
        </DialogHeader>
        <DialogBody>{children}</DialogBody>
        {actions && <DialogActions>{actions}</DialogActions>}
      </DialogCard>
    </Overlay>,
    document.body,
  );
}
