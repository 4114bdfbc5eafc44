// /Settings (spec section 2): user creation (enabled/disabled), the initial side menu
// (open/closed), accept calls and the tenant's time zone (an IANA name, in which every
// time of the tenant is shown and read; America/Cuiaba by default). Each control saves on change (PUT /settings/{key});
// settings:manage holders may change them, everyone else sees them read-only. The
// list is the shared 'settings' resource the layout reads too, reloaded after a change
// and on the realtime "settings" event, so every browser follows.
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { settingsApi } from '../../api/endpoints';
import { useResource } from '../../app/resources';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { Muted, Select, Switch } from '../../components/primitives';
import { Spinner } from '../../components/Splash';
import type { SettingEvent } from '../../api/types';
import { defaultTenantTimeZone } from '../../app/format';
import { Header, Page, Title } from '../../components/pageStyle';
import { Card, Item, Text } from './style';

const enabled = 'enabled';
const disabled = 'disabled';

// The keys of engine.SettingDefaults, in the server's order, and how each is shown.
export const settingKeys = [
  { key: 'userCreation', control: 'switch' },
  { key: 'sideMenu', control: 'select' },
  { key: 'acceptCalls', control: 'switch' },
  { key: 'timeZone', control: 'zone' },
] as const;

// The IANA zones the browser knows (the server checks the name against Go's zone
// database); the stored zone is listed even if the browser lacks it.
function zoneNames(current: string): string[] {
  const names = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return names.includes(current) ? names : [current, ...names];
}

type Key = (typeof settingKeys)[number]['key'];

export default function SettingsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageSettings);
  const settings = useResource('settings', settingsApi.list);
  // Values being saved, shown at once; dropped when the save ends.
  const [pending, setPending] = useState<Partial<Record<Key, string>>>({});
  const ids = useId();

  useRealtimeEvent<SettingEvent>('settings', () => settings.reload());
  useResync(() => settings.reload());

  const valueOf = (key: Key): string =>
    pending[key] ?? settings.data?.find((s) => s.key === key)?.value ?? (key === 'timeZone' ? defaultTenantTimeZone : enabled);

  const save = async (key: Key, value: string) => {
    setPending((p) => ({ ...p, [key]: value }));
    try {
      await settingsApi.update(key, value);
      toast.success(t('settings.saved'));
      settings.reload();
    } catch (err) {
      toastError(err);
    } finally {
      setPending((p) => {
        const next = { ...p };
        delete next[key];
        return next;
      });
    }
  };

  return (
    <Page>
      <Header>
        <Title>{t('settings.title')}</Title>
      </Header>
      {!manage && <Muted>{t('settings.readOnly')}</Muted>}
      {settings.loading ? (
        <Spinner />
      ) : (
        <Card>
          {settingKeys.map(({ key, control }) => {
            const id = `${ids}-${key}`;
            const value = valueOf(key);
            return (
              <Item key={key} data-testid={`setting-${key}`}>
                <Text>
                  <label htmlFor={id}>{t(`settings.${key}.label`)}</label>
                  <Muted id={`${id}-hint`}>{t(`settings.${key}.hint`)}</Muted>
                </Text>
                {control === 'switch' ? (
                  <Switch
                    id={id}
                    aria-describedby={`${id}-hint`}
                    checked={value === enabled}
                    disabled={!manage || key in pending}
                    onChange={(e) => void save(key, e.target.checked ? enabled : disabled)}
                  />
                ) : control === 'zone' ? (
                  <Select
                    id={id}
                    name="timeZone"
                    aria-describedby={`${id}-hint`}
                    value={value}
                    disabled={!manage || key in pending}
                    onChange={(e) => void save(key, e.target.value)}
                  >
                    {zoneNames(value).map((z) => (
                      <option key={z} value={z}>
                        {z}
                      </option>
                    ))}
                  </Select>
                ) : (
                  <Select
                    id={id}
                    aria-describedby={`${id}-hint`}
                    value={value}
                    disabled={!manage || key in pending}
                    onChange={(e) => void save(key, e.target.value)}
                  >
                    <option value={enabled}>{t('settings.sideMenu.enabled')}</option>
                    <option value={disabled}>{t('settings.sideMenu.disabled')}</option>
                  </Select>
                )}
              </Item>
            );
          })}
        </Card>
      )}
    </Page>
  );
}
