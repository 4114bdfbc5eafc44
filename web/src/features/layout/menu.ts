// Drawer sections and entries of spec section 2, each section behind its permission.
import type { IconName } from '../../components/Icon';
import { actions } from '../../app/permissions';

export type MenuKey =
  | 'tickets'
  | 'chats'
  | 'scheduledMessages'
  | 'contacts'
  | 'groups'
  | 'quickAnswers'
  | 'agenda'
  | 'googleCalendar'
  | 'dashboard'
  | 'connections'
  | 'queues'
  | 'users'
  | 'bizFlow'
  | 'tags'
  | 'upgrades'
  | 'announcements'
  | 'waitPanel'
  | 'broadcasts'
  | 'campaign'
  | 'categories'
  | 'catalog'
  | 'messagingApi'
  | 'clientMap'
  | 'iaConfig'
  | 'bots'
  | 'nlpConfig'
  | 'settings'
  | 'leafletMap'
  | 'super'
  | 'support';

export interface MenuEntry {
  key: MenuKey;
  to: string;
  icon: IconName;
  permission?: string; // besides the section's
}

export type SectionKey = 'operation' | 'supervision' | 'business' | 'super';

export interface MenuSection {
  key: SectionKey;
  permission: string | null; // null: everyone signed in
  entries: MenuEntry[];
}

export const menu: MenuSection[] = [
  {
    key: 'operation',
    permission: null,
    entries: [
      { key: 'tickets', to: '/tickets', icon: 'chat' },
      { key: 'chats', to: '/chats', icon: 'group' },
      { key: 'scheduledMessages', to: '/scheduledMessages', icon: 'clock', permission: actions.scheduleMenu },
      { key: 'contacts', to: '/contacts', icon: 'person' },
      { key: 'groups', to: '/Groups', icon: 'group', permission: actions.manageGroups },
      { key: 'quickAnswers', to: '/quickAnswers', icon: 'bolt' },
      { key: 'agenda', to: '/advscheduler', icon: 'calendar', permission: actions.scheduleMenu },
      { key: 'googleCalendar', to: '/googlecalendar', icon: 'calendar', permission: actions.scheduleMenu },
    ],
  },
  {
    key: 'supervision',
    permission: actions.supervisionMenu,
    entries: [
      { key: 'dashboard', to: '/tableaux', icon: 'dashboard' },
      { key: 'connections', to: '/connections', icon: 'phone' },
      { key: 'queues', to: '/Queues', icon: 'dot' },
      { key: 'users', to: '/users', icon: 'person' },
      { key: 'bizFlow', to: '/BizFlow', icon: 'swap' },
      { key: 'tags', to: '/Tags', icon: 'label' },
      { key: 'upgrades', to: '/upgradeinfo', icon: 'history' },
      { key: 'announcements', to: '/announcements', icon: 'info' },
      { key: 'waitPanel', to: '/waitpanel', icon: 'visibility' },
    ],
  },
  {
    key: 'business',
    permission: actions.adminMenu,
    entries: [
      { key: 'broadcasts', to: '/Broadcasts', icon: 'send' },
      { key: 'campaign', to: '/Campaign', icon: 'send' },
      { key: 'categories', to: '/Categories', icon: 'label' },
      { key: 'catalog', to: '/catalog', icon: 'dashboard' },
      { key: 'messagingApi', to: '/MessagingAPI', icon: 'bolt' },
      { key: 'clientMap', to: '/ClientMap', icon: 'dot' },
      { key: 'iaConfig', to: '/iaconfig', icon: 'sparkle' },
      { key: 'bots', to: '/Bots', icon: 'chat' },
      { key: 'nlpConfig', to: '/NLPConfig', icon: 'translate' },
      { key: 'settings', to: '/Settings', icon: 'settings' },
      { key: 'support', to: '/Support', icon: 'info', permission: actions.viewCluster },
    ],
  },
  {
    key: 'super',
    permission: actions.superMenu,
    entries: [
      { key: 'clientMap', to: '/ClientMap', icon: 'dot' },
      { key: 'leafletMap', to: '/LeafletMap', icon: 'dot' },
      { key: 'super', to: '/Super', icon: 'group', permission: actions.manageTenants },
    ],
  },
];

export function visibleSections(can: (action: string) => boolean): MenuSection[] {
  return menu
    .filter((s) => s.permission === null || can(s.permission))
    .map((s) => ({ ...s, entries: s.entries.filter((e) => !e.permission || can(e.permission)) }));
}

export type Greeting = 'morning' | 'afternoon' | 'evening';

export function greetingFor(hour: number): Greeting {
  if (hour >= 5 && hour < 12) return 'morning';
  if (hour >= 12 && hour < 18) return 'afternoon';
  return 'evening';
}
