// Layout pieces of the /Groups page.
import styled from 'styled-components';

export const List = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
  overflow: auto;
`;

export const Card = styled.section`
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: 8px;
  padding: ${({ theme }) => theme.space.md}px;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
`;

export const Bar = styled.progress`
  width: 100%;
  height: 14px;
`;

export const Groups = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: 240px;
  overflow: auto;
  li {
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
    padding: 2px 0;
  }
`;

export const Pair = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: ${({ theme }) => theme.space.md}px;
`;

export const JoinBody = styled.main`
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  gap: ${({ theme }) => theme.space.md}px;
  min-height: 100vh;
  padding: ${({ theme }) => theme.space.lg}px;
  text-align: center;
`;
