// The tenant's time zone, in one language: the admin opens /Settings, picks
// Europe/Lisbon in the time-zone list (saved with the success toast), reloads and finds
// it kept, then puts the default zone back (the other flows share the server and read
// times in it). The flow holds no interface text: every label comes from the locale
// files; zone names are IANA data.
import { newActor, screenshots } from '../lib/browser.mjs';
import { translator } from '../lib/locales.mjs';
import { assertClean, check, demo, login, toastShown, until, visible } from './steps.mjs';

const defaultZone = 'America/Cuiaba';

export async function timeZoneFlow({ browser, server, lng, onActors }) {
  const t = translator(lng);
  const shot = screenshots(`timezone-${lng}`);
  const admin = await newActor(browser, { name: `admin/${lng}`, lng });
  onActors?.([admin]);
  await login(admin, server.base, demo.admin);
  const a = admin.page;
  const zoneSelect = () => a.getByRole('combobox', { name: t('settings.timeZone.label') });
  const choose = async (zone) => {
    await zoneSelect().selectOption(zone);
    await toastShown(a, t('settings.saved'));
    await until(async () => (await zoneSelect().inputValue()) === zone && !(await zoneSelect().isDisabled()), `zone ${zone} saved`);
  };

  await a.goto(`${server.base}/Settings`);
  await visible(a.getByRole('heading', { name: t('settings.title'), exact: true }));
  await visible(zoneSelect());
  check((await zoneSelect().inputValue()) === defaultZone, `the tenant starts in ${await zoneSelect().inputValue()}, not ${defaultZone}`);
  await choose('Europe/Lisbon');
  await shot(a, 'zone-saved');
  await a.reload();
  await visible(zoneSelect());
  await until(async () => (await zoneSelect().inputValue()) === 'Europe/Lisbon', 'the zone kept after a reload');
  await choose(defaultZone);

  await assertClean([admin]);
  await admin.close();
}
