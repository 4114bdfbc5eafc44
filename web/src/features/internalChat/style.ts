import styled from 'styled-components';

export const ChatLayout = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
  gap: ${({ theme }) => theme.space.md}px;
  padding: ${({ theme }) => theme.space.lg}px;
`;

export const Side = styled.section<{ $hidden: boolean }>`
  width: 320px;
  min-width: 0;
  display: ${({ $hidden }) => ($hidden ? 'none' : 'flex')};
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  @media (max-width: 700px) {
    width: 100%;
  }
`;

export const Conversation = styled.section<{ $hidden: boolean }>`
  flex: 1;
  min-width: 0;
  display: ${({ $hidden }) => ($hidden ? 'none' : 'flex')};
  flex-direction: column;
  background: ${({ theme }) => theme.colors.chatBackground};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  overflow: hidden;
`;

export const ChatItems = styled.ul`
  flex: 1;
  min-height: 0;
  overflow-y: auto;
  margin: 0;
  padding: 0;
  list-style: none;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
`;

export const ChatItem = styled.button<{ $active: boolean }>`
  width: 100%;
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
  border: 0;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme, $active }) => ($active ? theme.colors.primarySoft : theme.colors.surface)};
  text-align: left;
  cursor: pointer;
`;

export const ChatText = styled.span`
  flex: 1;
  min-width: 0;
  display: flex;
  flex-direction: column;
  strong,
  span {
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
`;

export const ConversationHead = styled.header`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
  background: ${({ theme }) => theme.colors.surface};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  h2 {
    flex: 1;
    margin: 0;
    font-size: ${({ theme }) => theme.fontSizes.lg}px;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
`;

export const Empty = styled.div`
  flex: 1;
  display: flex;
  align-items: center;
  justify-content: center;
  padding: ${({ theme }) => theme.space.lg}px;
  color: ${({ theme }) => theme.colors.textMuted};
  background: ${({ theme }) => theme.colors.surface};
`;

export const ComposerForm = styled.form`
  display: flex;
  align-items: flex-end;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => theme.space.sm}px;
  background: ${({ theme }) => theme.colors.surface};
  border-top: 1px solid ${({ theme }) => theme.colors.border};
  textarea {
    flex: 1;
    resize: none;
  }
`;

export const Sender = styled.strong`
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  color: ${({ theme }) => theme.colors.text};
`;

export const UserChoices = styled.fieldset`
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  margin: 0;
  padding: ${({ theme }) => theme.space.sm}px;
  max-height: 240px;
  overflow-y: auto;
  label {
    display: flex;
    align-items: center;
    gap: ${({ theme }) => theme.space.sm}px;
    padding: 2px 0;
  }
`;

export const MediaImage = styled.img`
  display: block;
  height: 160px;
  max-width: 240px;
  object-fit: cover;
  border-radius: ${({ theme }) => theme.radii.sm}px;
`;
