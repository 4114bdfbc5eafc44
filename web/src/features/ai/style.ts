import styled from 'styled-components';

// A translation under a message's text.
export const TranslationText = styled.p`
  margin: 4px 0 0;
  padding-top: 4px;
  border-top: 1px solid ${({ theme }) => theme.colors.border};
  font-size: 0.875rem;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;

export const Page = styled.section`
  display: flex;
  flex-direction: column;
  gap: 16px;
  padding: 16px;
  max-width: 720px;
`;

export const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: 12px;
`;

export const IntentItem = styled.li`
  display: flex;
  align-items: flex-start;
  justify-content: space-between;
  gap: 12px;
  padding: 12px 0;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;
