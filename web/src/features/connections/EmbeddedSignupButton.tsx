// The "WABA (embedded signup)" header button (spec section 2). When the server has
// the Meta app configured (GET /wacloudapi/embedded/config) it loads Meta's SDK once,
// opens the embedded signup pop-up on click and posts its result to
// POST /wacloudapi/embedded; the new connection joins the list. Otherwise the click
// opens the manual WABA form, which then says what embedded signup needs.
// FB.login must run inside the click, or the browser blocks its pop-up: so the button
// waits (disabled) while the SDK loads, and a click after a failed load only loads it
// again (the next click signs up).
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { connectionsApi } from '../../api/endpoints';
import type { Connection, WabaEmbeddedConfig } from '../../api/types';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { Button } from '../../components/primitives';
import { loadSdk, runSignup, SignupError, type FacebookSdk } from './embeddedSignup';

export function EmbeddedSignupButton({ onManual, onCreated }: { onManual: () => void; onCreated: (c: Connection) => void }) {
  const { t } = useTranslation();
  const [config, setConfig] = useState<WabaEmbeddedConfig | null>(null);
  const [busy, setBusy] = useState(false);
  // Meta's SDK, once the server offers embedded signup: loading, ready or failed.
  const [sdkState, setSdkState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const sdk = useRef<FacebookSdk | null>(null);

  const load = useCallback((appId: string, live: () => boolean = () => true) => {
    setSdkState('loading');
    return loadSdk(appId).then(
      (fb) => {
        sdk.current = fb;
        if (live()) setSdkState('ready');
      },
      (err: unknown) => {
        if (live()) setSdkState('failed');
        throw err;
      },
    );
  }, []);

  useEffect(() => {
    let live = true;
    connectionsApi.wabaEmbeddedConfig().then(
      (c) => {
        if (!live || !c?.enabled) return;
        setConfig(c);
        load(c.appId, () => live).catch(() => undefined); // reported on click
      },
      () => undefined, // not offered: the manual form stands in
    );
    return () => {
      live = false;
    };
  }, [load]);

  const signup = async (fb: FacebookSdk, configId: string) => {
    setBusy(true);
    try {
      const got = await runSignup(fb, configId);
      const conn = await connectionsApi.addWabaEmbedded(got);
      if (conn) onCreated(conn);
      toast.success(t('connections.toasts.connected'));
    } catch (err) {
      if (err instanceof SignupError) {
        if (err.reason === 'cancelled') toast.info(t('connections.embedded.cancelled'));
        else toast.error(t(err.reason === 'sdk' ? 'connections.embedded.sdkFailed' : 'connections.embedded.failed'));
      } else toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const click = () => {
    if (!config?.enabled) {
      onManual();
      return;
    }
    if (sdk.current) {
      void signup(sdk.current, config.configId);
      return;
    }
    // The load failed: try again; the pop-up waits for the next click.
    load(config.appId).catch(() => toast.error(t('connections.embedded.sdkFailed')));
  };

  return (
    <Button type="button" $variant="secondary" onClick={click} disabled={busy || (!!config?.enabled && sdkState === 'loading')} data-testid="waba-embedded" data-enabled={!!config?.enabled}>
      {t('connections.actions.addWabaEmbedded')}
    </Button>
  );
}
