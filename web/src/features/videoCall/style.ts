import styled from 'styled-components';

export const CallPage = styled.main`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
  min-height: 100vh;
  padding: ${({ theme }) => theme.space.md}px;
  background: ${({ theme }) => theme.colors.background};
  color: ${({ theme }) => theme.colors.text};
`;

export const CallTitle = styled.h1`
  margin: 0;
  font-size: ${({ theme }) => theme.fontSizes.lg}px;
`;

export const Stage = styled.div`
  position: relative;
  flex: 1;
  min-height: 240px;
  max-height: 65vh;
  border-radius: ${({ theme }) => theme.radii.md}px;
  overflow: hidden;
  background: ${({ theme }) => theme.colors.text};
`;

export const RemoteVideo = styled.video`
  width: 100%;
  height: 100%;
  object-fit: contain;
  display: block;
`;

export const LocalVideo = styled.video`
  position: absolute;
  right: ${({ theme }) => theme.space.md}px;
  bottom: ${({ theme }) => theme.space.md}px;
  width: 160px;
  height: 120px;
  object-fit: cover;
  border: 2px solid ${({ theme }) => theme.colors.surface};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.textMuted};
`;

export const Status = styled.p`
  margin: 0;
  font-size: ${({ theme }) => theme.fontSizes.md}px;
  font-weight: 600;
`;

export const Note = styled.p<{ $danger?: boolean }>`
  margin: 0;
  color: ${({ theme, $danger }) => ($danger ? theme.colors.danger : theme.colors.textMuted)};
`;

export const Controls = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space.sm}px;
`;
