import { NavLink } from 'react-router';
import { useTranslation } from 'react-i18next';
import { usePermissions, useUser } from '../../app/session';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/primitives';
import { visibleSections } from './menu';
import { AttentionIcon, useConnectionAttention } from '../connections/attention';
import { useUnreadChats } from '../internalChat/store';
import { Brand, DrawerHead, DrawerPanel, NavItem, NavLabel, SectionTitle } from './style';

export function Drawer({
  expanded,
  temporary,
  onNavigate,
  onToggle,
}: {
  expanded: boolean;
  temporary: boolean;
  onNavigate: () => void;
  onToggle: () => void;
}) {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const sections = visibleSections(can);
  const attention = useConnectionAttention();
  const unreadChats = useUnreadChats(useUser().id);
  if (temporary && !expanded) return null;
  return (
    <DrawerPanel $expanded={expanded} $temporary={temporary} aria-label={t('layout.drawer.label')}>
      <DrawerHead>
        {expanded && <Brand>{t('layout.drawer.brand')}</Brand>}
        <IconButton
          type="button"
          aria-label={expanded ? t('layout.drawer.collapse') : t('layout.drawer.expand')}
          aria-expanded={expanded}
          onClick={onToggle}
        >
          <Icon name={expanded ? 'chevronLeft' : 'menu'} />
        </IconButton>
      </DrawerHead>
      <nav>
        {sections.map((section) => (
          <div key={section.key} role="group" aria-label={t(`layout.sections.${section.key}`)}>
            {expanded && <SectionTitle>{t(`layout.sections.${section.key}`)}</SectionTitle>}
            {section.entries.map((entry) => (
              <NavItem
                as={NavLink}
                key={`${section.key}-${entry.key}`}
                to={entry.to}
                onClick={onNavigate}
                title={expanded ? undefined : t(`layout.menu.${entry.key}`)}
              >
                <AttentionIcon
                  on={
                    (attention > 0 && (entry.key === 'connections' || entry.key === 'tickets')) ||
                    (unreadChats > 0 && entry.key === 'chats')
                  }
                  count={entry.key === 'connections' ? attention : undefined}
                >
                  <Icon name={entry.icon} />
                </AttentionIcon>
                {expanded && <NavLabel>{t(`layout.menu.${entry.key}`)}</NavLabel>}
              </NavItem>
            ))}
          </div>
        ))}
      </nav>
    </DrawerPanel>
  );
}
