import styled from 'styled-components';

export const Page = styled.main`
  min-height: 100%;
  display: flex;
  align-items: center;
  justify-content: center;
  padding: ${({ theme }) => theme.space.lg}px;
  background: linear-gradient(160deg, ${({ theme }) => theme.colors.primarySoft}, ${({ theme }) => theme.colors.background});
`;

export const Card = styled.div`
  width: min(400px, 100%);
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.lg}px;
  padding: ${({ theme }) => theme.space.xl}px;
  background: ${({ theme }) => theme.colors.surface};
  border-radius: ${({ theme }) => theme.radii.lg}px;
  box-shadow: 0 10px 30px ${({ theme }) => theme.colors.shadow};
`;

export const Brand = styled.div`
  align-self: center;
  width: 64px;
  height: 64px;
  border-radius: 50%;
  display: flex;
  align-items: center;
  justify-content: center;
  color: ${({ theme }) => theme.colors.onPrimary};
  background: ${({ theme }) => theme.colors.primary};
`;

export const Title = styled.h1`
  margin: 0;
  text-align: center;
  font-size: ${({ theme }) => theme.fontSizes.xl}px;
`;

export const Subtitle = styled.p`
  margin: -8px 0 0;
  text-align: center;
  color: ${({ theme }) => theme.colors.textSoft};
`;

export const PasswordWrap = styled.div`
  position: relative;
  display: flex;
  align-items: center;
  input {
    padding-right: 44px;
  }
  button {
    position: absolute;
    right: 4px;
  }
`;

export const Footer = styled.p`
  margin: 0;
  text-align: center;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.textSoft};
`;

export const LinkButton = styled.button`
  border: 0;
  padding: 0;
  background: none;
  color: ${({ theme }) => theme.colors.primary};
  text-decoration: underline;
  cursor: pointer;
  font-size: inherit;
`;

export const TermsSection = styled.section`
  h3 {
    margin: 0 0 ${({ theme }) => theme.space.xs}px;
    font-size: ${({ theme }) => theme.fontSizes.md}px;
  }
  p {
    margin: 0;
    color: ${({ theme }) => theme.colors.textMuted};
    line-height: 1.5;
  }
`;
