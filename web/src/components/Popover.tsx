// A small anchored panel (menus, filters, pickers). Closes on outside click and Escape.
import { useEffect, useRef, type ReactNode } from 'react';
import styled from 'styled-components';

const Wrap = styled.div`
  position: relative;
  display: inline-flex;
`;

const Panel = styled.div<{ $align: 'left' | 'right'; $up: boolean; $width?: number }>`
  position: absolute;
  ${({ $up }) => ($up ? 'bottom: calc(100% + 4px);' : 'top: calc(100% + 4px);')}
  ${({ $align }) => ($align === 'right' ? 'right: 0;' : 'left: 0;')}
  z-index: ${({ theme }) => theme.zIndex.popover};
  min-width: ${({ $width }) => $width ?? 200}px;
  max-width: calc(100vw - 16px);
  max-height: ${({ theme }) => theme.layout.popoverMaxHeight}px;
  overflow: auto;
  background: ${({ theme }) => theme.colors.surface};
  color: ${({ theme }) => theme.colors.text};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  box-shadow: 0 6px 20px ${({ theme }) => theme.colors.shadow};
  padding: ${({ theme }) => theme.space.xs}px 0;
`;

export function Popover({
  open,
  onClose,
  anchor,
  children,
  align = 'left',
  up = false,
  width,
  label,
}: {
  open: boolean;
  onClose: () => void;
  anchor: ReactNode;
  children: ReactNode;
  align?: 'left' | 'right';
  up?: boolean;
  width?: number;
  label?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onCloseRef.current();
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onCloseRef.current();
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <Wrap ref={ref}>
      {anchor}
      {open && (
        <Panel $align={align} $up={up} $width={width} role="dialog" aria-label={label}>
          {children}
        </Panel>
      )}
    </Wrap>
  );
}

export const MenuItem = styled.button`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  width: 100%;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
  border: 0;
  background: transparent;
  text-align: left;
  cursor: pointer;
  &:hover,
  &:focus-visible {
    background: ${({ theme }) => theme.colors.surfaceAlt};
  }
`;
