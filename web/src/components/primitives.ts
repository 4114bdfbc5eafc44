// Shared styled primitives. Colours, sizes and z-indexes come from the theme only.
import styled, { css } from 'styled-components';
import { readableOn } from '../theme/contrast';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

export const Button = styled.button<{ $variant?: Variant; $block?: boolean; $small?: boolean }>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: ${({ theme }) => theme.space.xs}px;
  min-height: ${({ $small }) => ($small ? 28 : 36)}px;
  padding: 0 ${({ theme, $small }) => ($small ? theme.space.sm : theme.space.lg)}px;
  border-radius: ${({ theme }) => theme.radii.sm}px;
  border: 1px solid transparent;
  font-size: ${({ theme, $small }) => ($small ? theme.fontSizes.xs : theme.fontSizes.sm)}px;
  font-weight: 600;
  text-transform: uppercase;
  letter-spacing: 0.02em;
  cursor: pointer;
  width: ${({ $block }) => ($block ? '100%' : 'auto')};
  white-space: nowrap;
  ${({ theme, $variant = 'primary' }) => {
    const c = theme.colors;
    switch ($variant) {
      case 'primary':
        return css`
          background: ${c.primary};
          color: ${c.onPrimary};
          &:hover:not(:disabled) {
            background: ${c.primaryDark};
          }
        `;
      case 'danger':
        return css`
          background: ${c.danger};
          color: ${c.onPrimary};
        `;
      case 'secondary':
        return css`
          background: ${c.surface};
          color: ${c.primary};
          border-color: ${c.primary};
        `;
      case 'ghost':
        return css`
          background: transparent;
          color: ${c.textMuted};
          &:hover:not(:disabled) {
            background: ${c.surfaceAlt};
          }
        `;
    }
  }}
  &:disabled {
    opacity: 0.5;
    cursor: not-allowed;
  }
`;

export const IconButton = styled.button<{ $active?: boolean; $size?: number }>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: ${({ $size = 36 }) => $size}px;
  height: ${({ $size = 36 }) => $size}px;
  flex: none;
  border-radius: ${({ theme }) => theme.radii.round}px;
  border: 0;
  cursor: pointer;
  position: relative;
  color: ${({ theme, $active }) => ($active ? theme.colors.primary : 'inherit')};
  background: ${({ theme, $active }) => ($active ? theme.colors.primarySoft : 'transparent')};
  &:hover:not(:disabled) {
    background: ${({ theme }) => theme.colors.surfaceAlt};
  }
  &:disabled {
    opacity: 0.4;
    cursor: not-allowed;
  }
`;

export const Field = styled.label`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.textMuted};
`;

export const inputCss = css`
  width: 100%;
  min-height: 40px;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
  border: 1px solid ${({ theme }) => theme.colors.borderStrong};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.surface};
  color: ${({ theme }) => theme.colors.text};
  font-size: ${({ theme }) => theme.fontSizes.md}px;
  &:focus {
    outline: none;
    border-color: ${({ theme }) => theme.colors.primary};
  }
  &[aria-invalid='true'] {
    border-color: ${({ theme }) => theme.colors.danger};
  }
`;

export const Input = styled.input`
  ${inputCss}
`;

export const Select = styled.select`
  ${inputCss}
`;

// A form's multi-line field; $minHeight in px (64 unless given).
export const TextArea = styled.textarea<{ $minHeight?: number }>`
  ${inputCss}
  resize: vertical;
  min-height: ${({ $minHeight = 64 }) => $minHeight}px;
  font-family: inherit;
`;

export const FieldError = styled.span`
  color: ${({ theme }) => theme.colors.danger};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
`;

export const Badge = styled.span<{ $color?: string; $tone?: 'primary' | 'danger' | 'success' | 'muted' }>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  min-width: 20px;
  height: 20px;
  padding: 0 6px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  font-weight: 700;
  /* A queue's or tag's own colour ($color) gets black or white text, whichever reads. */
  color: ${({ theme, $color }) => ($color ? readableOn($color) : theme.colors.onPrimary)};
  background: ${({ theme, $color, $tone = 'primary' }) =>
    $color ??
    ($tone === 'danger'
      ? theme.colors.danger
      : $tone === 'success'
        ? theme.colors.success
        : $tone === 'muted'
          ? theme.colors.textSoft
          : theme.colors.primary)};
`;

export const Row = styled.div<{ $gap?: number; $wrap?: boolean }>`
  display: flex;
  align-items: center;
  gap: ${({ $gap = 8 }) => $gap}px;
  flex-wrap: ${({ $wrap }) => ($wrap ? 'wrap' : 'nowrap')};
`;

export const Muted = styled.span`
  color: ${({ theme }) => theme.colors.textSoft};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
`;

export const VisuallyHidden = styled.span`
  position: absolute;
  width: 1px;
  height: 1px;
  overflow: hidden;
  clip: rect(0 0 0 0);
  white-space: nowrap;
`;

export const Switch = styled.input.attrs({ type: 'checkbox', role: 'switch' })`
  appearance: none;
  width: 34px;
  height: 18px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  background: ${({ theme }) => theme.colors.borderStrong};
  position: relative;
  cursor: pointer;
  flex: none;
  &::after {
    content: '';
    position: absolute;
    top: 2px;
    left: 2px;
    width: 14px;
    height: 14px;
    border-radius: 50%;
    background: ${({ theme }) => theme.colors.surface};
    transition: left 0.15s;
  }
  &:checked {
    background: ${({ theme }) => theme.colors.primary};
  }
  &:checked::after {
    left: 18px;
  }
`;
