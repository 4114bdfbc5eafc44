import styled from 'styled-components';

export const NoticeStack = styled.div`
  position: fixed;
  right: ${({ theme }) => theme.space.md}px;
  bottom: ${({ theme }) => theme.space.md}px;
  z-index: ${({ theme }) => theme.zIndex.popover};
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  max-width: calc(100vw - 32px);
  width: 340px;
`;

export const NoticeCard = styled.section`
  display: flex;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => theme.space.md}px;
  background: ${({ theme }) => theme.colors.surface};
  color: ${({ theme }) => theme.colors.text};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-left: 4px solid ${({ theme }) => theme.colors.primary};
  border-radius: ${({ theme }) => theme.radii.md}px;
  box-shadow: 0 6px 20px ${({ theme }) => theme.colors.shadow};
`;

export const NoticeTitle = styled.strong`
  display: block;
`;

export const NoticeBody = styled.p`
  margin: ${({ theme }) => theme.space.xs}px 0 ${({ theme }) => theme.space.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
`;

export const NoticeActions = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space.sm}px;
`;
