// Meta's WhatsApp embedded signup in the browser (docs/channels.md, WABA): Meta's
// JavaScript SDK opens a Facebook login pop-up with the app's embedded signup
// configuration; the pop-up hands back a code (FB.login, response_type code) and
// posts a WA_EMBEDDED_SIGNUP message naming the business account and phone number
// chosen. The server (POST /wacloudapi/embedded) exchanges the code and registers the
// number. The SDK is only loaded when the server has the app configured, once per
// page.

export const sdkUrl = 'https://connect.facebook.net/en_US/sdk.js';
const graphVersion = 'v21.0';

// The part of Meta's SDK used here.
export interface FacebookLoginResponse {
  status?: string;
  authResponse?: { code?: string } | null;
}

export interface FacebookSdk {
  init(params: { appId: string; autoLogAppEvents?: boolean; xfbml?: boolean; version: string }): void;
  login(callback: (response: FacebookLoginResponse) => void, options: Record<string, unknown>): void;
}

declare global {
  interface Window {
    FB?: FacebookSdk;
    fbAsyncInit?: () => void;
  }
}

export interface SignupResult {
  code: string;
  wabaId: string;
  phoneNumberId: string;
}

// Why a signup did not finish: the user closed the pop-up or left before choosing a
// number ('cancelled'), Meta reported an error ('error'), the SDK did not load
// ('sdk').
export class SignupError extends Error {
  constructor(
    readonly reason: 'cancelled' | 'error' | 'sdk',
    message: string = reason,
  ) {
    super(message);
  }
}

let loading: Promise<FacebookSdk> | null = null;
let initialised: string | null = null;

// loadSdk injects Meta's SDK once (later calls share the first load) and initialises
// it for appId. A window.FB already there (another loader, a test stub) is used as is.
export function loadSdk(appId: string): Promise<FacebookSdk> {
  const init = (fb: FacebookSdk) => {
    if (initialised !== appId) {
      fb.init({ appId, autoLogAppEvents: true, xfbml: false, version: graphVersion });
      initialised = appId;
    }
    return fb;
  };
  if (window.FB) return Promise.resolve(init(window.FB));
  if (!loading) {
    loading = new Promise<FacebookSdk>((resolve, reject) => {
      window.fbAsyncInit = () => {
        if (window.FB) resolve(init(window.FB));
        else reject(new SignupError('sdk'));
      };
      const script = document.createElement('script');
      script.id = 'facebook-jssdk';
      script.src = sdkUrl;
      script.async = true;
      script.defer = true;
      script.crossOrigin = 'anonymous';
      script.onerror = () => {
        loading = null;
        script.remove();
        reject(new SignupError('sdk'));
      };
      document.body.appendChild(script);
    });
  }
  return loading;
}

// resetSdk forgets the load (tests).
export function resetSdk(): void {
  loading = null;
  initialised = null;
  document.getElementById('facebook-jssdk')?.remove();
}

// fromFacebook accepts the pop-up's messages only: https://facebook.com and its
// subdomains (www., web.).
export function fromFacebook(origin: string): boolean {
  try {
    const u = new URL(origin);
    return u.protocol === 'https:' && (u.hostname === 'facebook.com' || u.hostname.endsWith('.facebook.com'));
  } catch {
    return false;
  }
}

type SignupMessage = { type?: string; event?: string; data?: Record<string, unknown> };

function parse(data: unknown): SignupMessage | null {
  let v: unknown = data;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  return v && typeof v === 'object' ? (v as SignupMessage) : null;
}

const id = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

// runSignup opens the pop-up (call it from the click itself, or the browser may block
// the pop-up) and resolves once both halves arrived: the code of the login callback
// and the WA_EMBEDDED_SIGNUP FINISH message (in either order). A code whose message
// does not follow within waitMs is a signup left unfinished.
export function runSignup(fb: FacebookSdk, configId: string, waitMs = 15000): Promise<SignupResult> {
  return new Promise<SignupResult>((resolve, reject) => {
    let code = '';
    let ids: { wabaId: string; phoneNumberId: string } | null = null;
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (err?: SignupError) => {
      if (done) return;
      if (!err && !(code && ids)) return;
      done = true;
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
      if (err) reject(err);
      else resolve({ code, ...(ids as { wabaId: string; phoneNumberId: string }) });
    };
    const onMessage = (e: MessageEvent) => {
      if (!fromFacebook(e.origin)) return;
      const m = parse(e.data);
      if (!m || m.type !== 'WA_EMBEDDED_SIGNUP') return;
      if (m.event === 'CANCEL') return finish(new SignupError('cancelled'));
      if (m.event === 'ERROR') return finish(new SignupError('error', id(m.data?.error_message) || 'error'));
      const wabaId = id(m.data?.waba_id);
      const phoneNumberId = id(m.data?.phone_number_id);
      if (!wabaId || !phoneNumberId) return finish(new SignupError('cancelled')); // e.g. FINISH_ONLY_WABA: no number chosen
      ids = { wabaId, phoneNumberId };
      finish();
    };
    window.addEventListener('message', onMessage);
    try {
      // A plain function: the SDK refuses async callbacks.
      fb.login(
        function (response) {
          code = response?.authResponse?.code ?? '';
          if (!code) return finish(new SignupError('cancelled'));
          if (!ids) timer = setTimeout(() => finish(new SignupError('cancelled')), waitMs);
          finish();
        },
        {
          config_id: configId,
          response_type: 'code',
          override_default_response_type: true,
          extras: { setup: {}, featureType: '', sessionInfoVersion: '3' },
        },
      );
    } catch {
      finish(new SignupError('sdk'));
    }
  });
}
