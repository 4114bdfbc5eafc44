import styled from 'styled-components';

export const PageBody = styled.div`
  flex: 1;
  overflow: auto;
  padding: ${({ theme }) => theme.space.xl}px;
`;

export const PageTitle = styled.h1`
  margin: 0 0 ${({ theme }) => theme.space.lg}px;
  font-size: ${({ theme }) => theme.fontSizes.xxl}px;
`;
