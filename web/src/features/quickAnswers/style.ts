import styled from 'styled-components';
import { inputCss } from '../../components/primitives';

export const TextArea = styled.textarea`
  ${inputCss}
  resize: vertical;
  min-height: 120px;
  font-family: inherit;
`;

export const Hint = styled.span`
  color: ${({ theme }) => theme.colors.textSoft};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
`;

export const Shortcut = styled.strong`
  color: ${({ theme }) => theme.colors.primary};
`;
