// The reference-data pages' layout (ListPage, and the settings and connections pages
// that share its header): page column, header row, title, bordered list area, list row.
import styled from 'styled-components';

export const Page = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
  flex-direction: column;
  padding: ${({ theme }) => theme.space.lg}px;
  gap: ${({ theme }) => theme.space.md}px;
`;

export const Header = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
`;

export const Title = styled.h1`
  flex: 1;
  margin: 0;
  font-size: ${({ theme }) => theme.fontSizes.xxl}px;
`;

export const ListArea = styled.div`
  flex: 1;
  min-height: 0;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.xs}px;
`;

export const ContactRow = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.md}px;
  padding: 0 ${({ theme }) => theme.space.md}px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const RowInfo = styled.div`
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
