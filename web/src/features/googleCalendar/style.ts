import styled from 'styled-components';

export const Panel = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
  max-width: 760px;
  p {
    margin: 0;
  }
`;

export const Steps = styled.ol`
  margin: 0;
  padding-left: ${({ theme }) => theme.space.lg}px;
  color: ${({ theme }) => theme.colors.text};
  line-height: 1.6;
`;
