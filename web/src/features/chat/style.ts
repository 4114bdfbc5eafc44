import styled, { css } from 'styled-components';
import { readableOn } from '../../theme/contrast';
import type { SatisfactionLevel } from '../../app/rules';

export const ChatFrame = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
  position: relative;
`;

export const ChatColumn = styled.div`
  flex: 1;
  min-width: 0;
  display: flex;
  flex-direction: column;
  background: ${({ theme }) => theme.colors.chatBackground};
`;

export const ErrorBox = styled.div`
  margin: auto;
  padding: ${({ theme }) => theme.space.xl}px;
  color: ${({ theme }) => theme.colors.danger};
`;

export const HeaderBar = styled.header`
  flex: none;
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  min-height: 60px;
  padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.sm}px`};
  background: ${({ theme }) => theme.colors.surface};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const HeaderContact = styled.button`
  flex: 1;
  min-width: 0;
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  border: 0;
  background: transparent;
  text-align: left;
  cursor: pointer;
  padding: 0;
  > span {
    min-width: 0;
    display: flex;
    flex-direction: column;
  }
`;

export const HeaderName = styled.span`
  font-weight: 600;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
`;

export const HeaderSub = styled.span`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  color: ${({ theme }) => theme.colors.textSoft};
  white-space: nowrap;
  overflow: hidden;
`;

export const HeaderActions = styled.div`
  display: flex;
  flex: none;
  flex-wrap: wrap;
  justify-content: flex-end;
  max-width: 60%;
`;

export const ListBox = styled.div`
  flex: 1;
  min-height: 0;
`;

export const LoaderRow = styled.div`
  display: flex;
  justify-content: center;
  padding: ${({ theme }) => theme.space.sm}px;
`;

export const DayRow = styled.div`
  display: flex;
  justify-content: center;
  padding: ${({ theme }) => theme.space.sm}px 0;
`;

export const DayChip = styled.span`
  padding: 2px ${({ theme }) => theme.space.md}px;
  border-radius: ${({ theme }) => theme.radii.md}px;
  background: ${({ theme }) => theme.colors.surface};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  box-shadow: 0 1px 1px ${({ theme }) => theme.colors.shadow};
`;

export const BubbleRow = styled.div<{ $out: boolean }>`
  display: flex;
  justify-content: ${({ $out }) => ($out ? 'flex-end' : 'flex-start')};
  padding: 4px ${({ theme }) => theme.space.md}px;
`;

type BubbleKind = 'in' | 'out' | 'whisper' | 'deleted';

export const BubbleActions = styled.div`
  position: absolute;
  top: -12px;
  right: 6px;
  display: none;
  background: ${({ theme }) => theme.colors.surface};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  box-shadow: 0 1px 4px ${({ theme }) => theme.colors.shadow};
  z-index: ${({ theme }) => theme.zIndex.raised};
`;

export const Bubble = styled.div<{ $kind: BubbleKind }>`
  position: relative;
  max-width: min(75%, 560px);
  min-width: 80px;
  padding: ${({ theme }) => `${theme.space.xs + 2}px ${theme.space.sm + 2}px`};
  border-radius: ${({ theme }) => theme.radii.md}px;
  box-shadow: 0 1px 1px ${({ theme }) => theme.colors.shadow};
  display: flex;
  flex-direction: column;
  gap: 2px;
  ${({ theme, $kind }) => {
    switch ($kind) {
      case 'out':
        return css`
          background: ${theme.colors.bubbleOut};
        `;
      case 'whisper':
        return css`
          background: ${theme.colors.bubbleWhisper};
          border: 1px dashed ${theme.colors.bubbleWhisperBorder};
        `;
      case 'deleted':
        return css`
          background: ${theme.colors.surfaceAlt};
          color: ${theme.colors.textSoft};
        `;
      default:
        return css`
          background: ${theme.colors.bubbleIn};
        `;
    }
  }}
  &:hover ${BubbleActions}, &:focus-within ${BubbleActions} {
    display: flex;
  }
`;

export const Body = styled.span`
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;

export const BubbleMeta = styled.span`
  align-self: flex-end;
  display: inline-flex;
  align-items: center;
  gap: 2px;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  color: ${({ theme }) => theme.colors.textSoft};
`;

export const Ack = styled.span<{ $read?: boolean; $failed?: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: 2px;
  color: ${({ theme, $read, $failed }) => ($failed ? theme.colors.danger : $read ? theme.colors.ackRead : theme.colors.textSoft)};
`;

export const Quoted = styled.div<{ $fromMe: boolean }>`
  display: flex;
  flex-direction: column;
  padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.sm}px`};
  border-left: 4px solid ${({ theme, $fromMe }) => ($fromMe ? theme.colors.primary : theme.colors.info)};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.surfaceAlt};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  span {
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
`;

export const MediaImage = styled.img`
  max-width: 240px;
  max-height: 240px;
  border-radius: ${({ theme }) => theme.radii.sm}px;
  object-fit: cover;
`;

export const SmallAction = styled.button`
  border: 0;
  background: transparent;
  padding: 2px;
  cursor: pointer;
  color: ${({ theme }) => theme.colors.textMuted};
  display: inline-flex;
`;

export const ComposerBox = styled.div<{ $whisper: boolean }>`
  flex: none;
  position: relative;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: ${({ theme }) => theme.space.sm}px;
  background: ${({ theme, $whisper }) => ($whisper ? theme.colors.bubbleWhisper : theme.colors.surfaceAlt)};
  border-top: 1px solid ${({ theme }) => theme.colors.border};
`;

export const ToggleBar = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  flex-wrap: wrap;
`;

export const ComposerInputRow = styled.div`
  display: flex;
  align-items: flex-end;
  gap: ${({ theme }) => theme.space.xs}px;
`;

export const TextArea = styled.textarea`
  flex: 1;
  min-width: 0;
  resize: none;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.lg}px;
  background: ${({ theme }) => theme.colors.surface};
  line-height: 1.4;
  /* The box starts one row high: a long placeholder ends in an ellipsis instead of
     showing half of its second line. */
  &::placeholder {
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  &:disabled {
    background: ${({ theme }) => theme.colors.surfaceAlt};
    cursor: not-allowed;
  }
`;

export const ReplyPreview = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.sm}px`};
  border-left: 4px solid ${({ theme }) => theme.colors.primary};
  background: ${({ theme }) => theme.colors.surface};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  span {
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
`;

export const EmojiGrid = styled.div<{ $perLine: number }>`
  display: grid;
  grid-template-columns: repeat(${({ $perLine }) => $perLine}, 32px);
  padding: ${({ theme }) => theme.space.xs}px;
  @media (max-width: 560px) {
    grid-template-columns: repeat(8, 32px);
  }
`;

export const EmojiCell = styled.button`
  width: 32px;
  height: 32px;
  border: 0;
  background: transparent;
  font-size: 20px;
  cursor: pointer;
  border-radius: ${({ theme }) => theme.radii.sm}px;
  &:hover {
    background: ${({ theme }) => theme.colors.surfaceAlt};
  }
`;

export const QuickList = styled.div`
  position: absolute;
  left: ${({ theme }) => theme.space.sm}px;
  right: ${({ theme }) => theme.space.sm}px;
  bottom: calc(100% + 4px);
  max-height: ${({ theme }) => theme.layout.popoverMaxHeight}px;
  overflow: auto;
  z-index: ${({ theme }) => theme.zIndex.popover};
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  box-shadow: 0 6px 20px ${({ theme }) => theme.colors.shadow};
`;

export const RecorderBar = styled.div`
  flex: 1;
  display: flex;
  align-items: center;
  justify-content: flex-end;
  gap: ${({ theme }) => theme.space.sm}px;
  font-variant-numeric: tabular-nums;
`;

export const RecDot = styled.span<{ $on: boolean }>`
  width: 10px;
  height: 10px;
  border-radius: 50%;
  background: ${({ theme, $on }) => ($on ? theme.colors.danger : theme.colors.textSoft)};
`;

export const DrawerAside = styled.aside<{ $overlay: boolean }>`
  flex: none;
  width: ${({ theme }) => theme.layout.contactDrawerWidth}px;
  max-width: 100%;
  overflow-y: auto;
  background: ${({ theme }) => theme.colors.surface};
  border-left: 1px solid ${({ theme }) => theme.colors.border};
  ${({ $overlay, theme }) =>
    $overlay &&
    css`
      position: absolute;
      top: 0;
      right: 0;
      bottom: 0;
      z-index: ${theme.zIndex.drawer};
      box-shadow: 0 0 24px ${theme.colors.shadow};
    `}
`;

export const DrawerSection = styled.section`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: ${({ theme }) => theme.space.lg}px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  h3 {
    align-self: flex-start;
    margin: 0 0 ${({ theme }) => theme.space.xs}px;
    font-size: ${({ theme }) => theme.fontSizes.md}px;
  }
`;

export const InfoList = styled.dl`
  align-self: stretch;
  margin: 0;
  div {
    display: flex;
    justify-content: space-between;
    gap: ${({ theme }) => theme.space.sm}px;
    padding: ${({ theme }) => theme.space.xs}px 0;
  }
  dt {
    color: ${({ theme }) => theme.colors.textSoft};
  }
  dd {
    margin: 0;
    text-align: right;
    overflow-wrap: anywhere;
  }
`;

const oppColor = { won: 'oppWon', lost: 'oppLost', open: 'oppOpen' } as const;

export const OppCard = styled.div<{ $status: 'won' | 'lost' | 'open' }>`
  align-self: stretch;
  display: grid;
  grid-template-columns: 1fr auto;
  gap: 2px ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => theme.space.sm}px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  background: ${({ theme, $status }) => theme.colors[oppColor[$status]]};
  color: ${({ theme, $status }) => ($status === 'open' ? theme.colors.text : theme.colors.onPrimary)};
  /* On a won (green) or lost (red) card the muted stage takes the card's white: the
     soft grey would be 1.2:1 there. */
  ${({ $status }) => $status !== 'open' && 'span { color: inherit; }'}
  > svg {
    grid-row: 1 / span 3;
    grid-column: 2;
    align-self: center;
  }
`;

export const OppButtons = styled.div`
  grid-row: 1 / span 3;
  grid-column: 2;
  display: flex;
  align-items: center;
`;

const satisfactionColor = { low: 'danger', medium: 'warning', high: 'success' } as const;

export const Satisfaction = styled.span<{ $level: SatisfactionLevel }>`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  color: ${({ theme, $level }) => theme.colors[satisfactionColor[$level]]};
  font-weight: 700;
`;

export const HistoryTable = styled.table`
  width: 100%;
  border-collapse: collapse;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  th,
  td {
    text-align: left;
    padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.sm}px`};
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
`;

// Tag area under the header (TagPicker).
export const TagBar = styled.div`
  flex: none;
  display: flex;
  align-items: center;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space.xs}px;
  min-height: 36px;
  padding: ${({ theme }) => `${theme.space.xxs}px ${theme.space.sm}px`};
  background: ${({ theme }) => theme.colors.surface};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const TagChip = styled.span<{ $color: string }>`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xxs}px;
  max-width: 200px;
  padding: 2px ${({ theme }) => theme.space.xs}px 2px ${({ theme }) => theme.space.sm}px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  font-weight: 600;
  /* The tag's own colour: black or white text, whichever reads (WCAG AA). */
  color: ${({ $color }) => readableOn($color)};
  background: ${({ $color }) => $color};
  > span {
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  > button {
    display: inline-flex;
    border: 0;
    padding: 0;
    background: transparent;
    color: inherit;
    cursor: pointer;
  }
  > button:disabled {
    cursor: not-allowed;
    opacity: 0.6;
  }
`;

export const TagSearch = styled.div`
  padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.sm}px`};
`;

export const TagSwatch = styled.span<{ $color: string }>`
  flex: none;
  width: 12px;
  height: 12px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  background: ${({ $color }) => $color};
`;

export const TagOptionName = styled.span`
  flex: 1;
  min-width: 0;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
`;

// Files chosen in the composer, shown before sending.
export const AttachList = styled.ul`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space.xs}px;
  margin: 0;
  padding: 0;
  list-style: none;
  > li {
    display: inline-flex;
    align-items: center;
    gap: ${({ theme }) => theme.space.xs}px;
    max-width: 240px;
    padding: 0 0 0 ${({ theme }) => theme.space.sm}px;
    border: 1px solid ${({ theme }) => theme.colors.border};
    border-radius: ${({ theme }) => theme.radii.round}px;
    background: ${({ theme }) => theme.colors.surface};
    font-size: ${({ theme }) => theme.fontSizes.sm}px;
  }
  > li > span {
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
`;

// Template confirmation: the list of approved templates.
export const TemplateList = styled.div`
  display: flex;
  flex-direction: column;
  max-height: ${({ theme }) => theme.layout.popoverMaxHeight}px;
  overflow: auto;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  > label {
    display: flex;
    align-items: center;
    gap: ${({ theme }) => theme.space.sm}px;
    padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
    cursor: pointer;
  }
  > label + label {
    border-top: 1px solid ${({ theme }) => theme.colors.border};
  }
`;

export const FormStack = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
`;
