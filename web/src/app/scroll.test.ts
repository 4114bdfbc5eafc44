import { nearBottom, nextPageThresholdPx } from './scroll';

describe('nearBottom', () => {
  it('is true within 100 px of the bottom and when the content is shorter than the viewport', () => {
    expect(nearBottom({ scrollHeight: 1000, scrollTop: 299, clientHeight: 600 })).toBe(false);
    expect(nearBottom({ scrollHeight: 1000, scrollTop: 300, clientHeight: 600 })).toBe(true);
    expect(nearBottom({ scrollHeight: 1000, scrollTop: 400, clientHeight: 600 })).toBe(true);
    expect(nearBottom({ scrollHeight: 200, scrollTop: 0, clientHeight: 600 })).toBe(true);
    expect(nextPageThresholdPx).toBe(100);
  });
});
