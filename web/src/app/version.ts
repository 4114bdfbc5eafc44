// Product version shown in the top bar (spec section 1).
export const appVersion = '6.0.2';
