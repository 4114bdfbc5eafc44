// The drawer's alarm (spec sections 2 and 4): while a connection's status needs
// attention (every status but CONNECTED), checked 2 s after a change so a passing
// OPENING does not flash it, the tickets and connections icons shake and the
// connections entry shows a badge with the count.
import type { ReactNode } from 'react';
import styled, { css, keyframes } from 'styled-components';
import { useDebounced } from '../../app/hooks';
import { needsAttention } from './status';
import { useConnections } from './useConnections';

export const attentionDelayMs = 2000;

// useConnectionAttention counts the connections needing attention, as of 2 s after
// the last change.
export function useConnectionAttention(): number {
  const { items } = useConnections();
  const count = (items ?? []).filter(needsAttention).length;
  return useDebounced(count, attentionDelayMs);
}

const shake = keyframes`
  0%, 100% { transform: rotate(0); }
  20% { transform: rotate(-12deg); }
  40% { transform: rotate(10deg); }
  60% { transform: rotate(-6deg); }
  80% { transform: rotate(4deg); }
`;

const Shaker = styled.span<{ $on: boolean }>`
  position: relative;
  display: inline-flex;
  ${({ $on }) =>
    $on &&
    css`
      animation: ${shake} 0.9s ease-in-out infinite;
      @media (prefers-reduced-motion: reduce) {
        animation: none;
      }
    `}
`;

const Count = styled.span`
  position: absolute;
  top: -6px;
  right: -8px;
  min-width: 16px;
  height: 16px;
  padding: 0 4px;
  border-radius: 8px;
  font-size: 10px;
  line-height: 16px;
  text-align: center;
  color: ${({ theme }) => theme.colors.onPrimary};
  background: ${({ theme }) => theme.colors.danger};
`;

// AttentionIcon wraps a drawer icon: shaking while on, with a count badge if given.
export function AttentionIcon({ on, count, children }: { on: boolean; count?: number; children: ReactNode }) {
  return (
    <Shaker $on={on} data-attention={on ? 'true' : undefined}>
      {children}
      {on && count ? <Count data-testid="connections-attention-badge">{count}</Count> : null}
    </Shaker>
  );
}
