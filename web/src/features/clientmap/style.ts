// The maps' frame: Leaflet's own CSS comes with the lazy chunk; these rules draw our
// markers and cluster bubbles with the theme's colours (AA contrast for the counts).
import styled from 'styled-components';

export const MapFrame = styled.div`
  width: 100%;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  overflow: hidden;
  .leaflet-container {
    background: ${({ theme }) => theme.colors.surfaceAlt};
    font: inherit;
  }
  /* Leaflet's own link blue is below AA on its popups: links in the app's colour. */
  .leaflet-container a,
  .leaflet-container a:visited {
    color: ${({ theme }) => theme.colors.primary};
  }
  .leaflet-container .leaflet-control-attribution {
    background: ${({ theme }) => theme.colors.surface};
    color: ${({ theme }) => theme.colors.textMuted};
  }
  .atende-marker span {
    display: block;
    width: 22px;
    height: 22px;
    border-radius: 50% 50% 50% 0;
    transform: rotate(-45deg);
    background: ${({ theme }) => theme.colors.primary};
    border: 2px solid ${({ theme }) => theme.colors.onPrimary};
    box-shadow: 0 1px 3px ${({ theme }) => theme.colors.shadow};
  }
  .atende-cluster {
    display: flex;
    align-items: center;
    justify-content: center;
    border-radius: 50%;
    background: ${({ theme }) => theme.colors.primary};
    color: ${({ theme }) => theme.colors.onPrimary};
    border: 3px solid ${({ theme }) => theme.colors.primarySoft};
    font-weight: 700;
  }
  .leaflet-popup-content {
    display: flex;
    flex-direction: column;
    gap: ${({ theme }) => theme.space.xs}px;
  }
`;

export const MapPage = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
  padding: ${({ theme }) => theme.space.lg}px;
  h1 {
    margin: 0;
    font-size: ${({ theme }) => theme.fontSizes.xxl}px;
  }
`;

export const MapArea = styled.div`
  flex: 1;
  min-height: 320px;
  display: flex;
`;

export const Notes = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xxs}px;
  color: ${({ theme }) => theme.colors.textMuted};
  details summary {
    cursor: pointer;
  }
`;
