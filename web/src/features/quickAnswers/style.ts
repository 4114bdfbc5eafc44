import styled from 'styled-components';

export const Hint = styled.span`
  color: ${({ theme }) => theme.colors.textSoft};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
`;

export const Shortcut = styled.strong`
  color: ${({ theme }) => theme.colors.primary};
`;
