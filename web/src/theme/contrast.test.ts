import { colors } from './tokens';
import { contrastRatio, readableOn } from './contrast';

// WCAG 2 AA: 4.5:1 for normal text. The pairs the app draws text with.
const aa = 4.5;

describe('theme contrast', () => {
  it('computes WCAG ratios', () => {
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBeCloseTo(1, 5);
    expect(contrastRatio('#8a939c', '#ffffff')).toBeCloseTo(3.12, 2); // axe's 3.11 for the old textSoft
    expect(contrastRatio('nope', '#fff')).toBe(0);
  });

  it.each([
    ['textSoft', 'surface'],
    ['textSoft', 'background'],
    ['textSoft', 'surfaceAlt'],
    ['textSoft', 'primarySoft'],
    ['textSoft', 'bubbleOut'],
    ['textSoft', 'bubbleIn'],
    ['textSoft', 'chatBackground'],
    ['textSoft', 'bubbleWhisper'],
    ['textMuted', 'surface'],
    ['text', 'background'],
    ['onPrimary', 'primary'],
    ['onPrimary', 'success'],
    ['onPrimary', 'danger'],
    ['onPrimary', 'textSoft'],
    ['onPrimary', 'noQueue'],
    ['primary', 'surface'],
    ['danger', 'surface'],
  ] as const)('%s on %s is AA', (fg, bg) => {
    expect(contrastRatio(colors[fg], colors[bg])).toBeGreaterThanOrEqual(aa);
  });

  it.each(['#0288d1', '#e5b800', '#f07d00', '#25d366', '#ffffff', '#000000', '#7b1fa2', '#1f6f5c', colors.ageWarm, colors.ageHot])(
    'a label on %s picks a readable colour',
    (bg) => {
      expect(contrastRatio(readableOn(bg), bg)).toBeGreaterThanOrEqual(aa);
    },
  );
});
