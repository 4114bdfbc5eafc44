// Profiles of spec section 6, least to most privileged (engine.Profiles). The user
// modal offers admin, manager, superv, userplus and user (spec section 2), no more
// privileged than the caller's own profile: the server refuses the others.
import type { TFunction } from 'i18next';
import type { Profile } from '../../api/types';

export const profileOrder: Profile[] = ['user', 'userplus', 'superv', 'manager', 'admin', 'super'];

export const offeredProfiles: Profile[] = ['admin', 'manager', 'superv', 'userplus', 'user'];

export function profileRank(p: string | undefined | null): number {
  return profileOrder.indexOf((p ?? '') as Profile);
}

// mayHandle: the caller may act on a user of this profile (server: mayHandle).
export function mayHandle(caller: string | undefined | null, target: string | undefined | null): boolean {
  const c = profileRank(caller);
  return c >= 0 && profileRank(target) <= c;
}

export function profilesFor(caller: string | undefined | null, current?: string): Profile[] {
  const list = offeredProfiles.filter((p) => mayHandle(caller, p));
  if (current && !list.includes(current as Profile) && profileRank(current) >= 0) list.unshift(current as Profile);
  return list;
}

// profileLabel: a profile's name in the current language; an unknown one as it is.
export function profileLabel(t: TFunction, p: string): string {
  return profileRank(p) >= 0 ? t(`users.profiles.${p as Profile}`) : p;
}
