// Layout pieces shared by the broadcasts and campaigns pages.
import styled from 'styled-components';

export const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
  max-width: 760px;
  padding-bottom: ${({ theme }) => theme.space.md}px;
`;

export const List = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
  overflow: auto;
`;

export const Picker = styled.ul`
  list-style: none;
  margin: 0;
  padding: 4px;
  max-height: 200px;
  overflow: auto;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: 6px;
  li label {
    display: flex;
    gap: 8px;
    align-items: center;
  }
`;
