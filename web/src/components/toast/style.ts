import styled from 'styled-components';
import type { ToastKind } from './toastStore';

export const ToastStack = styled.div`
  position: fixed;
  top: ${({ theme }) => theme.layout.appBarHeight + theme.space.sm}px;
  right: ${({ theme }) => theme.space.lg}px;
  z-index: ${({ theme }) => theme.zIndex.toast};
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  max-width: min(360px, calc(100vw - 32px));
`;

export const ToastCard = styled.div<{ $kind: ToastKind }>`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => `${theme.space.md}px ${theme.space.lg}px`};
  border-radius: ${({ theme }) => theme.radii.md}px;
  box-shadow: 0 4px 14px ${({ theme }) => theme.colors.shadow};
  color: ${({ theme }) => theme.colors.onPrimary};
  background: ${({ theme, $kind }) =>
    $kind === 'success' ? theme.colors.success : $kind === 'error' ? theme.colors.danger : theme.colors.info};
`;

export const CloseButton = styled.button`
  border: 0;
  background: transparent;
  color: inherit;
  font-size: ${({ theme }) => theme.fontSizes.lg}px;
  cursor: pointer;
`;
